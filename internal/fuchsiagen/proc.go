package fuchsiagen

import (
	"encoding/binary"
	"fmt"
)

// procGen generates one user process.
type procGen struct {
	g    *generator
	idx  int
	prog *progDef
	koid uint64
	r    *rng // structure, address and tag decisions
	cr   *rng // contents bytes and unreadable blocks only

	mods     []*pmod
	modByNm  map[string]*pmod
	funcMod  map[string]*pmod
	byRole   map[string][]string
	threads  []*Thread
	renamed  *Thread
	ctxs     [2][]pctx // [main thread, worker threads]
	ctxZipf  [2]*zipf
	chains   map[string][]string
	sites    map[siteKey]int32
	stacks   [][]uint64
	heap     scudo
	tagMode  int // 0 none, 1 TBI 0xb4 on some blocks, 2 MTE-style nibbles
	maxDepth int

	blocks   []gblock
	contents [][]byte
	structs  [][]int32
	cur      []int32
	curThr   int16
	pool     []int32 // objects later structures may point to
	edges    map[int32]edgeOverride
}

type pmod struct {
	l    *modLayout
	bias uint64
}

type pctx struct {
	path []string // root first
}

type siteKey struct {
	ctx    int32
	worker bool
	chain  string
}

type gblock struct {
	addr   uint64
	size   uint64
	site   int32
	thread int16
	tag    uint8
}

func (g *generator) newProc(idx int, prog *progDef, koid uint64) *procGen {
	seed := hashString(fmt.Sprintf("proc:%d:%s", idx, prog.name))
	p := &procGen{
		g: g, idx: idx, prog: prog, koid: koid,
		r:        newRNG(g.opt.Seed, seed),
		cr:       newRNG(g.opt.Seed, seed^0x5bd1e995),
		modByNm:  map[string]*pmod{},
		funcMod:  map[string]*pmod{},
		byRole:   map[string][]string{},
		chains:   map[string][]string{},
		sites:    map[siteKey]int32{},
		maxDepth: 64, // STACK_TRACE_MAXIMUM_DEPTH in instrumentation/src/hooks.rs
	}
	if g.opt.Arch == "arm64" {
		p.tagMode = []int{1, 0, 2}[idx%3]
	}
	r := p.r
	// Load the modules at random, non-overlapping addresses.
	cursor := r.rangeU(0x10_0000, 0x40_0000) << 16
	order := r.perm(len(prog.modules))
	p.mods = make([]*pmod, len(prog.modules))
	for _, i := range order {
		l := g.layouts[prog.modules[i].name]
		m := &pmod{l: l, bias: cursor}
		p.mods[i] = m
		p.modByNm[prog.modules[i].name] = m
		cursor = alignUp(cursor+l.dataVaddr+0x20000, pageSize) + r.rangeU(1, 1<<20)*pageSize
	}
	p.heap = scudo{
		primary:   (r.rangeU(0x100, 0x2ff)) << 32,
		secondary: (r.rangeU(0x400, 0x5ff)) << 32,
		next:      make([]uint64, len(sizeClasses)),
	}
	for _, line := range append(append([]string{}, prog.funcs...), tailFuncs...) {
		mod, role, name, _, _ := prog.parseFunc(line)
		if _, dup := p.funcMod[name]; dup {
			continue
		}
		p.funcMod[name] = p.modByNm[mod]
		p.byRole[role] = append(p.byRole[role], name)
	}
	for name, c := range prog.chains {
		var full []string
		for _, f := range c {
			if f[0] == '@' {
				full = append(full, tailOf(f[1:], prog.leafSelf)...)
			} else {
				full = append(full, f)
			}
		}
		p.chains[name] = full
	}
	// Threads: koids follow the process koid; the main thread may be
	// renamed later (a second ThreadInfo with the same koid).
	tk := koid + 2
	for _, n := range prog.threads {
		p.threads = append(p.threads, &Thread{Name: n, Koid: tk})
		tk += 1 + r.rangeU(0, 40)
	}
	if prog.lang != "rust" {
		p.threads = append(p.threads, &Thread{Name: fmt.Sprintf("pthread_t:0x%x", p.heap.primary+r.rangeU(1, 1<<20)*16), Koid: tk})
	}
	if prog.renamed != "" {
		p.renamed = &Thread{Name: prog.renamed, Koid: p.threads[0].Koid}
	}
	p.makeContexts()
	return p
}

func (r *rng) perm(n int) []int {
	a := make([]int, n)
	for i := range a {
		a[i] = i
	}
	for i := n - 1; i > 0; i-- {
		j := r.intn(i + 1)
		a[i], a[j] = a[j], a[i]
	}
	return a
}

