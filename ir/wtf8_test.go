package ir

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

func TestWTF8(t *testing.T) {
	lone := string(AppendWTF8(nil, 0xD83D)) // a high surrogate on its own
	for _, tc := range []struct {
		s     string
		units int
	}{
		{"", 0},
		{"abc", 3},
		{"é中", 2},
		{"😀", 2},
		{lone, 1},
		{lone + "x" + string(AppendWTF8(nil, 0xDC00)), 3},
		{"\xff", 1}, // an invalid byte counts as one unit
	} {
		if got := UTF16Len(tc.s); got != tc.units {
			t.Errorf("UTF16Len(%q) = %d, want %d", tc.s, got, tc.units)
		}
	}
	if lone != "\xed\xa0\xbd" {
		t.Errorf("AppendWTF8(0xD83D) = %q", lone)
	}
	for _, r := range []rune{'a', 0xE9, 0xD800, 0xDFFF, 0xFFFF, 0x1F600} {
		s := string(AppendWTF8(nil, r))
		if got, n := DecodeWTF8(s); got != r || n != len(s) {
			t.Errorf("DecodeWTF8(%q) = %U, %d; want %U, %d", s, got, n, r, len(s))
		}
	}
	if r, n := DecodeWTF8("\xff"); r != -1 || n != 1 {
		t.Errorf("DecodeWTF8 of an invalid byte = %d, %d", r, n)
	}
}

func TestAppendJSONWTF8(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", `""`},
		{"plain", `"plain"`},
		{"Café 名前 😀", `"Café 名前 😀"`},
		{"quote \" backslash \\ tab \t nul \x00 unit sep \x1f", `"quote \" backslash \\ tab \t nul \u0000 unit sep \u001f"`},
		{string(AppendWTF8(nil, 0xD83D)) + "x", `"\ud83dx"`},
		{"a" + string(AppendWTF8(nil, 0xDFFF)), `"a\udfff"`},
		{"bad \xff byte", `"bad \ufffd byte"`},
		{"<html>&", `"<html>&"`},
	}
	for _, tc := range tests {
		got := string(AppendJSONWTF8(nil, tc.in))
		if got != tc.want {
			t.Errorf("%q: %s, want %s", tc.in, got, tc.want)
		}
		var back string
		if err := json.Unmarshal([]byte(got), &back); err != nil {
			t.Errorf("%q: %s is not JSON: %v", tc.in, got, err)
		} else if utf8.ValidString(tc.in) && back != tc.in {
			t.Errorf("%q: decodes as %q", tc.in, back)
		}
	}
}
