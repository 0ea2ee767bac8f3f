package fuchsiagen

import (
	"bytes"
	"sort"
)

// A small heap whose blocks come from four allocation sites, written by
// hand rather than generated, so that a test knows each block's site: the
// program callsites allocates through malloc from make_node, fill_buffer,
// leak_memory and build_list (the last called from make_node), each
// called from main, which __libc_start_main calls. A stack is, leaf
// first: the hook (__scudo_allocate_hook, in heapdump's instrumentation
// library), Scudo's allocate and malloc (libc.so), the site, its callers.

// The modules of CallSitesSnapshot.
const (
	CallSitesProgram         = "callsites"
	CallSitesLibc            = "libc.so"
	CallSitesInstrumentation = "libheapdump_instrumentation.so"
)

// CallSite is one allocation site of CallSitesSnapshot.
type CallSite struct {
	// Function is the function that calls malloc.
	Function string
	// Return is the program address of the call's return, in the program
	// (the site's frame in the stacks of its blocks).
	Return uint64
	// Blocks is how many blocks the site allocated.
	Blocks int
}

// callSitesFunc is a function of the modules of CallSitesSnapshot:
// module-relative start and end.
type callSitesFunc struct {
	name       string
	start, end uint64
}

// callSitesModule is a module of CallSitesSnapshot: its region and the
// functions its symbols have.
type callSitesModule struct {
	region Region
	funcs  []callSitesFunc
}

// The modules, as the collector reports their executable segments: the
// file offsets differ from the vaddrs, so that a module-relative address
// and an offset in the file differ too.
var callSitesModules = []callSitesModule{
	{Region{Address: 0x2a17c41000, Size: 0x3000, FileOffset: 0x1000, Vaddr: 0x2000, Name: CallSitesProgram,
		BuildID: bytes.Repeat([]byte{0xa1}, 20)}, []callSitesFunc{
		{"main", 0x2000, 0x2100},
		{"make_node", 0x2100, 0x2200},
		{"fill_buffer", 0x2200, 0x2300},
		{"leak_memory", 0x2300, 0x2400},
		{"build_list", 0x2400, 0x2500},
	}},
	{Region{Address: 0x3e5a8d0000, Size: 0x90000, FileOffset: 0x10000, Vaddr: 0x10000, Name: CallSitesLibc,
		BuildID: bytes.Repeat([]byte{0xb2}, 20)}, []callSitesFunc{
		{"__libc_start_main", 0x12000, 0x12100},
		{"malloc", 0x15000, 0x15100},
		{"scudo::Allocator<scudo::FuchsiaConfig, &scudo_malloc_postinit>::allocate(unsigned long, scudo::Chunk::Origin, unsigned long, bool)", 0x16000, 0x16400},
	}},
	{Region{Address: 0x41f0b20000, Size: 0x8000, FileOffset: 0x4000, Vaddr: 0x4000, Name: CallSitesInstrumentation,
		BuildID: bytes.Repeat([]byte{0xc3}, 20)}, []callSitesFunc{
		{"__scudo_allocate_hook", 0x5000, 0x5100},
	}},
}

// callSitesPC returns the program address of module-relative address a
// of module m.
func callSitesPC(m int, a uint64) uint64 {
	r := &callSitesModules[m].region
	return r.Address + a - r.Vaddr
}

// CallSites are the sites of CallSitesSnapshot, in the order of its
// blocks: the first site's blocks come first.
var CallSites = []CallSite{
	{"make_node", callSitesPC(0, 0x2134), 3},
	{"fill_buffer", callSitesPC(0, 0x2248), 2},
	{"leak_memory", callSitesPC(0, 0x2310), 1},
	{"build_list", callSitesPC(0, 0x245c), 4},
}

// CallSitesSnapshot returns the heap of CallSites as a collector sends it:
// one block per allocation, with address, size, thread and timestamp.
// hooks puts the hook's frame at the leaf of every stack, as the
// instrumentation records it; without it the stacks start in Scudo.
// instrumentation maps the instrumentation library (without it, the
// process maps only the program and libc.so).
func CallSitesSnapshot(hooks, instrumentation bool) *Snapshot {
	s := &Snapshot{}
	for m := range callSitesModules {
		if m == 2 && !instrumentation {
			continue
		}
		s.Regions = append(s.Regions, callSitesModules[m].region)
	}
	hook := callSitesPC(2, 0x5044)
	allocate, malloc := callSitesPC(1, 0x16230), callSitesPC(1, 0x15024)
	start := callSitesPC(1, 0x12064)
	// main calls each site's function from a call of its own.
	callers := [][]uint64{
		{callSitesPC(0, 0x2020)},
		{callSitesPC(0, 0x2030)},
		{callSitesPC(0, 0x2040)},
		{callSitesPC(0, 0x2150), callSitesPC(0, 0x2050)}, // build_list, from make_node
	}
	thread := &Thread{Name: "initial-thread", Koid: 31004}
	addr, ts := uint64(0x5d3e8000100), int64(120_000_000_000)
	for k, site := range CallSites {
		var stack []uint64
		if hooks {
			stack = append(stack, hook)
		}
		stack = append(stack, allocate, malloc, site.Return)
		stack = append(append(stack, callers[k]...), start)
		for b := 0; b < site.Blocks; b++ {
			size := uint64(16 << (k + b%2))
			s.Allocations = append(s.Allocations, Allocation{Address: addr, HasAddress: true, Size: size, Count: 1,
				Stack: stack, Thread: thread, Timestamp: ts, HasTimestamp: true})
			addr += 0x1000
			ts += 1_000_000
		}
	}
	return s
}

// CallSitesSymbols resolves the addresses of CallSitesSnapshot: every
// module's symbols are known, without files and lines.
func CallSitesSymbols() Symbolizer { return callSitesSymbols{} }

type callSitesSymbols struct{}

// Resolve implements Symbolizer.
func (callSitesSymbols) Resolve(buildID []byte, addr uint64) ([]Frame, error) {
	for _, m := range callSitesModules {
		if !bytes.Equal(m.region.BuildID, buildID) {
			continue
		}
		i := sort.Search(len(m.funcs), func(i int) bool { return m.funcs[i].end > addr })
		if i == len(m.funcs) || addr < m.funcs[i].start {
			return nil, ErrSymbolNotFound
		}
		return []Frame{{Function: m.funcs[i].name}}, nil
	}
	return nil, ErrSymbolFileUnavailable
}
