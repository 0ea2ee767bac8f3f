package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestRoundtripEveryFixture: every fixture of every format, compressed or
// not, comes back the same at the level its format promises (exit 0), and
// a damaged copy does not (exit 1).
func TestRoundtripEveryFixture(t *testing.T) {
	var paths []string
	for _, glob := range []string{"v8/*.zst", "v8/small/*", "dart/*.dartheap*", "moarvm/*.mvmheap*", "fuchsia/*.pb*",
		"fuchsia-fidl/*.fidlstream", "samples/*"} {
		m, err := filepath.Glob(filepath.Join(testdata, glob))
		if err != nil || len(m) == 0 {
			t.Fatalf("no fixtures match %s", glob)
		}
		paths = append(paths, m...)
	}
	levels := map[string]string{
		"v8":           "byte-exact",
		"dart":         "byte-exact",
		"fuchsia-fidl": "byte-exact",
		"moarvm":       "the same ",
		"fuchsia":      "the same profile as pprof reads it",
	}
	dir := t.TempDir()
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			code, stdout, stderr := cliRun(t, nil, "roundtrip", path)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d:\n%s%s", code, stdout, stderr)
			}
			lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
			if !strings.HasSuffix(lines[len(lines)-1], "IR msgpack+zstd round trip: identical") {
				t.Errorf("no IR verdict:\n%s", stdout)
			}
			format := strings.Fields(lines[0])[1]
			if format == "gzip-compressed" || format == "zstd-compressed" {
				format = strings.Fields(lines[0])[2]
			}
			if level, ok := levels[format]; ok && !strings.Contains(lines[0], level) && !strings.Contains(lines[0], "the same data") {
				t.Errorf("%s: verdict %q does not say %q", format, lines[0], level)
			}
			// A damaged copy: cut short (as the decompressed data when
			// the fixture is compressed).
			data := cliReadFile(t, path)
			cut := filepath.Join(dir, "cut-"+filepath.Base(path))
			switch {
			case strings.HasSuffix(path, ".zst"):
				data = unzstdBytes(t, data)
				cut = strings.TrimSuffix(cut, ".zst")
			case strings.HasSuffix(path, ".mvmheap.gz"):
				data = gunzipBytes(t, data)
				cut = strings.TrimSuffix(cut, ".gz")
			}
			// (A tenth: a Dart file cut before its optional identity hash
			// codes, or in a DevTools export's zero padding, is whole.)
			if err := os.WriteFile(cut, data[:len(data)/10], 0o644); err != nil {
				t.Fatal(err)
			}
			if code, stdout, stderr := cliRun(t, nil, "roundtrip", cut); code != 1 {
				t.Errorf("a cut copy: exit %d, want 1:\n%s%s", code, stdout, stderr)
			}
		})
	}
}

// TestRoundtripDifference: a Dart file with a number in a longer LEB128
// form than needed reads, but is not written back the same: exit 1, and
// the difference shown in hex around its offset.
func TestRoundtripDifference(t *testing.T) {
	dir := t.TempDir()
	data := cliReadFile(t, filepath.Join(testdata, "dart", "synthetic_vm_layout.dartheap"))
	// The first LEB128 number after the magic (the flags), written in two
	// bytes instead of one: its low bits with the continuation bit, then
	// a zero.
	at := len("dartheap")
	for data[at]&0x80 != 0 {
		at++
	}
	long := append(append(bytes.Clone(data[:at]), data[at]|0x80, 0), data[at+1:]...)
	path := filepath.Join(dir, "long.dartheap")
	if err := os.WriteFile(path, long, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := cliRun(t, nil, "roundtrip", path)
	want := "dart -> IR -> dart: differs at byte 8 (original 435 bytes, written 434 bytes)\n" +
		"  original: 64 61 72 74 68 65 61 70 [80] 00 04"
	if code != 1 || !strings.Contains(stdout, want) {
		t.Errorf("exit %d, want 1 and\n%s\n\ngot:\n%s%s", code, want, stdout, stderr)
	}
}

// TestRoundtripCorrection: a V8 file whose trace_function_count miscounts
// its functions (as Node 20's inspector writes it) is written back with
// the count corrected: roundtrip names the correction and finds the rest
// byte-exact, or, when something else differs too, shows that difference;
// convert warns that its output differs from its input, and says where.
func TestRoundtripCorrection(t *testing.T) {
	dir := t.TempDir()
	good := cliReadFile(t, filepath.Join(smallDir, "compact.heapsnapshot"))
	const right, short = `"trace_function_count":2`, `"trace_function_count":1`
	short1 := bytes.Replace(good, []byte(right), []byte(short), 1)
	// 1.50 is written back as 1.5 (docs/formats/v8.md, Round trips).
	odd := bytes.Replace(short1, []byte(short+","), []byte(short+`,"x":1.50,`), 1)
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"only the count", short1, "v8 -> IR -> v8: corrected where the file breaks what its readers need, byte-exact otherwise (" +
			strconv.Itoa(len(short1)) + " bytes):\n  1 × functions the header's trace_function_count miscounted (1 for the 2 of trace_function_infos"},
		{"the count and more", odd, "v8 -> IR -> v8: differs at byte " + strconv.Itoa(bytes.Index(odd, []byte("1.50"))+3)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if bytes.Equal(tc.data, good) {
				t.Fatal("the fixture has no trace_function_count of 2")
			}
			path := filepath.Join(dir, "in.heapsnapshot")
			if err := os.WriteFile(path, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := cliRun(t, nil, "roundtrip", path)
			if code != 1 || !strings.Contains(stdout, tc.want) {
				t.Errorf("exit %d, want 1 and\n%s\n\ngot:\n%s%s", code, tc.want, stdout, stderr)
			}
		})
	}
	in := filepath.Join(dir, "short.heapsnapshot")
	if err := os.WriteFile(in, short1, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := cliRun(t, nil, "convert", in, filepath.Join(dir, "out.heapsnapshot"))
	want := "warning: the v8 file differs from the v8 input (1 change; -q hides this):\n  1 × functions the header's trace_function_count miscounted"
	if code != 0 || !strings.HasPrefix(stderr, want) {
		t.Errorf("convert: exit %d, want 0 and\n%s\n\ngot:\n%s", code, want, stderr)
	}
}
