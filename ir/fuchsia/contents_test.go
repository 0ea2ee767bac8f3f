package fuchsia_test

import (
	"testing"

	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
)

func TestContentsName(t *testing.T) {
	single := &fuchsiair.Snapshot{}
	multi := &fuchsiair.Snapshot{HasProcessKoid: true, ProcessKoid: 4321}
	for _, c := range []struct {
		s    *fuchsiair.Snapshot
		addr uint64
		want string
	}{{single, 0x2a0f000, "0x2a0f000"}, {multi, 0x10, "4321-0x10"}, {single, 0, "0x0"}} {
		if got := fuchsiair.ContentsName(c.s, c.addr); got != c.want {
			t.Errorf("ContentsName(%+v, %#x) = %q, want %q", c.s, c.addr, got, c.want)
		}
	}
}
