package fuchsiagen

import "sort"

// The data structures a process builds. Layouts are those of the 64-bit
// runtimes: libc++ with Fuchsia's ABI v2 (std::__2, alternate string
// layout), Rust's std (hashbrown, BTreeMap, VecDeque, Arc) and plain C.

const (
	structCppMap = iota
	structCppHash
	structCppList
	structCppVector
	structCppShared
	structRustHash
	structRustVec
	structRustBTree
	structRustDeque
	structRustArc
	structCList
	structCFib
	structBuffers
	structStrings
)

var langStructs = map[string][]int{
	"c++":  {structCppMap, structCppHash, structCppList, structCppVector, structCppShared, structBuffers, structStrings},
	"rust": {structRustHash, structRustVec, structRustBTree, structRustDeque, structRustArc, structBuffers, structStrings},
	"c":    {structCList, structCFib, structBuffers, structStrings},
}

// build creates structures until the allocation budget is spent.
func (p *procGen) build() {
	kinds := langStructs[p.prog.lang]
	target := p.g.opt.Allocations
	if p.prog.lang == "c" {
		p.begin()
		p.leak()
		p.end()
	}
	for len(p.blocks) < target {
		left := target - len(p.blocks)
		// Element counts: mostly small structures, some large ones.
		// Structures make up to about four blocks per element.
		n := p.r.spread(12, 4, 0, 20000)
		if n > left/4 {
			n = left / 4
		}
		p.begin()
		switch kinds[p.r.pick(p.prog.structs)] {
		case structCppMap:
			p.cppMap(n)
		case structCppHash:
			p.cppHash(n)
		case structCppList:
			p.cppList(n)
		case structCppVector:
			p.cppVector(n)
		case structCppShared:
			p.cppShared(n)
		case structRustHash:
			p.rustHash(n)
		case structRustVec:
			p.rustVec(n)
		case structRustBTree:
			p.rustBTree(n)
		case structRustDeque:
			p.rustDeque(n)
		case structRustArc:
			p.rustArc(n)
		case structCList:
			p.cList(n)
		case structCFib:
			p.cFib(n)
		case structBuffers:
			p.buffers(1 + n/4)
		case structStrings:
			p.strings(1 + n/2)
		}
		p.end()
	}
	if p.g.opt.EdgeCases && p.idx == 0 {
		p.edgeCases()
	}
}

// ---- C++ ----

// cppObject allocates a class instance: a vtable pointer, fields, maybe a
// std::string member and a back pointer to its owner.
func (p *procGen) cppObject(owner int32) int32 {
	nf := 2 + p.r.intn(12)
	hasStr := p.r.percent(30)
	size := uint64(8 + 8*nf)
	if hasStr {
		size += 24
	}
	chain := "new"
	if p.r.percent(4) {
		chain = "vendor"
	}
	o := p.alloc(size, chain, fillStruct)
	p.word(o, 0, p.vtable(p.r.intn(40)))
	p.word(o, 8, uint64(1+p.r.intn(3))) // fbl::RefCounted count
	if owner >= 0 && nf >= 3 {
		p.ptr(o, 16, owner, 0)
	}
	if hasStr {
		p.cppStringField(o, size-24)
	}
	if len(p.pool) < 4096 && p.r.percent(30) {
		p.pool = append(p.pool, o)
	}
	return o
}

// cppStringField writes a std::string (ABI v2 alternate layout) at off:
// short strings inline with their size in the last byte, long ones as
// {data, size, cap | 1<<63} pointing to a heap buffer.
func (p *procGen) cppStringField(o int32, off uint64) {
	n := p.r.spread(16, 3, 0, 400)
	if n < 23 {
		p.putBytes(o, off, []byte(p.str(n)))
		for i := uint64(n); i < 23; i++ {
			p.putBytes(o, off+i, []byte{0})
		}
		p.putBytes(o, off+23, []byte{byte(n)})
		return
	}
	s := p.cppString(n)
	p.ptr(o, off, s, 0)
	p.word(o, off+8, uint64(n))
	p.word(o, off+16, (p.blocks[s].size-1)|1<<63)
}

