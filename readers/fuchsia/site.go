package fuchsia

import (
	"path"

	"heapconv/ir"
)

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

// maxHookFrames bounds the hook frames between the leaf and the
// allocator (with_profiler_and_call_site, __scudo_allocate_hook and their
// inlined helpers).
const maxHookFrames = 4

// maxShimFrames bounds the allocation shims skipped after libc.so
// (operator new; __rdl_alloc, __rust_alloc, exchange_malloc), and a frame
// is taken for a shim only when at least minShimStacks stacks pass through
// it.
const (
	maxShimFrames = 3
	minShimStacks = 4
)

// isLibc reports whether a module is libc.so (where Scudo and malloc live;
// it is also the dynamic linker, ld.so.1).
func isLibc(name string) bool {
	base := path.Base(name)
	return base == "libc.so" || base == "ld.so.1"
}

// moduleSkip returns, per stack, how many leading unsymbolized frames lie
// in the allocator, when the profile names the modules. A heapdump stack
// starts, leaf first, with the hooks in the instrumented binary (after the
// backtrace function in libc.so, on some builds), then Scudo and malloc in
// libc.so: libc frames, at most maxHookFrames others, libc frames again.
// Then come the language's allocation shims — operator new in libc++, Rust's
// __rdl_alloc, __rust_alloc and exchange_malloc in the binary — which
// cannot be told from call sites by their addresses; they are the frames
// most allocations funnel through: a frame is skipped as a shim when, of
// the stacks that reach its position the same way, at least half continue
// through it and they come to it from at least two callers (at most
// maxShimFrames). A stack of another shape gets 0; a stack keeps at least
// its last frame.
func moduleSkip(fs *ir.FuchsiaSnapshot, lc *ir.FuchsiaLocations, mp *ir.FuchsiaMappings, strs []string) []int {
	ns := fs.Stacks()
	skip := make([]int, ns)
	named := false
	for _, f := range mp.File {
		if strs[f] != "" {
			named = true
		}
	}
	if !named {
		return skip // the 2023 and with-tags eras wrote no module names
	}
	unsym := func(l uint32) bool { return lc.FirstLine[l] == lc.FirstLine[l+1] }
	libc := func(l uint32) bool {
		m := lc.Mapping[l]
		return m != 0 && unsym(l) && isLibc(strs[mp.File[m-1]])
	}
	// The hooks and libc.
	var live []int // stacks that passed through libc, to the shims
	for k := 0; k < ns; k++ {
		st := fs.StackOf(k)
		j, n := 0, len(st)
		for j < n && libc(st[j]) {
			j++
		}
		h := j
		for j < n && unsym(st[j]) && !libc(st[j]) {
			j++
		}
		if hooks := j - h; hooks >= 1 && hooks <= maxHookFrames && j < n && libc(st[j]) {
			for j < n && libc(st[j]) {
				j++
			}
		} else {
			j = h
		}
		skip[k] = j
		if j > 0 {
			live = append(live, k)
		}
	}
	// The shims: one level at a time, among the stacks that took the same
	// path so far (a group: the same hook and libc frames, then the same
	// shims), the frame at least half of them continue through.
	type group struct{ stacks []int }
	var groups []group
	byPath := map[string]int{}
	var key []byte
	for _, k := range live {
		key = key[:0]
		for _, l := range fs.StackOf(k)[:skip[k]] {
			key = append(key, byte(l), byte(l>>8), byte(l>>16), byte(l>>24))
		}
		g, ok := byPath[string(key)]
		if !ok {
			g = len(groups)
			byPath[string(key)] = g
			groups = append(groups, group{})
		}
		groups[g].stacks = append(groups[g].stacks, k)
	}
	for level := 0; level < maxShimFrames && len(groups) > 0; level++ {
		var next []group
		for _, g := range groups {
			by := map[uint32][]int{} // next location -> stacks
			var order []uint32
			for _, k := range g.stacks {
				st := fs.StackOf(k)
				if j := skip[k]; j+1 < len(st) && unsym(st[j]) {
					if by[st[j]] == nil {
						order = append(order, st[j])
					}
					by[st[j]] = append(by[st[j]], k)
				}
			}
			for _, l := range order {
				ks := by[l]
				if 2*len(ks) < len(g.stacks) || len(ks) < minShimStacks {
					continue
				}
				for _, k := range ks {
					skip[k]++
				}
				next = append(next, group{ks})
			}
		}
		groups = next
	}
	for k := range skip {
		skip[k] = min(skip[k], max(len(fs.StackOf(k))-1, 0))
	}
	return skip
}
