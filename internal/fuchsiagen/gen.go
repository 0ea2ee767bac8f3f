package fuchsiagen

import (
	"fmt"
	"sort"
)

// Options says what Generate makes. The zero value of a field means its
// default.
type Options struct {
	// Seed selects the heap; the same Options give the same result.
	Seed int64
	// Allocations is the number of live blocks of each user process
	// (default 2000); the last structure built may add a few more, and
	// EdgeCases adds five.
	Allocations int
	// Processes is the number of user processes (default 1; 0 with
	// KernelOnly).
	Processes int
	// Programs names the program of each user process (see ProgramNames);
	// processes beyond the list cycle through the catalog, starting at
	// program number Seed mod len(ProgramNames()).
	Programs []string
	// Kernel adds the kernel collector's snapshot (process "kernel", koid
	// 1, aggregated entries). Note that ffx talks to one collector at a
	// time: the kernel collector only ever sends this one snapshot, so a
	// real file never holds both kernel and user processes.
	Kernel bool
	// KernelOnly makes only the kernel snapshot.
	KernelOnly bool
	// KernelEntries is the number of distinct kernel backtraces (default
	// 150).
	KernelEntries int
	// Contents fills Allocation.Contents, as a snapshot taken with
	// --output-contents-dir has them.
	Contents bool
	// UnreadablePermille is how many blocks in 1000 have no contents
	// because the collector failed to read them (default 5; -1 for none).
	UnreadablePermille int
	// Arch is "arm64" (default) or "x64". On arm64 some processes store
	// pointers with a top-byte tag (0xb4 TBI tags, or MTE-style 4-bit
	// tags); the allocation addresses themselves are untagged.
	Arch string
	// MaxBlockSize caps block sizes (default 256 KiB).
	MaxBlockSize uint64
	// EdgeCases adds unusual but legal allocations to the first user
	// process: a zero-size block, a negative timestamp, a thread name with
	// brackets, a stack with a 0 frame and one with a PC outside every
	// region.
	EdgeCases bool
}

// Heap is what Generate returns: the snapshots (user processes in order,
// then the kernel) and the symbol server for --symbolize.
type Heap struct {
	Snapshots []*Snapshot
	Symbols   *SymbolTable
}

func (o *Options) norm() error {
	if o.Allocations <= 0 {
		o.Allocations = 2000
	}
	if o.KernelOnly {
		o.Kernel = true
		o.Processes = 0
	} else if o.Processes <= 0 {
		o.Processes = 1
	}
	if o.KernelEntries <= 0 {
		o.KernelEntries = 150
	}
	if o.UnreadablePermille == 0 {
		o.UnreadablePermille = 5
	} else if o.UnreadablePermille < 0 {
		o.UnreadablePermille = 0
	}
	if o.Arch == "" {
		o.Arch = "arm64"
	}
	if o.Arch != "arm64" && o.Arch != "x64" {
		return fmt.Errorf("fuchsiagen: unknown arch %q (arm64 or x64)", o.Arch)
	}
	if o.MaxBlockSize == 0 {
		o.MaxBlockSize = 256 << 10
	}
	if o.MaxBlockSize < 64 {
		o.MaxBlockSize = 64
	}
	for _, p := range o.Programs {
		if programByName(p) == nil {
			return fmt.Errorf("fuchsiagen: unknown program %q (have %v)", p, ProgramNames())
		}
	}
	return nil
}

type generator struct {
	opt     Options
	layouts map[string]*modLayout
}

// Generate makes a heap as described by opts.
func Generate(opts Options) (*Heap, error) {
	if err := opts.norm(); err != nil {
		return nil, err
	}
	g := &generator{opt: opts, layouts: buildLayouts(opts.Seed, opts.Arch)}
	h := &Heap{Symbols: symbolTable(opts.Seed, g.layouts)}
	r := newRNG(opts.Seed, hashString("processes"))
	koid := 2000 + r.rangeU(0, 40000)
	first := int(uint64(opts.Seed) % uint64(len(programs)))
	for i := 0; i < opts.Processes; i++ {
		prog := &programs[(first+i)%len(programs)]
		if i < len(opts.Programs) {
			prog = programByName(opts.Programs[i])
		}
		koid += r.rangeU(100, 30000)
		p := g.newProc(i, prog, koid)
		p.build()
		h.Snapshots = append(h.Snapshots, p.snapshot())
	}
	if opts.Kernel {
		h.Snapshots = append(h.Snapshots, g.kernelSnapshot())
	}
	for _, s := range h.Snapshots {
		if err := s.Validate(); err != nil {
			return nil, fmt.Errorf("fuchsiagen: internal error: %v", err)
		}
	}
	return h, nil
}

// retAddr returns the module-relative return address of the call from
// caller to callee inside caller (the same in every process).
func (g *generator) retAddr(l *modLayout, caller, callee string) uint64 {
	i, ok := l.byName[caller]
	if !ok {
		panic("fuchsiagen: no function " + caller + " in " + l.def.name)
	}
	f := l.funcs[i]
	h := hashString(caller + "\x00" + callee)
	if g.opt.Arch == "x64" {
		return f.start + 5 + h%(f.size-8)
	}
	return f.start + 4 + (h%(f.size-8))&^3
}

// Scudo-like placement: primary regions per size class (chunk header of
// 16 bytes before the user pointer, blocks at class-size strides, holes
// where blocks were freed), secondary mappings for large blocks with the
// user block at the end of the committed range.
var sizeClasses = []uint64{
	32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256,
	288, 320, 352, 384, 448, 512, 576, 640, 768, 896, 1024, 1280, 1536,
	1792, 2048, 2560, 3072, 3584, 4096, 5120, 6144, 7168, 8192, 10240,
	12288, 14336, 16384, 20480, 24576, 28672, 32768, 40960, 49152, 57344,
	65536,
}

const (
	chunkHeader   = 16
	regionSizeLog = 28
	pageSize      = 0x1000
)

type scudo struct {
	primary   uint64
	secondary uint64
	next      []uint64 // next free slot per class
}

func (s *scudo) alloc(r *rng, size uint64) uint64 {
	need := size + chunkHeader
	c := sort.Search(len(sizeClasses), func(i int) bool { return sizeClasses[i] >= need })
	if c < len(sizeClasses) {
		cs := sizeClasses[c]
		// Freed blocks leave holes between live ones.
		slot := s.next[c] + uint64(r.geom(1, 3, 40))
		if (slot+1)*cs <= 1<<regionSizeLog {
			s.next[c] = slot + 1
			return s.primary + uint64(c+1)<<regionSizeLog + slot*cs + chunkHeader
		}
		// The region is full: Scudo falls back to the secondary.
	}
	commit := alignUp(need+0x30, pageSize)
	base := s.secondary + pageSize // guard page before
	s.secondary = base + commit + pageSize + uint64(r.intn(16))*pageSize
	return (base + commit - size) &^ 15
}
