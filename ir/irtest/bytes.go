package irtest

import (
	"bytes"
	"strconv"
	"testing"
)

// SameBytes fails t unless got equals want, naming the first differing
// offset and the bytes around it: what byte-exact round trips check.
func SameBytes(t testing.TB, what string, got, want []byte) {
	t.Helper()
	if bytes.Equal(got, want) {
		return
	}
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	ctx := func(b []byte) string { return strconv.Quote(string(b[max(i-40, 0):min(i+40, len(b))])) }
	t.Errorf("%s: %d bytes, want %d; first difference at offset %d:\n got  %s\n want %s", what, len(got), len(want), i, ctx(got), ctx(want))
}
