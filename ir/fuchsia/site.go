package fuchsia

import (
	"path"
	"slices"
	"strings"

	"github.com/heapconv/heapconv/ir"
)

// A block's name and class are its allocation site (ir/fuchsia/section.go says how
// it maps into the IR): the reader names blocks so, and the FIDL writer
// names them so again from what a stream keeps (SiteNames) to count the
// blocks a stream moves to other classes.

// The names of the sites that are no frame.
const (
	// NoStackSite names the site of a block whose stack is empty.
	NoStackSite = "(no stack)"
	// AllocatorSite names the site of a block whose every frame is the
	// allocator's.
	AllocatorSite = "(allocator)"
)

// Site is where a stack's allocation site is.
type Site struct {
	// Frame is the site's position in the stack, leaf first; -1 when every
	// frame is the allocator's (or there are none).
	Frame int
	// Fn is 1 + the function naming a symbolized site, 0 for an
	// unsymbolized one (named by where its frame is, File.AddressName).
	Fn uint32
	// Class: the frame lies in a class mapping (ClassBuildID),
	// which names the site by its class.
	Class bool
}

// ChooseSites finds every stack's allocation site: the first frame in a
// class mapping, else the first frame outside the allocator: a symbolized
// frame's first line whose function is not an allocator frame, or an
// unsymbolized frame past those the heuristics take for the allocator's.
// strs is the string table the mappings and functions refer to.
func ChooseSites(ff *File, fs *Snapshot, strs []string) []Site {
	lc, mp := &ff.Locations, &ff.Mappings
	isClass := make([]bool, mp.Len())
	anyClass := false
	for m := range isClass {
		_, _, isClass[m] = mp.ClassOf(m, strs)
		anyClass = anyClass || isClass[m]
	}
	skip := unsymbolizedSkip(fs, lc)
	for k, n := range moduleSkip(fs, lc, mp, strs) {
		skip[k] = max(skip[k], n)
	}
	out := make([]Site, fs.Stacks())
	for k := range out {
		out[k] = Site{Frame: -1}
		stack := fs.StackOf(k)
		if anyClass {
			if j := slices.IndexFunc(stack, func(l uint32) bool { return lc.Mapping[l] != 0 && isClass[lc.Mapping[l]-1] }); j >= 0 {
				out[k] = Site{Frame: j, Class: true}
				continue
			}
		}
	frames:
		for j, l := range stack {
			lines := lc.Function[lc.FirstLine[l]:lc.FirstLine[l+1]]
			if len(lines) == 0 {
				if j < skip[k] {
					continue
				}
				out[k].Frame = j
				break
			}
			for _, fi := range lines {
				if !IsAllocatorFrame(strs[ff.Functions.Name[fi-1]]) {
					out[k] = Site{Frame: j, Fn: fi}
					break frames
				}
			}
		}
	}
	return out
}

// SiteNames returns the name the reader gives each node of snapshot s of f
// (its allocation site) from f's Fuchsia sections. The FIDL writer names
// the sites so of what the reader makes of a stream (which has program
// addresses, no functions) to say which blocks a stream puts in other
// classes.
func SiteNames(f *ir.File, s *ir.Snapshot) []string {
	ff := FileOf(f)
	fs := Of(s)
	lc, mp := &ff.Locations, &ff.Mappings
	stackName := make([]string, fs.Stacks())
	for k, x := range ChooseSites(ff, fs, f.Strings) {
		stack := fs.StackOf(k)
		switch {
		case len(stack) == 0:
			stackName[k] = NoStackSite
		case x.Frame < 0:
			stackName[k] = AllocatorSite
		case x.Class:
			m := lc.Mapping[stack[x.Frame]] - 1
			stackName[k], _, _ = mp.ClassOf(int(m), f.Strings)
		case x.Fn != 0:
			stackName[k] = f.Strings[ff.Functions.Name[x.Fn-1]]
		default:
			stackName[k] = ff.AddressName(f.Strings, int(stack[x.Frame]))
		}
	}
	names := make([]string, s.Nodes.Len())
	for i, k := range fs.Stack {
		names[i] = stackName[k]
	}
	return names
}