// cppString allocates a long std::string's buffer: capacity rounded up to
// 16 bytes, NUL-terminated.
func (p *procGen) cppString(n int) int32 {
	chain := "string"
	if p.r.percent(30) {
		chain = "stringgrow"
	}
	s := p.alloc(alignUp(uint64(n)+1, 16), chain, fillZero)
	p.putBytes(s, 0, append([]byte(p.str(n)), 0))
	return s
}

// cppMap: an object holding a std::map (a libc++ red-black tree). Node:
// {left, right, parent, is_black, key, value}; the root's parent is the
// end node inside the owner (an interior pointer), the owner holds
// {begin_node, root, size}.
func (p *procGen) cppMap(n int) {
	const m = 16
	owner := p.alloc(uint64(m+24+8*p.r.intn(6)), "new", fillStruct)
	p.word(owner, 0, p.vtable(p.r.intn(40)))
	strKey := p.r.percent(35)
	ksz := uint64(8)
	if strKey {
		ksz = 24
	}
	vkind := p.r.pick([]int{55, 20, 15, 10}) // object, int, string, pool pointer
	vsz := uint64(8)
	if vkind == 2 {
		vsz = 24
	}
	nodeSize := 32 + ksz + vsz
	keys := make([]uint64, n)
	k := p.r.rangeU(0, 5000)
	for i := range keys {
		k += p.r.rangeU(1, 100)
		keys[i] = k
	}
	// Insertion order is random; the tree is ordered by key.
	nodes := make([]int32, n)
	for _, i := range p.r.perm(n) {
		var val int32 = -1
		if vkind == 0 {
			val = p.cppObject(owner)
		}
		nd := p.alloc(nodeSize, "treenode", fillStruct)
		nodes[i] = nd
		if strKey {
			p.cppStringField(nd, 32)
		} else {
			p.word(nd, 32, keys[i])
		}
		switch vkind {
		case 0:
			p.ptr(nd, 32+ksz, val, 0)
		case 1:
			p.word(nd, 32+ksz, p.r.rangeU(0, 1<<20))
		case 2:
			p.cppStringField(nd, 32+ksz)
		case 3:
			if len(p.pool) > 0 {
				p.ptr(nd, 32+ksz, p.pool[p.r.intn(len(p.pool))], 0)
			}
		}
	}
	var link func(lo, hi int, parent int32, depth int) int32
	link = func(lo, hi int, parent int32, depth int) int32 {
		if lo >= hi {
			return -1
		}
		mid := (lo + hi) / 2
		nd := nodes[mid]
		l := link(lo, mid, nd, depth+1)
		r := link(mid+1, hi, nd, depth+1)
		p.wordOrNull(nd, 0, l, 0)
		p.wordOrNull(nd, 8, r, 0)
		if parent < 0 {
			p.ptr(nd, 16, owner, m+8) // the end node
		} else {
			p.ptr(nd, 16, parent, 0)
		}
		black := uint64(0)
		if depth%2 == 0 || l < 0 && r < 0 && p.r.percent(50) {
			black = 1
		}
		p.word(nd, 24, black)
		return nd
	}
	root := link(0, n, -1, 0)
	if n == 0 {
		p.ptr(owner, m, owner, m+8) // begin == end node
	} else {
		p.ptr(owner, m, nodes[0], 0)
	}
	p.wordOrNull(owner, m+8, root, 0)
	p.word(owner, m+16, uint64(n))
}

// wordOrNull writes a pointer to block to, or 0 if to < 0.
func (p *procGen) wordOrNull(from int32, off uint64, to int32, toff uint64) {
	if to < 0 {
		p.word(from, off, 0)
		return
	}
	p.ptr(from, off, to, toff)
}