// makeContexts builds the pool of application call paths.
func (p *procGen) makeContexts() {
	r := p.r
	n := p.g.opt.Allocations / 25
	if n < 12 {
		n = 12
	}
	if n > 4000 {
		n = 4000
	}
	pickRole := func(role string) string {
		fs := p.byRole[role]
		if len(fs) == 0 {
			panic("fuchsiagen: program " + p.prog.name + " has no " + role + " function")
		}
		return fs[r.intn(len(fs))]
	}
	for i := 0; i < n; i++ {
		worker := i%2 == 1
		var path []string
		if worker {
			path = append(path, p.byRole["troot"]...)
		} else {
			path = append(path, p.byRole["root"]...)
		}
		path = append(path, pickRole("a0"))
		if r.percent(90) {
			path = append(path, pickRole("a1"))
		}
		for k := 1 + r.intn(2); k > 0 && r.percent(80); k-- {
			path = append(path, pickRole("a2"))
		}
		if r.percent(15) {
			depth := 1 + r.geom(3, 4, 12)
			if r.percent(20) {
				depth = int(r.rangeU(20, 70)) // deep enough to be truncated at 64
			}
			rec := pickRole("rec")
			for ; depth > 0; depth-- {
				path = append(path, rec)
			}
		}
		if r.percent(60) {
			path = append(path, pickRole("a3"))
		}
		k := 0
		if worker {
			k = 1
		}
		p.ctxs[k] = append(p.ctxs[k], pctx{path: path})
	}
	p.ctxZipf[0] = newZipf(len(p.ctxs[0]))
	p.ctxZipf[1] = newZipf(len(p.ctxs[1]))
}

// site returns the site of an allocation made through chain from a
// context picked for the current structure's thread.
func (p *procGen) site(chain string) int32 {
	worker := p.curThr != 0
	k := 0
	if worker {
		k = 1
	}
	ctx := int32(p.ctxZipf[k].draw(p.r))
	key := siteKey{ctx: ctx, worker: worker, chain: chain}
	if s, ok := p.sites[key]; ok {
		return s
	}
	c, ok := p.chains[chain]
	if !ok {
		panic("fuchsiagen: program " + p.prog.name + " has no chain " + chain)
	}
	path := append(append([]string{}, p.ctxs[k][ctx].path...), c...)
	s := int32(len(p.stacks))
	p.stacks = append(p.stacks, p.stackOf(path))
	p.sites[key] = s
	return s
}

// stackOf turns a call path (root first) into program addresses, leaf
// first, truncated to the instrumentation's 64 frames.
func (p *procGen) stackOf(path []string) []uint64 {
	var st []uint64
	for i := len(path) - 1; i >= 0 && len(st) < p.maxDepth; i-- {
		callee := "<backtrace>"
		if i+1 < len(path) {
			callee = path[i+1]
		}
		st = append(st, p.pc(path[i], callee))
	}
	return st
}

func (p *procGen) pc(caller, callee string) uint64 {
	m := p.funcMod[caller]
	if m == nil {
		panic("fuchsiagen: no module for " + caller)
	}
	return m.bias + p.g.retAddr(m.l, caller, callee)
}

// begin starts a structure built by one thread.
func (p *procGen) begin() {
	p.cur = nil
	p.curThr = 0
	if len(p.threads) > 1 && p.r.percent(55) {
		p.curThr = int16(1 + p.r.intn(len(p.threads)-1))
	}
}

func (p *procGen) end() {
	if len(p.cur) > 0 {
		p.structs = append(p.structs, p.cur)
	}
	p.cur = nil
}

// Fill patterns for the bytes no structure field covers.
const (
	fillZero = iota
	fillStruct
	fillText
	fillRandom
	fillFloats
	fillFIDL
	fillFrame
)

// alloc creates a block of size bytes allocated through chain.
func (p *procGen) alloc(size uint64, chain string, fill int) int32 {
	if size > p.g.opt.MaxBlockSize {
		size = p.g.opt.MaxBlockSize
	}
	b := gblock{size: size, site: p.site(chain), thread: p.curThr}
	b.addr = p.heap.alloc(p.r, size)
	switch p.tagMode {
	case 1:
		if p.r.percent(50) {
			b.tag = 0xb4
		}
	case 2:
		b.tag = uint8(1 + p.r.intn(15))
	}
	id := int32(len(p.blocks))
	p.blocks = append(p.blocks, b)
	var c []byte
	if p.g.opt.Contents && !p.cr.permille(p.g.opt.UnreadablePermille) {
		c = make([]byte, size)
		p.fill(c, fill)
	}
	p.contents = append(p.contents, c)
	p.cur = append(p.cur, id)
	return id
}

// ptrVal is the pointer to block to at offset toff, as a program stores
// it (with the block's top-byte tag, if any).
func (p *procGen) ptrVal(to int32, toff uint64) uint64 {
	b := &p.blocks[to]
	return (b.addr + toff) | uint64(b.tag)<<56
}

func (p *procGen) ptr(from int32, off uint64, to int32, toff uint64) {
	p.word(from, off, p.ptrVal(to, toff))
}

func (p *procGen) word(from int32, off uint64, v uint64) {
	c := p.contents[from]
	if c == nil || off+8 > uint64(len(c)) {
		return
	}
	binary.LittleEndian.PutUint64(c[off:], v)
}

