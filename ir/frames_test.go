package ir

import "testing"

func TestFrameName(t *testing.T) {
	for _, tc := range []struct {
		fr   Frame
		want string
	}{
		{Frame{Function: "malloc", Module: "libc.so", Offset: 0x10}, "malloc"},
		{Frame{Module: "libc.so", Offset: 0x1a2b, Address: 0x7f0000001a2b}, "libc.so+0x1a2b"},
		{Frame{Address: 0xdeadbeef}, "0xdeadbeef"},
	} {
		if got := tc.fr.Name(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.fr, got, tc.want)
		}
	}
}

// TestFuchsiaFrames: an unsymbolized location is one frame at its module
// offset; a symbolized one a frame per inlined function, outermost first.
func TestFuchsiaFrames(t *testing.T) {
	f := &File{Strings: []string{"", "libapp.so", "inner", "outer", "app.cc"}}
	m := &FuchsiaFile{}
	m.Mappings = FuchsiaMappings{ID: []uint64{1}, Start: []uint64{0x1000}, Limit: []uint64{0x9000}, Offset: []uint64{0x200},
		File: []uint32{1}, BuildID: []uint32{0}, Flags: []uint8{0}}
	m.Functions = FuchsiaFunctions{ID: []uint64{1, 2}, Name: []uint32{2, 3}, SystemName: []uint32{2, 3},
		Filename: []uint32{4, 4}, StartLine: []int64{0, 0}}
	m.Locations = FuchsiaLocations{ID: []uint64{1, 2, 3}, Mapping: []uint32{1, 1, 0}, Address: []uint64{0x1234, 0x1300, 0x42},
		Folded: []bool{false, false, false}, FirstLine: []uint32{0, 0, 2, 2},
		Function: []uint32{1, 2}, Line: []int64{10, 20}, Column: []int64{3, 0}}
	check := func(l int, want ...Frame) {
		t.Helper()
		got := m.Frames(f, l)
		if len(got) != len(want) {
			t.Fatalf("location %d: %+v, want %+v", l, got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("location %d frame %d: %+v, want %+v", l, i, got[i], want[i])
			}
		}
	}
	check(0, Frame{Module: "libapp.so", Offset: 0x434, Address: 0x1234})
	check(1,
		Frame{Function: "outer", File: "app.cc", Line: 20, Module: "libapp.so", Offset: 0x500, Address: 0x1300},
		Frame{Function: "inner", File: "app.cc", Line: 10, Column: 3, Module: "libapp.so", Offset: 0x500, Address: 0x1300})
	check(2, Frame{Address: 0x42})
}