// cppHash: an object holding a std::unordered_map. The owner holds
// {buckets, bucket_count, before_begin.next, size, max_load_factor}; a
// bucket points to the node before its first node (for the first chain,
// the before-begin node inside the owner); nodes are {next, hash, key,
// value}, chained per bucket.
func (p *procGen) cppHash(n int) {
	const m = 16
	owner := p.alloc(uint64(m+40+8*p.r.intn(4)), "new", fillStruct)
	p.word(owner, 0, p.vtable(p.r.intn(40)))
	bc := nextPrime(n)
	if n == 0 {
		p.word(owner, m, 0)
		p.word(owner, m+8, 0)
		p.word(owner, m+16, 0)
		p.word(owner, m+24, 0)
		p.put32(owner, m+32, 0x3f800000)
		return
	}
	buckets := p.alloc(uint64(bc)*8, "hashbucket", fillZero)
	strKey := p.r.percent(50)
	ksz := uint64(8)
	if strKey {
		ksz = 24
	}
	vptr := p.r.percent(50)
	type node struct {
		id   int32
		hash uint64
	}
	groups := map[int][]node{}
	var order []int
	for i := 0; i < n; i++ {
		var val int32 = -1
		if vptr {
			val = p.cppObject(-1)
		}
		nd := p.alloc(16+ksz+8, "hashnode", fillStruct)
		var h uint64
		if strKey {
			h = p.r.u64()
			p.cppStringField(nd, 16)
		} else {
			h = p.r.rangeU(0, 1<<20) // std::hash<uint64_t> is the identity
			p.word(nd, 16, h)
		}
		p.word(nd, 8, h)
		if vptr {
			p.ptr(nd, 16+ksz, val, 0)
		} else {
			p.word(nd, 16+ksz, p.r.rangeU(0, 64))
		}
		b := int(h % uint64(bc))
		if _, ok := groups[b]; !ok {
			order = append(order, b)
		}
		groups[b] = append(groups[b], node{nd, h})
	}
	var prev int32 = -1 // -1: the before-begin node in the owner
	for _, b := range order {
		if prev < 0 {
			p.ptr(buckets, uint64(b)*8, owner, m+16)
		} else {
			p.ptr(buckets, uint64(b)*8, prev, 0)
		}
		for _, nd := range groups[b] {
			if prev < 0 {
				p.ptr(owner, m+16, nd.id, 0)
			} else {
				p.ptr(prev, 0, nd.id, 0)
			}
			prev = nd.id
		}
	}
	p.word(prev, 0, 0)
	p.ptr(owner, m, buckets, 0)
	p.word(owner, m+8, uint64(bc))
	p.word(owner, m+24, uint64(n))
	p.put32(owner, m+32, 0x3f800000) // max_load_factor 1.0f
}

// nextPrime returns the smallest prime >= n (at least 2), as libc++'s
// __next_prime sizes bucket arrays.
func nextPrime(n int) int {
	if n < 2 {
		return 2
	}
	for c := n; ; c++ {
		prime := true
		for d := 2; d*d <= c; d++ {
			if c%d == 0 {
				prime = false
				break
			}
		}
		if prime {
			return c
		}
	}
}

// cppList: an object holding a std::list: the sentinel {prev, next} and
// size inside the owner; nodes {prev, next, value}. An empty list's
// sentinel points to itself.
func (p *procGen) cppList(n int) {
	const m = 16
	owner := p.alloc(uint64(m+24+8*p.r.intn(4)), "new", fillStruct)
	p.word(owner, 0, p.vtable(p.r.intn(40)))
	refPtr := p.r.percent(60) // std::list<fbl::RefPtr<Packet>>
	vsz := uint64(8)
	if !refPtr {
		vsz = uint64(8 * (1 + p.r.intn(5)))
	}
	var first, prev int32 = -1, -1
	for i := 0; i < n; i++ {
		var pkt int32 = -1
		if refPtr {
			pkt = p.cppObject(-1)
		}
		nd := p.alloc(16+vsz, "listnode", fillStruct)
		if prev < 0 {
			first = nd
			p.ptr(nd, 0, owner, m)
		} else {
			p.ptr(nd, 0, prev, 0)
			p.ptr(prev, 8, nd, 0)
		}
		if refPtr {
			p.ptr(nd, 16, pkt, 0)
		}
		prev = nd
	}
	if n == 0 {
		p.ptr(owner, m, owner, m)
		p.ptr(owner, m+8, owner, m)
	} else {
		p.ptr(owner, m, prev, 0)
		p.ptr(owner, m+8, first, 0)
		p.ptr(prev, 8, owner, m)
	}
	p.word(owner, m+16, uint64(n))
}

