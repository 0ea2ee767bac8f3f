package ir_test

import (
	"strings"
	"testing"

	"github.com/heapconv/heapconv/ir"
)

func TestInterner(t *testing.T) {
	src := &ir.File{Strings: []string{"", "a", "b", "a"}}
	in := ir.NewInterner(src)
	in.Transform = strings.ToUpper
	got := []uint32{in.InternSrc(1), in.Intern("b"), in.InternSrc(2), in.InternSrc(3), in.InternSrc(1), in.Intern("A"), in.InternSrc(7)}
	want := []uint32{0, 1, 1, 0, 0, 0, 2}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("indices %v, want %v", got, want)
		}
	}
	if s := strings.Join(in.Strings, ","); !strings.HasPrefix(s, "A,B,<STRING 7") {
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
