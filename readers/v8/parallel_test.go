package v8

import (
	"math/rand"
	"strconv"
	"strings"
	"testing"
)

// TestDigits8 checks the SWAR digit conversion against strconv for every
// digit count and neighbouring byte.
func TestDigits8(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for i := 0; i < 200000; i++ {
		n := r.Intn(9)
		var b [8]byte
		for j := range b {
			b[j] = byte(r.Intn(256))
		}
		for j := 0; j < n; j++ {
			b[j] = byte('0' + r.Intn(10))
		}
		if n < 8 {
			for b[n] >= '0' && b[n] <= '9' {
				b[n] = byte(r.Intn(256))
			}
		}
		x := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
		gn, gv := digits8(x)
		if gn != n {
			t.Fatalf("%q: %d digits, want %d", b, gn, n)
		}
		if n > 0 {
			want, _ := strconv.ParseUint(string(b[:n]), 10, 64)
			if gv != want {
				t.Fatalf("%q: value %d, want %d", b, gv, want)
			}
		} else if gv != 0 {
			t.Fatalf("%q: value %d, want 0", b, gv)
		}
	}
}

// TestRegionParseLengths parses numbers of every length from 1 to 20
// digits, with V8's separators (a row ends in "\n,") and others, and
// checks them and the white space counted against strconv; a number past
// 2^64 is an error at its first digit.
func TestRegionParseLengths(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for _, sep := range []string{",", "\n,", ",\n", "\n\n,", " ,\n"} {
		var text []byte
		var want []uint64
		for i := 0; i < 5000; i++ {
			n := 1 + r.Intn(20)
			digits := make([]byte, n)
			digits[0] = byte('1' + r.Intn(9))
			for j := 1; j < n; j++ {
				digits[j] = byte('0' + r.Intn(10))
			}
			v, err := strconv.ParseUint(string(digits), 10, 64)
			if err != nil {
				continue // 20 digits beyond 2^64-1
			}
			text = append(append(text, digits...), sep...)
			want = append(want, v)
		}
		text = append(text, "18446744073709551615]"...)
		want = append(want, 1<<64-1)
		reg := &region{data: append(text, make([]byte, padPar)...), expect: expectFirst}
		reg.parse()
		if reg.errPos >= 0 {
			t.Fatalf("sep %q: error at %d: %s", sep, reg.errPos, reg.errMsg)
		}
		if !reg.st.done || len(reg.vals) != len(want) || reg.st.values != int64(len(want)) {
			t.Fatalf("sep %q: %d values (done %v, counted %d), want %d", sep, len(reg.vals), reg.st.done, reg.st.values, len(want))
		}
		n := int64(len(want) - 1)
		if nl, other := int64(strings.Count(sep, "\n"))*n, int64(strings.Count(sep, " "))*n; reg.st.newlines != nl || reg.st.other != other {
			t.Fatalf("sep %q: %d newlines and %d other white space, want %d and %d", sep, reg.st.newlines, reg.st.other, nl, other)
		}
		for i := range want {
			if reg.vals[i] != want[i] {
				t.Fatalf("sep %q: value %d = %d, want %d", sep, i, reg.vals[i], want[i])
			}
		}
	}
	bad := []byte("1,18446744073709551616,2]")
	reg := &region{data: append(bad, make([]byte, padPar)...), expect: expectFirst}
	reg.parse()
	if reg.errPos != 2 {
		t.Errorf("2^64: error at %d (%q), want 2", reg.errPos, reg.errMsg)
	}
}
