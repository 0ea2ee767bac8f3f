package ir_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/heapconv/heapconv/ir"
)

func TestInterner(t *testing.T) {
	src := &ir.File{Strings: []string{"", "a", "b", "a"}}
	in := ir.NewInterner(src)
	got := []uint32{in.InternSrc(1), in.Intern("b"), in.InternSrc(2), in.InternSrc(3), in.InternSrc(1), in.Intern("a"), in.InternSrc(7)}
	want := []uint32{0, 1, 1, 0, 0, 0, 2}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("indices %v, want %v", got, want)
		}
	}
	if s := strings.Join(in.Strings, ","); !strings.HasPrefix(s, "a,b,<string 7") {
		t.Errorf("table %q", s)
	}
}

func TestInternerBytes(t *testing.T) {
	in := ir.NewInterner(nil)
	in.Reserve(1000)
	if a, b, c := in.InternBytes([]byte("x")), in.Intern("y"), in.InternBytes([]byte("x")); a != 0 || b != 1 || c != 0 {
		t.Fatalf("indices %d %d %d", a, b, c)
	}
	in.Reserve(4000) // keeps what is there
	if got := in.InternBytes([]byte("y")); got != 1 || len(in.Strings) != 2 {
		t.Fatalf("y is %d in %q", got, in.Strings)
	}
}

// TestInternerGrows: through every growth of its index, and Reserve calls
// before and in between (one between a Lookahead and its InternHashed), an
// Interner gives each distinct string the index of its first appearance,
// as a map would, whichever way it is interned.
func TestInternerGrows(t *testing.T) {
	for _, reserve := range []int{0, 10, 5000, 100_000} {
		in := ir.NewInterner(nil)
		in.Reserve(reserve)
		want := map[string]uint32{}
		for k := range 60_000 {
			s := fmt.Sprint("s", k*7919%20_011) // each three times, scattered
			var got uint32
			switch k % 3 {
			case 0:
				got = in.Intern(s)
			case 1:
				got = in.InternBytes([]byte(s))
			case 2:
				h := in.Lookahead([]byte(s))
				if k == 30_002 {
					in.Reserve(80_000)
				}
				got = in.InternHashed([]byte(s), h)
			}
			w, ok := want[s]
			if !ok {
				w = uint32(len(want))
				want[s] = w
			}
			if got != w {
				t.Fatalf("reserve %d, string %d (%q): index %d, want %d", reserve, k, s, got, w)
			}
		}
		if len(in.Strings) != len(want) {
			t.Fatalf("reserve %d: %d strings, want %d", reserve, len(in.Strings), len(want))
		}
		for s, i := range want {
			if in.Strings[i] != s {
				t.Fatalf("reserve %d: string %d is %q, want %q", reserve, i, in.Strings[i], s)
			}
		}
	}
}

// TestInternBytesFoundAllocatesNothing: looking up a string already in the
// table allocates nothing, as readers interning a string per object need.
func TestInternBytesFoundAllocatesNothing(t *testing.T) {
	in := ir.NewInterner(nil)
	b := []byte("a string of the heap")
	in.InternBytes(b)
	if n := testing.AllocsPerRun(100, func() { in.InternBytes(b) }); n != 0 {
		t.Errorf("InternBytes of a known string: %v allocations", n)
	}
}