// cppVector: an object holding a std::vector {begin, end, end_cap}: end
// points inside the buffer (or at its end when full) and end_cap always
// one past the buffer, which is not inside it.
func (p *procGen) cppVector(n int) {
	const m = 16
	owner := p.alloc(uint64(m+24+8*p.r.intn(4)), "new", fillStruct)
	p.word(owner, 0, p.vtable(p.r.intn(40)))
	if n == 0 {
		p.word(owner, m, 0)
		p.word(owner, m+8, 0)
		p.word(owner, m+16, 0)
		return
	}
	c := 1
	for c < n {
		c *= 2
	}
	kind := p.r.pick([]int{50, 35, 15}) // unique_ptr<T>, float samples, pool pointers
	es := uint64(8)
	chain, fill := "vecgrow", fillZero
	if kind == 1 {
		es, chain, fill = 4, "vecdata", fillFloats
	}
	var elems []int32
	if kind == 0 {
		for i := 0; i < n; i++ {
			elems = append(elems, p.cppObject(owner))
		}
	}
	buf := p.alloc(uint64(c)*es, chain, fill)
	for i := 0; i < n; i++ {
		switch kind {
		case 0:
			p.ptr(buf, uint64(i)*8, elems[i], 0)
		case 2:
			if len(p.pool) > 0 {
				p.ptr(buf, uint64(i)*8, p.pool[p.r.intn(len(p.pool))], 0)
			}
		}
	}
	p.ptr(owner, m, buf, 0)
	p.ptr(owner, m+8, buf, uint64(n)*es)
	p.ptr(owner, m+16, buf, uint64(c)*es)
}

// cppShared: std::make_shared control blocks {vtable, shared_owners,
// weak_owners, T} held by objects and by a vector<shared_ptr<T>>, each
// shared_ptr being {T* (inside the control block), control block}.
func (p *procGen) cppShared(n int) {
	if n == 0 {
		n = 1
	}
	holders := make([]int, n)
	ctrls := make([]int32, n)
	for i := range ctrls {
		tsz := uint64(8 * (2 + p.r.intn(14)))
		c := p.alloc(24+tsz, "shared", fillStruct)
		p.word(c, 0, p.vtable(50+p.r.intn(20)))
		p.word(c, 16, 0)
		p.word(c, 24, p.vtable(p.r.intn(40)))
		if tsz >= 40 && p.r.percent(40) {
			b := p.alloc(uint64(sizeClasses[10+p.r.intn(20)]-16), "newarr", fillFloats)
			p.ptr(c, 32, b, 0)
		}
		ctrls[i] = c
	}
	vecLen := 0
	for i := range ctrls {
		h := 1 + p.r.geom(1, 2, 4)
		holders[i] = h
		vecLen += h
	}
	// Half of the references live in a vector, the rest in objects.
	buf := p.alloc(uint64(vecLen)*16, "vecgrow", fillZero)
	slot := 0
	for i, c := range ctrls {
		for h := 0; h < holders[i]; h++ {
			if h%2 == 0 {
				p.ptr(buf, uint64(slot)*16, c, 24)
				p.ptr(buf, uint64(slot)*16+8, c, 0)
				slot++
			} else {
				o := p.alloc(40+8*uint64(p.r.intn(4)), "new", fillStruct)
				p.word(o, 0, p.vtable(p.r.intn(40)))
				p.ptr(o, 8, c, 24)
				p.ptr(o, 16, c, 0)
			}
		}
		p.word(c, 8, uint64(holders[i]-1)) // shared_owners counts from 0
	}
	for ; slot < vecLen; slot++ {
		p.word(buf, uint64(slot)*16, 0)
		p.word(buf, uint64(slot)*16+8, 0)
	}
	owner := p.alloc(56, "new", fillStruct)
	p.word(owner, 0, p.vtable(p.r.intn(40)))
	p.ptr(owner, 8, buf, 0)
	p.ptr(owner, 16, buf, uint64(vecLen)*16)
	p.ptr(owner, 24, buf, uint64(vecLen)*16)
}

