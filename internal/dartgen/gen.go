package dartgen

import (
	"errors"
	"fmt"
	"io"
	"math/bits"
	"math/rand/v2"
	"strconv"
)

// Options control what Build generates.
type Options struct {
	// Seed makes the output deterministic: the same Options give the same
	// bytes, another seed gives another heap.
	Seed int64
	// Objects is the approximate number of isolate-group heap objects (VM
	// isolate, synthetic and _Smi objects come on top). The fixed part of
	// the heap (libraries, classes, code, one of each kind of application
	// object) is about 7,000 objects, so smaller values give that. 0 means
	// 10,000.
	Objects int
	// Generation selects the layout written.
	Generation Generation
	// Isolates is the number of isolates in the group (Isolate objects
	// 3..2+Isolates). 0 means 1.
	Isolates int
	// Name is the isolate name in the header. "" means "main".
	Name string
}

// MaxObjects bounds Options.Objects (references are held as uint32).
const MaxObjects = 200_000_000

func (o *Options) normalize() error {
	if o.Objects < 0 || o.Objects > MaxObjects {
		return fmt.Errorf("dartgen: Objects %d out of range 0..%d", o.Objects, MaxObjects)
	}
	if o.Isolates < 0 || o.Isolates > 64 {
		return fmt.Errorf("dartgen: Isolates %d out of range 0..64", o.Isolates)
	}
	if o.Generation < GenVM || o.Generation > GenDevToolsExport {
		return errors.New("dartgen: unknown generation")
	}
	if o.Objects == 0 {
		o.Objects = 10_000
	}
	if o.Isolates == 0 {
		o.Isolates = 1
	}
	if o.Name == "" {
		o.Name = "main"
	}
	return nil
}

// Build generates a heap in memory.
func Build(opts Options) (*Heap, error) {
	if err := opts.normalize(); err != nil {
		return nil, err
	}
	cat := newCatalog()
	rng := rand.New(rand.NewPCG(uint64(opts.Seed), 0x9e3779b97f4a7c15))
	g := &gen{builder: newBuilder(cat, rng, opts.Objects+opts.Objects/8+20_000), c: cat, opts: opts}
	g.run()
	// Heap accounting: some free-list slack in "used" and a capacity with
	// room to grow (page granular, plus the new space).
	slack := uint64(roundUp(g.rng.IntN(opts.Objects/4+1024)*16, 16))
	return finalize(g.builder, opts, g.staticNames(), slack, uint64(opts.Objects)*24), nil
}

// Generate builds a heap and writes it to w, returning its summary.
func Generate(w io.Writer, opts Options) (*Summary, error) {
	h, err := Build(opts)
	if err != nil {
		return nil, err
	}
	if _, err := h.WriteTo(w); err != nil {
		return nil, err
	}
	return h.Summary(), nil
}

// gen generates the object graph on top of the builder.
type gen struct {
	*builder
	c    *catalog
	opts Options

	root, ro uint32
	isos     []uint32

	// VM isolate objects.
	null, tru, fls, uninit, initializing   uint32
	emptyArr, zeroArr, emptyStr            uint32
	emptyPool, emptyPcDesc, emptyStackMaps uint32
	emptyHandlers, emptyScope              uint32
	dynType, voidType                      uint32
	stubs                                  []uint32
	lazyStub                               uint32
	vmSym                                  map[string]uint32

	// Program structure (isolate group heap).
	sym        map[string]uint32
	symOrder   []uint32
	classObj   []uint32 // by class id
	typeObj    []uint32 // declaration _Type by class id
	taCache    map[string]uint32
	taOrder    []uint32
	fnTypes    []uint32
	libObj     map[library]uint32
	scriptObj  map[library]uint32
	functions  []uint32
	codes      []uint32
	kernelInfo uint32
	growEmpty  uint32 // _GrowableList._emptyList
	objStore   []uint32

	app appState
}

// young returns the space a freshly built scene goes to: mostly old space,
// sometimes new space (recent allocations).
func (g *gen) young() segment {
	if g.rng.IntN(8) == 0 {
		return segNew
	}
	return segOld
}

func (g *gen) heapObjects() int {
	return g.segCount[segNew] + g.segCount[segOld] + g.segCount[segImage]
}

func (g *gen) pick(xs []string) string { return xs[g.rng.IntN(len(xs))] }

func (g *gen) boolRef(v bool) uint32 {
	if v {
		return g.tru
	}
	return g.fls
}

