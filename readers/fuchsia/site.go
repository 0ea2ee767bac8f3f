package fuchsia

import "heapconv/ir"

// unsymbolizedSkip returns, per stack, how many leading unsymbolized frames
// to skip as allocator frames: stacks are grouped by their leaf location,
// and the frames every stack of a group (of two or more) shares are the
// hooks and the allocator, never the allocation site. A stack keeps at
// least its last frame.
func unsymbolizedSkip(fs *ir.FuchsiaSnapshot, lc *ir.FuchsiaLocations) []int {
	ns := fs.Stacks()
	skip := make([]int, ns)
	type group struct {
		first  int // a stack of the group
		prefix int // frames all its stacks share
		n      int
	}
	groups := map[uint32]*group{}
	unsym := func(l uint32) bool { return lc.FirstLine[l] == lc.FirstLine[l+1] }
	for k := 0; k < ns; k++ {
		st := fs.StackOf(k)
		if len(st) == 0 || !unsym(st[0]) {
			continue
		}
		g := groups[st[0]]
		if g == nil {
			groups[st[0]] = &group{first: k, prefix: len(st), n: 1}
			continue
		}
		g.n++
		ref := fs.StackOf(g.first)
		p := 0
		for p < g.prefix && p < len(st) && st[p] == ref[p] && unsym(st[p]) {
			p++
		}
		g.prefix = p
	}
	for k := 0; k < ns; k++ {
		st := fs.StackOf(k)
		if len(st) == 0 {
			continue
		}
		if g := groups[st[0]]; g != nil && g.n > 1 {
			skip[k] = min(g.prefix, len(st)-1)
		}
	}
	return skip
}