// ---- Rust ----

// rustString allocates a String's buffer: exact capacity (to_string) or a
// doubled one (push_str); UTF-8 without NUL. It returns the block and the
// capacity.
func (p *procGen) rustString(n int) (int32, uint64) {
	c := uint64(n)
	if p.r.percent(40) {
		c = 8
		for c < uint64(n) {
			c *= 2
		}
	}
	if c == 0 {
		c = 1
	}
	s := p.alloc(c, "string", fillRandom)
	p.putBytes(s, 0, []byte(p.str(n)))
	return s, c
}

// rustStringField writes a String {cap, ptr, len} at off.
func (p *procGen) rustStringField(o int32, off uint64) {
	n := p.r.spread(14, 3, 1, 300)
	s, c := p.rustString(n)
	p.word(o, off, c)
	p.ptr(o, off+8, s, 0)
	p.word(o, off+16, uint64(n))
}

// rustBox allocates a Box<T>: plain fields, maybe a String and a pointer
// to an earlier object.
func (p *procGen) rustBox() int32 {
	nf := 2 + p.r.intn(10)
	hasStr := p.r.percent(30)
	size := uint64(8 * nf)
	if hasStr {
		size += 24
	}
	b := p.alloc(size, "box", fillStruct)
	if hasStr {
		p.rustStringField(b, size-24)
	}
	if nf >= 3 && len(p.pool) > 0 && p.r.percent(50) {
		p.ptr(b, 8, p.pool[p.r.intn(len(p.pool))], 0)
	}
	if len(p.pool) < 4096 && p.r.percent(30) {
		p.pool = append(p.pool, b)
	}
	return b
}

// rustHash: Arc<Mutex<HashMap<K, V>>>. The ArcInner holds {strong, weak,
// futex+poison, RawTable{ctrl, bucket_mask, growth_left, items}, hasher
// keys}; the table allocation is buckets*T bytes of elements (stored
// backwards from ctrl) followed by buckets+GROUP_WIDTH control bytes, and
// ctrl points into its middle.
func (p *procGen) rustHash(n int) {
	owner := p.alloc(72, "arc", fillStruct)
	p.word(owner, 0, uint64(1+p.r.intn(4)))
	p.word(owner, 8, 1)
	p.word(owner, 16, 0)
	p.word(owner, 56, p.r.u64())
	p.word(owner, 64, p.r.u64())
	if n == 0 {
		// The empty singleton lives in the binary's rodata.
		p.word(owner, 24, p.rodata(7))
		p.word(owner, 32, 0)
		p.word(owner, 40, 0)
		p.word(owner, 48, 0)
		return
	}
	buckets := 4
	for buckets*7/8 < n || (buckets < 8 && buckets-1 < n) {
		buckets *= 2
	}
	width := 16
	if p.g.opt.Arch == "arm64" {
		width = 8
	}
	kind := p.r.pick([]int{40, 30, 30}) // (u64, Box<T>), (String, u64), (u64, Arc<T>)
	T := uint64(16)
	if kind == 1 {
		T = 32
	}
	ctrlOff := alignUp(uint64(buckets)*T, uint64(width))
	table := p.alloc(ctrlOff+uint64(buckets+width), "hashtable", fillRandom)
	ctrl := make([]byte, buckets+width)
	for i := range ctrl {
		ctrl[i] = 0xff
	}
	slots := p.r.perm(buckets)[:n]
	sort.Ints(slots)
	for _, s := range slots {
		h := p.r.u64()
		ctrl[s] = byte(h >> 57)
		at := ctrlOff - uint64(s+1)*T
		switch kind {
		case 0:
			v := p.rustBox()
			p.word(table, at, p.r.rangeU(0, 1<<32))
			p.ptr(table, at+8, v, 0)
		case 1:
			p.rustStringField(table, at)
			p.word(table, at+24, p.r.rangeU(0, 1<<16))
		case 2:
			k := 1 + p.r.intn(8)
			v := p.alloc(16+8*uint64(k), "arc", fillStruct)
			p.word(v, 0, 1)
			p.word(v, 8, 1)
			if k >= 3 && p.r.percent(50) {
				p.rustStringField(v, 16)
			}
			p.word(table, at, p.r.rangeU(0, 1<<32))
			p.ptr(table, at+8, v, 0)
		}
	}
	for i := 0; i < width; i++ {
		if i < buckets {
			ctrl[buckets+i] = ctrl[i]
		}
	}
	p.putBytes(table, ctrlOff, ctrl)
	capacity := buckets - 1
	if buckets >= 8 {
		capacity = buckets / 8 * 7
	}
	p.ptr(owner, 24, table, ctrlOff)
	p.word(owner, 32, uint64(buckets-1))
	p.word(owner, 40, uint64(capacity-n))
	p.word(owner, 48, uint64(n))
}