func (g *gen) run() {
	c := g.c
	// 1..2+N: the synthetic objects. Their references are set in finish.
	g.root = g.alloc(segRoot, c.root, 0, NoData, 0)
	g.ro = g.alloc(segRoot, c.roPages, 0, NoData, 0)
	for i := 0; i < g.opts.Isolates; i++ {
		port := uint64(1)<<40 + g.rng.Uint64N(1<<62)
		g.isos = append(g.isos, g.named(segRoot, c.isolate, 0, strconv.FormatUint(port, 10)))
	}
	g.vmIsolate()
	g.program()
	g.appBootstrap()
	// Every kind of scene appears, whatever the budget (the sub-kinds
	// are random, so a few rounds).
	for round := 0; round < 6; round++ {
		for k := 0; k < sceneKinds; k++ {
			g.sceneOf(k, []segment{segOld, segNew}[round%2])
		}
	}
	for g.heapObjects() < g.opts.Objects {
		g.scene()
	}
	g.finish()
}

// vmIsolate creates the VM isolate's objects: null, the sentinels, bools,
// shared empty arrays and descriptors, symbols, the Class objects of the
// VM-internal classes and the stubs. They are written with size 0.
func (g *gen) vmIsolate() {
	c := g.c
	g.vmSym = map[string]uint32{}
	g.null = g.leaf(segVM, c.null, 16, NullData, 0)
	g.uninit = g.named(segVM, c.sentinel, 16, "uninitialized")
	g.setRefs(g.uninit)
	g.initializing = g.named(segVM, c.sentinel, 16, "initializing")
	g.setRefs(g.initializing)
	g.tru = g.leaf(segVM, c.boolC, 16, BoolData, 1)
	g.fls = g.leaf(segVM, c.boolC, 16, BoolData, 0)
	g.emptyArr = g.alloc(segVM, c.immList, arraySize(0), LengthData, 0)
	g.setRefs(g.emptyArr, g.null, g.smi(0))
	g.zeroArr = g.alloc(segVM, c.immList, arraySize(1), LengthData, 1)
	g.setRefs(g.zeroArr, g.null, g.smi(1), g.smi(0))
	g.emptyPool = g.leaf(segVM, c.objectPool, 16, LengthData, 0)
	g.emptyPcDesc = g.leaf(segVM, c.pcDescriptors, 16, NoData, 0)
	g.emptyStackMaps = g.leaf(segVM, c.stackMaps, 16, NoData, 0)
	g.emptyScope = g.leaf(segVM, c.contextScope, 16, NoData, 0)
	g.emptyHandlers = g.inst(segVM, c.excHandlers, g.emptyArr)
	g.emptyStr = g.vmSymbol("")
	for _, s := range vmSymbols {
		g.vmSymbol(s)
	}
	// Stubs: Code objects owned by nothing (NoData) with their instructions.
	for i := 0; i < 48; i++ {
		ins := g.leaf(segVM, c.instructions, roundUp(16+64+g.rng.IntN(2000), 16), NoData, 0)
		code := g.alloc(segVM, c.code, 128, NoData, 0)
		g.setSlots(code, g.emptyPool, ins, g.null, g.emptyHandlers, g.emptyPcDesc, g.null, g.emptyStackMaps, g.null, g.null)
		g.stubs = append(g.stubs, code)
	}
	g.lazyStub = g.stubs[3]
	g.dynType = g.inst(segVM, c.typeC, g.stubs[0], g.smi(int64(g.rng.IntN(1<<30))), g.null)
	g.voidType = g.inst(segVM, c.typeC, g.stubs[0], g.smi(int64(g.rng.IntN(1<<30))), g.null)
	g.classObj = make([]uint32, len(c.classes)+1)
	g.typeObj = make([]uint32, len(c.classes)+1)
	for id := range c.classes {
		ci := &c.classes[id]
		if !ci.vmClass {
			continue
		}
		o := g.named(segVM, c.classC, 208, ci.name)
		g.setSlots(o, g.vmSymbol(ci.name), g.null, g.emptyArr, g.null, g.emptyArr, g.null, g.emptyArr,
			g.null, g.null, g.null, g.null, g.null, g.null, g.emptyArr, g.null, g.null, g.null, g.null)
		g.classObj[id+1] = o
	}
}

