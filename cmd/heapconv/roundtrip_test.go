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

// TestCompareWriter: the first difference, where it is, and an excerpt a
// person can read: text shown as text with a caret, binary data in hex.
func TestCompareWriter(t *testing.T) {
	long := strings.Repeat("abcdefghij", 10)
	tests := []struct {
		name        string
		orig, wrote string
		chunk       int // write in pieces of this size; 0 for one write
		at          int64
		position    string
		excerpt     []string // lines of the excerpt
	}{
		{"same", long, long, 7, -1, "", nil},
		{"text", "{\"a\":[1,2,3],\n\"b\":[4,5,6]}", "{\"a\":[1,2,3],\n\"b\":[4,9,6]}", 3, 21, " (line 2, column 8)", []string{
			`  original: {"a":[1,2,3],\n"b":[4,5,6]}[end of file]`,
			`  written:  {"a":[1,2,3],\n"b":[4,9,6]}[end of file]`,
		}},
		{"far into a text", long + "X" + long, long + "Y" + long, 16, 100, " (line 1, column 101)", []string{
			`  original: …abcdefghijabcdefghijabcdefghijabcdefghijXabcdefghijabcdefghijabcdefghijabcdefghi…`,
			`  written:  …abcdefghijabcdefghijabcdefghijabcdefghijYabcdefghijabcdefghijabcdefghijabcdefghi…`,
		}},
		{"inside a character", "name: é", "name: è", 0, 7, " (line 1, column 8)", []string{
			`  original: name: é[end of file]`,
			`  written:  name: è[end of file]`,
		}},
		{"original longer", "abc", "ab", 1, 2, " (line 1, column 3)", []string{
			`  original: abc[end of file]`,
			`  written:  ab[end of file]`,
		}},
		{"written longer", "ab", "abc", 0, 2, " (line 1, column 3)", nil},
		{"binary", "\x00\x01\x02\x03\x04\x05", "\x00\x01\x02\xff\x04\x05", 2, 3, "", []string{
			"  original: 00 01 02 [03] 04 05",
			"  written:  00 01 02 [ff] 04 05",
		}},
		{"at byte 0", "\x00\x01", "\x01\x01", 0, 0, "", []string{
			"  original: [00] 01",
			"  written:  [01] 01",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newCompareWriter(strings.NewReader(tc.orig))
			w := []byte(tc.wrote)
			for len(w) > 0 {
				n := len(w)
				if tc.chunk > 0 {
					n = min(n, tc.chunk)
				}
				c.Write(w[:n])
				w = w[n:]
			}
			c.finish()
			if c.diffAt != tc.at {
				t.Fatalf("difference at %d, want %d", c.diffAt, tc.at)
			}
			if c.origLen != int64(len(tc.orig)) || c.n != int64(len(tc.wrote)) {
				t.Errorf("lengths %d and %d, want %d and %d", c.origLen, c.n, len(tc.orig), len(tc.wrote))
			}
			if tc.at < 0 {
				return
			}
			if got := c.position(); got != tc.position {
				t.Errorf("position %q, want %q", got, tc.position)
			}
			if tc.excerpt == nil {
				return
			}
			got := strings.Split(c.excerpt(), "\n")
			if len(got) < 2 || got[0] != tc.excerpt[0] || got[1] != tc.excerpt[1] {
				t.Fatalf("excerpt:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.excerpt, "\n"))
			}
			if tc.position == "" {
				if len(got) != 2 {
					t.Errorf("a binary excerpt has %d lines", len(got))
				}
				return
			}
			// Text: a caret under the first character that differs.
			a, b := []rune(got[0]), []rune(got[1])
			col := len("  original: ")
			for col < len(a) && col < len(b) && a[col] == b[col] {
				col++
			}
			if want := strings.Repeat(" ", col) + "^"; len(got) != 3 || got[2] != want {
				t.Errorf("caret line %q, want %q", got[2:], want)
			}
		})
	}
}