// rustVec: a Box'ed struct holding Vec<Box<T>> {cap, ptr, len}; the
// buffer grows by doubling from 4 through realloc.
func (p *procGen) rustVec(n int) {
	owner := p.alloc(24+8*uint64(1+p.r.intn(5)), "box", fillStruct)
	if n == 0 {
		p.word(owner, 0, 0)
		p.word(owner, 8, 8) // NonNull::dangling()
		p.word(owner, 16, 0)
		return
	}
	c := 4
	for c < n {
		c *= 2
	}
	elems := make([]int32, n)
	for i := range elems {
		elems[i] = p.rustBox()
	}
	chain := "vecnew"
	if c > 4 {
		chain = "vecgrow"
	}
	buf := p.alloc(uint64(c)*8, chain, fillRandom)
	for i, e := range elems {
		p.ptr(buf, uint64(i)*8, e, 0)
	}
	p.word(owner, 0, uint64(c))
	p.ptr(owner, 8, buf, 0)
	p.word(owner, 16, uint64(n))
}

// rustBTree: BTreeMap<u64, V>. LeafNode {parent, keys[11], vals[11],
// parent_idx: u16, len: u16} (192 bytes); InternalNode adds edges[12]
// (288 bytes). Children point to their parent's start.
func (p *procGen) rustBTree(n int) {
	owner := p.alloc(24+8*uint64(p.r.intn(4)), "box", fillStruct)
	if n == 0 {
		p.word(owner, 0, 0)
		p.word(owner, 8, 0)
		p.word(owner, 16, 0)
		return
	}
	boxed := p.r.percent(35)
	key := p.r.rangeU(0, 1000)
	nextKV := func(nd int32, i int) {
		key += p.r.rangeU(1, 50)
		p.word(nd, 8+uint64(i)*8, key)
		if boxed {
			p.ptr(nd, 96+uint64(i)*8, p.rustBox(), 0)
		} else {
			p.word(nd, 96+uint64(i)*8, p.r.rangeU(0, 1<<40))
		}
	}
	lens := map[int32]int{}
	setLen := func(nd int32, parentIdx, l int) {
		lens[nd] = l
		p.put32(nd, 184, uint32(parentIdx)|uint32(l)<<16)
	}
	// Build level by level: leaves hold 5..11 keys, each internal node
	// 5..11 separator keys and one more child.
	var level []int32
	remaining := n
	for remaining > 0 {
		l := 5 + p.r.intn(7)
		if l > remaining {
			l = remaining
		}
		nd := p.alloc(192, "btreeleaf", fillRandom)
		for i := 0; i < l; i++ {
			nextKV(nd, i)
		}
		setLen(nd, 0, l)
		p.word(nd, 0, 0)
		level = append(level, nd)
		remaining -= l
		if remaining > 0 {
			remaining-- // the separator goes up
		}
	}
	height := 0
	for len(level) > 1 {
		var up []int32
		for i := 0; i < len(level); {
			k, rest := 6+p.r.intn(7), len(level)-i
			if rest <= 12 {
				k = rest
			} else if k > rest-2 {
				k = rest - 2
			}
			nd := p.alloc(288, "btreeinner", fillRandom)
			for j := 0; j < k; j++ {
				child := level[i+j]
				p.ptr(nd, 192+uint64(j)*8, child, 0)
				p.ptr(child, 0, nd, 0)
				setLen(child, j, lens[child])
				if j < k-1 {
					nextKV(nd, j)
				}
			}
			setLen(nd, 0, k-1)
			p.word(nd, 0, 0)
			up = append(up, nd)
			i += k
		}
		level = up
		height++
	}
	p.ptr(owner, 0, level[0], 0)
	p.word(owner, 8, uint64(height))
	p.word(owner, 16, uint64(n))
}