// vmSymbols are some of the VM isolate's predefined symbols.
var vmSymbols = []string{
	"Object", "dart:core", "dart:async", "dart:collection", "dart:typed_data", "dart:isolate",
	"dart:_internal", "dart:ffi", "dart:developer", "dart:math", "dart:convert", "dart:ui",
	"_List", "_GrowableList", "_ImmutableList", "_Map", "_Set", "_Smi", "_Mint", "_Double",
	"_OneByteString", "_TwoByteString", "_Closure", "_Type", "_WeakProperty", "_WeakReference",
	"FinalizerEntry", "_FinalizerImpl", "Null", "bool", "int", "double", "num", "String",
	"List", "Map", "Iterable", "Function", "Future", "Stream", "dynamic", "void", "Never",
	"call", "length", "get:length", "set:length", "toString", "hashCode", "get:hashCode", "==",
	"noSuchMethod", "runtimeType", "get:runtimeType", "[]", "[]=", "add", "addAll", "iterator",
	"current", "moveNext", "<anonymous closure>", "main", ":result", ":async_op", ":controller",
	"this", "value", "key", "index", "_name", "values", "_instance", "_current", "_state",
	"_data", "_index", "_hashMask", "_usedData", "_deletedKeys", "_typeArguments", "_context",
	"Class", "Function", "Code", "Library", "Script", "Field", "TypeArguments", "Context",
	"Sentinel", "PcDescriptors", "CompressedStackMaps", "ObjectPool", "Instructions",
	"uninitialized", "initializing", "Unknown native function", "dart.core", "dart.async",
}

// vmSymbol returns the VM-isolate symbol s.
func (g *gen) vmSymbol(s string) uint32 {
	if o, ok := g.vmSym[s]; ok {
		return o
	}
	o := g.str(segVM, s)
	g.vmSym[s] = o
	return o
}

// symbol returns the canonical string s: a VM symbol if there is one,
// otherwise a heap symbol (old space).
func (g *gen) symbol(s string) uint32 {
	if o, ok := g.vmSym[s]; ok {
		return o
	}
	if o, ok := g.sym[s]; ok {
		return o
	}
	o := g.str(segOld, s)
	g.sym[s] = o
	g.symOrder = append(g.symOrder, o)
	return o
}

// ---- collections ----

// array creates a _List holding elems.
func (g *gen) array(seg segment, ta uint32, elems []uint32) uint32 {
	o := g.alloc(seg, g.c.list, arraySize(len(elems)), LengthData, int64(len(elems)))
	refs := make([]uint32, 0, 2+len(elems))
	refs = append(refs, ta, g.smi(int64(len(elems))))
	g.setRefs(o, append(refs, elems...)...)
	return o
}

// immutable creates a const _ImmutableList (image pages unless seg says
// otherwise).
func (g *gen) immutable(seg segment, ta uint32, elems []uint32) uint32 {
	if len(elems) == 0 {
		return g.emptyArr
	}
	o := g.alloc(seg, g.c.immList, arraySize(len(elems)), LengthData, int64(len(elems)))
	refs := make([]uint32, 0, 2+len(elems))
	refs = append(refs, ta, g.smi(int64(len(elems))))
	g.setRefs(o, append(refs, elems...)...)
	return o
}

// growable creates a _GrowableList of elems whose backing _List has room
// for capacity elements (the rest null).
func (g *gen) growable(seg segment, ta uint32, elems []uint32, capacity int) uint32 {
	var data uint32
	if capacity == 0 {
		data = g.growEmpty
	} else {
		capacity = max(capacity, len(elems))
		data = g.alloc(seg, g.c.list, arraySize(capacity), LengthData, int64(capacity))
		refs := make([]uint32, 0, 2+capacity)
		refs = append(refs, ta, g.smi(int64(capacity)))
		refs = append(refs, elems...)
		for len(refs) < 2+capacity {
			refs = append(refs, g.null)
		}
		g.setRefs(data, refs...)
	}
	o := g.alloc(seg, g.c.growable, 32, LengthData, int64(len(elems)))
	g.setRefs(o, ta, g.smi(int64(len(elems))), data)
	return o
}

// growCap is the capacity a growable list of n elements typically has.
func (g *gen) growCap(n int) int {
	if n == 0 {
		return 0
	}
	c := 2
	for c < n {
		c = c*2 + 2 // _GrowableList._nextCapacity-like growth
	}
	if g.rng.IntN(3) == 0 {
		return n // built with a known length (toList, List.of)
	}
	return c
}

