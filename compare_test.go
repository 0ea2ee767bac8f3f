package heapconv

import (
	"strings"
	"testing"
)

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

// TestEquivalentBytes: a byte-exact format's Equivalent compares bytes
// and names the first difference, as the round trip does.
func TestEquivalentBytes(t *testing.T) {
	f := formatNamed("dart")
	if level, err := f.Equivalent([]byte("dartheap"), []byte("dartheap")); err != nil || level != "byte for byte" {
		t.Errorf("same bytes: %q %v", level, err)
	}
	_, err := f.Equivalent([]byte("dartheaq"), []byte("dartheap!"))
	if err == nil || err.Error() != "differs at byte 7 (line 1, column 8) (original 9 bytes, written 8 bytes)" {
		t.Errorf("different bytes: %v", err)
	}
}