// rustDeque: a Box'ed socket state with VecDeque<Packet> {cap, ptr, head,
// len}; Packet = {Box<[u8]> ptr, len, timestamp}, payloads are frames.
func (p *procGen) rustDeque(n int) {
	owner := p.alloc(32+8*uint64(p.r.intn(6)), "box", fillStruct)
	c := 4
	for c < n {
		c *= 2
	}
	buf := p.alloc(uint64(c)*24, "vecgrow", fillRandom)
	head := p.r.intn(c)
	for i := 0; i < n; i++ {
		size := uint64(60 + p.r.intn(1455))
		if p.r.percent(30) {
			size = 1514
		}
		pl := p.alloc(size, "buffer", fillFrame)
		at := uint64((head+i)%c) * 24
		p.ptr(buf, at, pl, 0)
		p.word(buf, at+8, size)
		p.word(buf, at+16, p.r.rangeU(1e9, 1e12))
	}
	p.word(owner, 0, uint64(c))
	p.ptr(owner, 8, buf, 0)
	p.word(owner, 16, uint64(head))
	p.word(owner, 24, uint64(n))
}

// rustArc: Arc<dyn Trait> values {strong, weak, data} held in a
// Vec<Arc<dyn Trait>> of fat pointers {ArcInner*, vtable}.
func (p *procGen) rustArc(n int) {
	if n == 0 {
		n = 1
	}
	arcs := make([]int32, n)
	for i := range arcs {
		k := 1 + p.r.intn(12)
		a := p.alloc(16+8*uint64(k), "arc", fillStruct)
		p.word(a, 0, uint64(1+p.r.geom(1, 2, 6)))
		p.word(a, 8, 1)
		// The state behind the trait object: a name, a boxed child.
		if k >= 3 && p.r.percent(45) {
			p.rustStringField(a, 16)
		}
		if k >= 5 && p.r.percent(50) {
			p.ptr(a, 40, p.rustBox(), 0)
		}
		arcs[i] = a
	}
	buf := p.alloc(uint64(len(arcs))*16, "vecnew", fillRandom)
	for i, a := range arcs {
		p.ptr(buf, uint64(i)*16, a, 0)
		p.word(buf, uint64(i)*16+8, p.vtable(60+p.r.intn(10)))
	}
	owner := p.alloc(48, "box", fillStruct)
	p.word(owner, 0, uint64(len(arcs)))
	p.ptr(owner, 8, buf, 0)
	p.word(owner, 16, uint64(len(arcs)))
}

// ---- C ----

// leak is heapdump-example's leaked block.
func (p *procGen) leak() {
	b := p.alloc(16, "malloc", fillZero)
	p.putBytes(b, 0, []byte("This is a leak!\x00"))
}