// typed creates an internal typed-data list (kind as in typedKinds) with
// n elements.
func (g *gen) typed(seg segment, kind string, n int) uint32 {
	for _, k := range typedKinds {
		if k.name == kind {
			o := g.alloc(seg, g.c.typedBase[kind], typedSize(n*k.size), LengthData, int64(n))
			g.setRefs(o, g.smi(int64(n)))
			return o
		}
	}
	panic("dartgen: unknown typed-data kind " + kind)
}

// hashMaskFor is _HashBase._indexSizeToHashMask on a VM with 63-bit Smis.
func hashMaskFor(indexSize int) int64 {
	indexBits := bits.Len(uint(indexSize)) - 2
	return int64(1)<<(32-indexBits) - 1
}

// indexSizeFor is the index size of a compact hash map/set holding used
// entries (live + deleted): a power of two, at least 8, with room for
// used entries in the data array.
func indexSizeFor(used int) int {
	n := 8
	for n/2 < used {
		n *= 2
	}
	return n
}

// hashMap creates a _Map (or _ConstMap) of keys to vals with some deleted
// entries: a deleted key slot holds the data array itself (compact_hash's
// deleted marker), its value slot null.
func (g *gen) hashMap(seg segment, cls int, ta uint32, keys, vals []uint32, deleted int) uint32 {
	n := len(keys)
	if n == 0 && deleted == 0 {
		return g.emptyHash(seg, cls, ta)
	}
	used := n + deleted
	indexSize := indexSizeFor(used)
	index := g.typed(seg, "Uint32", indexSize)
	dataLen := indexSize // two slots per entry
	data := g.alloc(seg, g.c.list, arraySize(dataLen), LengthData, int64(dataLen))
	refs := make([]uint32, 0, 2+dataLen)
	refs = append(refs, g.null, g.smi(int64(dataLen)))
	k := 0
	for d := deleted; k < n || d > 0; {
		if d > 0 && (k == n || g.rng.IntN(n+1) == 0) {
			refs = append(refs, data, g.null)
			d--
			continue
		}
		refs = append(refs, keys[k], vals[k])
		k++
	}
	for len(refs) < 2+dataLen {
		refs = append(refs, g.null)
	}
	g.setRefs(data, refs...)
	m := g.alloc(seg, cls, 64, LengthData, int64(2*used))
	g.setRefs(m, ta, index, g.smi(hashMaskFor(indexSize)), data, g.smi(int64(2*used)), g.smi(int64(deleted)))
	return m
}

// hashSet creates a _Set (or _ConstSet) of elems.
func (g *gen) hashSet(seg segment, cls int, ta uint32, elems []uint32) uint32 {
	n := len(elems)
	if n == 0 {
		return g.emptyHash(seg, cls, ta)
	}
	indexSize := indexSizeFor(n)
	index := g.typed(seg, "Uint32", indexSize)
	dataLen := indexSize / 2 // one slot per element
	data := g.alloc(seg, g.c.list, arraySize(dataLen), LengthData, int64(dataLen))
	refs := make([]uint32, 0, 2+dataLen)
	refs = append(refs, g.null, g.smi(int64(dataLen)))
	refs = append(refs, elems...)
	for len(refs) < 2+dataLen {
		refs = append(refs, g.null)
	}
	g.setRefs(data, refs...)
	s := g.alloc(seg, cls, 64, LengthData, int64(n))
	g.setRefs(s, ta, index, g.smi(hashMaskFor(indexSize)), data, g.smi(int64(n)), g.smi(0))
	return s
}

// emptyHash is a map/set literal that never had an entry: it shares the
// uninitialized index and data.
func (g *gen) emptyHash(seg segment, cls int, ta uint32) uint32 {
	o := g.alloc(seg, cls, 64, LengthData, 0)
	g.setRefs(o, ta, g.app.uninitIndex, g.smi(0), g.emptyArr, g.smi(0), g.smi(0))
	return o
}

// context creates a closure Context: parent_ then the captured variables.
func (g *gen) context(seg segment, parent uint32, vars ...uint32) uint32 {
	o := g.alloc(seg, g.c.context, roundUp(24+8*len(vars), 16), NoData, 0)
	g.setRefs(o, append([]uint32{parent}, vars...)...)
	return o
}

// closure creates a _Closure of fn over ctx.
func (g *gen) closure(seg segment, fn, ctx uint32) uint32 {
	hash := g.null
	if g.rng.IntN(4) == 0 {
		hash = g.smi(int64(g.rng.IntN(1 << 30)))
	}
	return g.inst(seg, g.c.closure, g.null, g.null, g.null, fn, ctx, hash)
}