// unsymbolizedSkip returns, per stack, how many leading unsymbolized frames
// to skip as allocator frames: stacks are grouped by their leaf location,
// and the frames every stack of a group (of two or more) shares are the
// hooks and the allocator, never the allocation site. A stack keeps at
// least its last frame.
func unsymbolizedSkip(fs *Snapshot, lc *Locations) []int {
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
// inlined helpers) when they lie in a module of the program rather than
// in the instrumentation library.
const maxHookFrames = 4

// maxShimFrames bounds the allocation shims skipped after libc.so
// (operator new; __rdl_alloc, __rust_alloc, exchange_malloc), and a frame
// is taken for a shim only when at least minShimStacks stacks pass through
// it.
const (
	maxShimFrames = 3
	minShimStacks = 4
)

// InstrumentationModule is the module name of heapdump's instrumentation
// (//src/performance/memory/heapdump/instrumentation, a shared library
// that defines __scudo_allocate_hook and __scudo_realloc_allocate_hook):
// the collector names modules by their soname, so its frames, the hooks
// Scudo calls, lie in a mapping of this name.
const InstrumentationModule = "libheapdump_instrumentation.so"

// isLibc reports whether a module is libc.so (where Scudo and malloc live;
// it is also the dynamic linker, ld.so.1).
func isLibc(name string) bool {
	base := path.Base(name)
	return base == "libc.so" || base == "ld.so.1"
}

// isInstrumentation reports whether a module is heapdump's
// instrumentation library (InstrumentationModule).
func isInstrumentation(name string) bool {
	return path.Base(name) == InstrumentationModule
}

// moduleSkip returns, per stack, how many leading unsymbolized frames lie
// in the allocator, when the profile names the modules. A heapdump stack
// starts, leaf first, with the hooks in the instrumentation library
// (InstrumentationModule; after the backtrace function in libc.so, on
// some builds), then Scudo and malloc in libc.so: the leading frames in
// those two modules are skipped, and the site is the first frame past
// them. A profile that maps no instrumentation library may have the hooks
// linked into a module of the program: libc frames, at most
// maxHookFrames others, libc frames again. Those others are taken for
// hooks only when stacks that differ further on share them (the same
// path into the allocator, from different call sites): a call site and
// its callers, between malloc and __libc_start_main (libc.so too), are
// one stack's own. Then come the language's allocation shims — operator
// new in libc++, Rust's __rdl_alloc, __rust_alloc and exchange_malloc in
// the binary — which cannot be told from call sites by their addresses;
// they are the frames most allocations funnel through: a frame is skipped
// as a shim when, of the stacks that reach its position the same way, at
// least half continue through it and they come to it from at least two
// callers (at most maxShimFrames). A stack of another shape gets 0; a
// stack keeps at least its last frame.
func moduleSkip(fs *Snapshot, lc *Locations, mp *Mappings, strs []string) []int {
	ns := fs.Stacks()
	skip := make([]int, ns)
	named, instrumented := false, false
	for _, f := range mp.File {
		if strs[f] != "" {
			named = true
		}
		instrumented = instrumented || isInstrumentation(strs[f])
	}
	if !named {
		return skip // the 2023 and with-tags eras wrote no module names
	}
	unsym := func(l uint32) bool { return lc.FirstLine[l] == lc.FirstLine[l+1] }
	in := func(l uint32, module func(string) bool) bool {
		m := lc.Mapping[l]
		return m != 0 && unsym(l) && module(strs[mp.File[m-1]])
	}
	libc := func(l uint32) bool { return in(l, isLibc) }
	known := func(l uint32) bool { return libc(l) || in(l, isInstrumentation) }
	// The hooks and libc. A stack whose leading frames may be hooks in
	// another module has a hookPath (the frames to the hooks' end) and a
	// hookEnd (the end of the libc frames past them).
	type hookPath struct {
		first  int  // a stack taking the path
		shared bool // a stack that differs from it takes it too
	}
	paths := map[string]*hookPath{}
	hookOf, hookEnd := make([]*hookPath, ns), make([]int, ns)
	var key []byte
	pathKey := func(st []uint32) string {
		key = key[:0]
		for _, l := range st {
			key = append(key, byte(l), byte(l>>8), byte(l>>16), byte(l>>24))
		}
		return string(key)
	}
	for k := 0; k < ns; k++ {
		st := fs.StackOf(k)
		j, n := 0, len(st)
		for j < n && known(st[j]) {
			j++
		}
		skip[k] = j
		if instrumented {
			continue // the hooks are the instrumentation library's frames
		}
		h := j
		for j < n && unsym(st[j]) && !libc(st[j]) {
			j++
		}
		if hooks := j - h; hooks < 1 || hooks > maxHookFrames || j == n || !libc(st[j]) {
			continue
		}
		p := pathKey(st[:j])
		hp := paths[p]
		if hp == nil {
			hp = &hookPath{first: k}
			paths[p] = hp
		} else if !hp.shared && !slices.Equal(st, fs.StackOf(hp.first)) {
			hp.shared = true
		}
		for j < n && libc(st[j]) {
			j++
		}
		hookOf[k], hookEnd[k] = hp, j
	}
	var live []int // stacks that passed through libc, to the shims
	for k := 0; k < ns; k++ {
		if hookOf[k] != nil && hookOf[k].shared {
			skip[k] = hookEnd[k]
		}
		if skip[k] > 0 {
			live = append(live, k)
		}
	}
	// The shims: one level at a time, among the stacks that took the same
	// path so far (a group: the same hook and libc frames, then the same
	// shims), the frame at least half of them continue through.
	type group struct{ stacks []int }
	var groups []group
	byPath := map[string]int{}
	for _, k := range live {
		p := pathKey(fs.StackOf(k)[:skip[k]])
		g, ok := byPath[p]
		if !ok {
			g = len(groups)
			byPath[p] = g
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

// AllocatorFrames are the functions of the allocator hooks that lead
// every heapdump stack trace (the list tools/dupefinder skips). A function
// whose name starts with one of them followed by "::<" (a Rust generic
// instance) or "(" counts too.
var AllocatorFrames = []string{
	"__scudo_allocate_hook",
	"__scudo_realloc_allocate_hook",
	"with_profiler_and_call_site",
	"__sanitizer_fast_backtrace",
	"zx_libc::sanitizer::fast_backtrace",
}

// AllocatorEntries are the allocator's own functions below the hooks
// (Scudo's, the C allocation functions, C++ operator new, Rust's global
// allocator shims): frames a symbolized stack passes through between the
// hooks and the allocation site. A name matching "scudo::" as a prefix
// counts too.
var AllocatorEntries = []string{
	"malloc", "calloc", "realloc", "free", "posix_memalign", "aligned_alloc", "memalign", "valloc", "pvalloc",
	"operator new", "operator new[]",
	"__rust_alloc", "__rust_alloc_zeroed", "__rust_realloc", "__rdl_alloc", "__rdl_alloc_zeroed", "__rdl_realloc",
	"__rg_alloc", "__rg_alloc_zeroed", "__rg_realloc",
	"alloc::alloc::alloc", "alloc::alloc::alloc_zeroed", "alloc::alloc::realloc", "alloc::alloc::exchange_malloc",
}

// IsAllocatorFrame reports whether a symbolized function name is an
// allocator hook (AllocatorFrames) or one of the allocator's own
// functions (AllocatorEntries): one of those names, alone, as the last
// component of a "::" path, or followed by a parameter list or generic
// arguments ("(", "<", "::<", " [").
func IsAllocatorFrame(name string) bool {
	if strings.HasPrefix(name, "scudo::") {
		return true
	}
	for _, list := range [][]string{AllocatorFrames, AllocatorEntries} {
		for _, f := range list {
			for i := 0; i+len(f) <= len(name); {
				j := strings.Index(name[i:], f)
				if j < 0 {
					break
				}
				j += i
				rest := name[j+len(f):]
				pre := j == 0 || strings.HasSuffix(name[:j], "::")
				post := rest == "" || rest[0] == '(' || rest[0] == '<' || strings.HasPrefix(rest, "::<") || strings.HasPrefix(rest, " [")
				if pre && post {
					return true
				}
				i = j + 1
			}
		}
	}
	return false
}
