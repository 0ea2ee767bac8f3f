package main

import (
	"bytes"
	"os"
	"path/filepath"
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