// cList: struct item {char* name; long value; list_node_t node;} with
// strdup'ed names, linked through the embedded list_node_t {prev, next}
// (Zircon's list.h): links point at the node field inside the neighbours
// (interior pointers); the list head is a global.
func (p *procGen) cList(n int) {
	var prev int32 = -1
	for i := 0; i < n; i++ {
		nd := p.alloc(32, "malloc", fillStruct)
		l := p.r.spread(10, 2, 1, 120)
		s := p.alloc(uint64(l)+1, "strdup", fillZero)
		p.putBytes(s, 0, append([]byte(p.str(l)), 0))
		p.ptr(nd, 0, s, 0)
		p.word(nd, 8, p.r.rangeU(0, 1<<31))
		if prev >= 0 {
			p.ptr(nd, 16, prev, 16)
			p.ptr(prev, 24, nd, 16)
		} else {
			p.word(nd, 16, p.rodata(3)) // &list_head, a global
		}
		p.word(nd, 24, p.rodata(3))
		prev = nd
	}
}

// cFib: arrays of Fibonacci numbers allocated by the recursive fib().
func (p *procGen) cFib(n int) {
	for i := 0; i <= n && i < 200; i++ {
		k := 2 + p.r.intn(60)
		b := p.alloc(uint64(k)*8, "calloc", fillZero)
		a, c := uint64(0), uint64(1)
		for j := 0; j < k; j++ {
			p.word(b, uint64(j)*8, a)
			a, c = c, a+c
		}
	}
}

// ---- shared ----

// buffers: I/O buffers owned by a small holder (unique_ptr<uint8_t[]>,
// Vec<u8>, or a C struct): random payloads, zero-filled ones, audio
// samples and FIDL message buffers.
func (p *procGen) buffers(n int) {
	sizes := []uint64{64, 128, 256, 512, 1024, 1514, 2048, 4096, 8192, 16384, 65536, 262144}
	for i := 0; i < n; i++ {
		size := sizes[p.r.pick([]int{10, 10, 12, 12, 12, 8, 10, 12, 6, 4, 3, 1})]
		fill := []int{fillRandom, fillZero, fillFloats, fillFIDL, fillText}[p.r.pick([]int{35, 25, 15, 15, 10})]
		chain := "malloc"
		switch p.prog.lang {
		case "c++":
			chain = "newarr"
			if fill == fillFIDL {
				chain, size = "buffer", 65536
			} else if fill == fillZero {
				chain = "calloc"
			}
		case "rust":
			chain = "buffer"
			if fill == fillZero {
				chain = "zeroed"
			}
		case "c":
			if fill == fillZero {
				chain = "calloc"
			}
		}
		b := p.alloc(size, chain, fill)
		if p.r.percent(80) {
			h := p.alloc(24+8*uint64(p.r.intn(3)), p.holderChain(), fillStruct)
			p.ptr(h, 0, b, 0)
			p.word(h, 8, p.blocks[b].size)
		}
	}
}

func (p *procGen) holderChain() string {
	switch p.prog.lang {
	case "c++":
		return "new"
	case "rust":
		return "box"
	}
	return "malloc"
}

// strings: an array of string handles and the strings.
func (p *procGen) strings(n int) {
	switch p.prog.lang {
	case "c++":
		h := p.alloc(uint64(n)*24, "vecgrow", fillZero)
		for i := 0; i < n; i++ {
			p.cppStringField(h, uint64(i)*24)
		}
	case "rust":
		h := p.alloc(uint64(n)*24, "vecgrow", fillZero)
		for i := 0; i < n; i++ {
			p.rustStringField(h, uint64(i)*24)
		}
	default:
		h := p.alloc(uint64(n)*8, "malloc", fillZero)
		for i := 0; i < n; i++ {
			l := p.r.spread(12, 3, 1, 200)
			s := p.alloc(uint64(l)+1, "strdup", fillZero)
			p.putBytes(s, 0, append([]byte(p.str(l)), 0))
			p.ptr(h, uint64(i)*8, s, 0)
		}
	}
	if p.r.percent(10) {
		p.alloc(uint64(p.r.spread(64, 3, 8, 4096)), "fdio", fillStruct)
	}
}