func (p *procGen) put32(from int32, off uint64, v uint32) {
	c := p.contents[from]
	if c == nil || off+4 > uint64(len(c)) {
		return
	}
	binary.LittleEndian.PutUint32(c[off:], v)
}

func (p *procGen) putBytes(from int32, off uint64, s []byte) {
	c := p.contents[from]
	if c == nil || off >= uint64(len(c)) {
		return
	}
	copy(c[off:], s)
}

// vtable is the address of a C++ vtable (or a Rust trait vtable) in the
// executable's read-only data after relocation: a pointer that leads to no
// heap block.
func (p *procGen) vtable(k int) uint64 {
	m := p.mods[0]
	return m.bias + m.l.dataVaddr + 0x40 + uint64(k%97)*0x48
}

// rodata is the address of a string literal in the executable.
func (p *procGen) rodata(k int) uint64 {
	m := p.mods[0]
	return m.bias + 0x300 + uint64(k%251)*0x18
}

// fill writes the background bytes of a block.
func (p *procGen) fill(c []byte, kind int) {
	r := p.cr
	switch kind {
	case fillZero:
	case fillStruct:
		for off := 0; off+8 <= len(c); off += 8 {
			var v uint64
			switch x := r.intn(10); {
			case x < 4:
				v = 0
			case x < 7:
				v = r.rangeU(0, 4096)
			case x < 8:
				v = uint64(r.intn(2)) | uint64(r.intn(256))<<32
			case x < 9:
				v = 0x3ff0000000000000 + r.rangeU(0, 1<<52-1)>>(r.intn(8)) // a double in [1, 2)
			default:
				v = r.u64()
			}
			binary.LittleEndian.PutUint64(c[off:], v)
		}
	case fillText:
		s := p.text(len(c))
		copy(c, s)
	case fillRandom:
		for off := 0; off < len(c); off += 8 {
			var b [8]byte
			binary.LittleEndian.PutUint64(b[:], r.u64())
			copy(c[off:], b[:])
		}
	case fillFloats:
		for off := 0; off+4 <= len(c); off += 4 {
			// float32 samples in (-1, 1): exponent 0x70..0x7d, random sign.
			v := uint32(r.intn(2))<<31 | uint32(0x70+r.intn(14))<<23 | uint32(r.u64()&0x7fffff)
			binary.LittleEndian.PutUint32(c[off:], v)
		}
	case fillFIDL:
		if len(c) >= 16 {
			binary.LittleEndian.PutUint32(c[0:], uint32(r.rangeU(1, 1<<30)))
			c[4], c[5], c[6], c[7] = 0x02, 0x00, 0x00, 0x01
			binary.LittleEndian.PutUint64(c[8:], r.u64()&0x7fffffffffffffff)
			n := int(r.rangeU(16, 512))
			for i := 16; i < n && i < len(c); i++ {
				c[i] = byte(r.u64())
			}
		}
	case fillFrame:
		// An Ethernet frame carrying IPv4/UDP.
		for i := range c {
			c[i] = byte(r.u64())
		}
		if len(c) >= 42 {
			copy(c[0:], []byte{0x02, 0x1a, 0x11, 0x00, 0x01, 0x00})
			c[12], c[13] = 0x08, 0x00
			c[14], c[15] = 0x45, 0x00
			binary.BigEndian.PutUint16(c[16:], uint16(len(c)-14))
			c[22], c[23] = 64, 17
			copy(c[26:], []byte{192, 168, 1, byte(2 + r.intn(200)), 192, 168, 1, 1})
		}
	}
}

var words = []string{
	"fuchsia", "media", "audio", "renderer", "capturer", "device", "stream", "usage", "gain",
	"netstack", "socket", "route", "neighbor", "interface", "eth0", "wlan0", "lo", "loopback",
	"component", "manifest", "svc", "fuchsia.logger.LogSink", "fuchsia.media.AudioCore",
	"fuchsia.net.interfaces.State", "fuchsia.io.Directory", "fuchsia-pkg://fuchsia.com",
	"#meta/", ".cm", "/pkg/data/", "/config/data/", "/svc/", "config", "effects", "volume_curve",
	"sample_rate", "48000", "channels", "2", "format", "FLOAT", "SIGNED_16", "true", "false",
	"192.168.1.1", "fe80::1", "255.255.255.0", "dhcp", "lease", "koid", "thread", "timer",
	"heapdump", "snapshot", "leak", "buffer", "packet", "queue", "handle", "channel", "vmo",
}

// text returns n bytes of realistic ASCII: identifiers, paths, URLs, JSON.
func (p *procGen) text(n int) []byte {
	r := p.cr
	b := make([]byte, 0, n+32)
	seps := []string{"/", ".", "_", " ", ":", "-", "\", \"", "=", ","}
	if r.percent(20) {
		b = append(b, "{\""...)
	}
	for len(b) < n {
		b = append(b, words[r.intn(len(words))]...)
		b = append(b, seps[r.intn(len(seps))]...)
	}
	return b[:n]
}

// str returns text of exactly n characters (no NUL).
func (p *procGen) str(n int) string { return string(p.text(n)) }
