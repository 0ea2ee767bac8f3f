package fuchsiagen

// edgeOverride replaces what snapshot() would write for a block.
type edgeOverride struct {
	stack     []uint64
	thread    *Thread
	timestamp int64
	hasTS     bool
}

// edgeCases adds unusual but legal allocations (Options.EdgeCases).
func (p *procGen) edgeCases() {
	p.begin()
	p.curThr = 0
	if p.edges == nil {
		p.edges = map[int32]edgeOverride{}
	}
	// malloc(0): Scudo hands out a block, the hook reports size 0 and the
	// contents file is empty.
	chain := p.holderChain()
	z := p.alloc(0, chain, fillZero)
	if p.g.opt.Contents {
		p.contents[z] = []byte{}
	}
	// A timestamp before boot, as in the heapdump_snapshot tests.
	n := p.alloc(48, chain, fillStruct)
	p.edges[n] = edgeOverride{timestamp: -777777777, hasTS: true}
	// A thread name with brackets: readers must split at the last '['.
	b := p.alloc(40, chain, fillStruct)
	p.edges[b] = edgeOverride{thread: &Thread{Name: "io[2] worker", Koid: p.threads[len(p.threads)-1].Koid + 7}}
	// A frame-pointer chain ending in a 0 frame, and one through code no
	// module covers (e.g. generated code).
	s := p.alloc(64, chain, fillStruct)
	st := append(append([]uint64{}, p.stacks[p.blocks[s].site]...), 0)
	if len(st) > p.maxDepth {
		st = append(st[:p.maxDepth-1], 0)
	}
	p.edges[s] = edgeOverride{stack: st}
	j := p.alloc(96, chain, fillStruct)
	unknown := p.heap.secondary + 0x10_0000_0000 + 0x1234
	sj := append(append([]uint64{}, p.stacks[p.blocks[j].site][:3]...), unknown)
	sj = append(sj, p.stacks[p.blocks[j].site][3:]...)
	if len(sj) > p.maxDepth {
		sj = sj[:p.maxDepth]
	}
	p.edges[j] = edgeOverride{stack: sj}
	p.end()
}

// snapshot emits the process: regions in module order, then the blocks,
// the structures interleaved in time, with increasing timestamps.
func (p *procGen) snapshot() *Snapshot {
	r := p.r
	s := &Snapshot{ProcessName: p.prog.name, ProcessKoid: p.koid}
	for _, m := range p.mods {
		l := m.l
		s.Regions = append(s.Regions, Region{
			Address:    m.bias + l.textVaddr,
			Size:       l.textSize,
			FileOffset: l.textOff,
			Vaddr:      l.textVaddr,
			BuildID:    l.buildID,
			Name:       l.def.name,
		})
	}
	// Interleave: the next block comes from one of the first few
	// unfinished structures.
	const window = 4
	type cursor struct{ st, pos int }
	var win []cursor
	next := 0
	refill := func() {
		for len(win) < window && next < len(p.structs) {
			win = append(win, cursor{st: next})
			next++
		}
	}
	refill()
	order := make([]int32, 0, len(p.blocks))
	for len(win) > 0 {
		k := r.intn(len(win))
		c := &win[k]
		order = append(order, p.structs[c.st][c.pos])
		c.pos++
		if c.pos == len(p.structs[c.st]) {
			win = append(win[:k], win[k+1:]...)
			refill()
		}
	}
	t := int64(r.rangeU(2_000_000_000, 40_000_000_000))
	renameAt := len(order) / 5
	s.Allocations = make([]Allocation, len(order))
	for i, id := range order {
		t += int64(r.rangeU(300, 150_000))
		if r.permille(2) {
			t += int64(r.rangeU(100_000_000, 3_000_000_000))
		}
		b := &p.blocks[id]
		th := p.threads[b.thread]
		if b.thread == 0 && p.renamed != nil && i >= renameAt {
			th = p.renamed
		}
		a := Allocation{
			Address:      b.addr,
			HasAddress:   true,
			Size:         b.size,
			Stack:        p.stacks[b.site],
			Thread:       th,
			Timestamp:    t,
			HasTimestamp: true,
			Contents:     p.contents[id],
		}
		if e, ok := p.edges[id]; ok {
			if e.stack != nil {
				a.Stack = e.stack
			}
			if e.thread != nil {
				a.Thread = e.thread
			}
			if e.hasTS {
				a.Timestamp = e.timestamp
			}
		}
		s.Allocations[i] = a
	}
	return s
}
