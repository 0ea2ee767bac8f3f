package v8

import (
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/heapconv/heapconv/internal/slicesx"
	"github.com/heapconv/heapconv/ir"
	v8ir "github.com/heapconv/heapconv/ir/v8"
)

// Options tune Read.
type Options struct {
	// Size is the input's size in bytes when known (0 = unknown). Declared
	// counts are believed only as far as the remaining bytes can hold them.
	Size int64
	// Progress, if set, is called now and then with the bytes read so far.
	Progress func(read int64)
	// Collect, if set, receives every violation of what Chrome DevTools
	// requires that the reader can step over, and reading goes on; only
	// errors that make the rest unreadable stop it. Collect also receives
	// what DevTools would silently misread (numbers of 2^32 and more).
	Collect func(error)
}

// maxViolations bounds what Collect receives.
const maxViolations = 1000

// Read parses a V8 .heapsnapshot stream into an IR file holding one snapshot.
// It streams: memory use is the columnar graph, not the text.
func Read(r io.Reader, opts Options) (*ir.File, error) {
	if opts.Size == 0 {
		opts.Size = ir.InputSize(r)
	}
	p := &parser{s: newScanner(r, opts.Size), opts: opts}
	f, err := p.file()
	if err != nil {
		return nil, err
	}
	if err := f.Validate(); err != nil {
		return nil, ir.Errorf(v8ir.Format, -1, "%v", err)
	}
	return f, nil
}

type parser struct {
	s    *scanner
	opts Options
	es   escapeStats

	f    *ir.File
	snap *ir.Snapshot
	v8   *v8ir.Snapshot

	// meta, resolved from the header
	nodeFields, edgeFields, locationFields []string
	nodeCount, edgeCount                   uint64
	traceNodeFields                        int
	rootIndex                              int64 // -1 when absent

	seen   map[string]bool
	arrays map[string]arrayState // white space per array, for the layout check
	strWS  int64                 // newlines between strings
	strWSo int64                 // other white space between strings

	// the largest string index used, and where, checked once the strings
	// have been read
	maxString    uint32
	maxStringK   int
	maxStringOff int64
	region       *region    // the region being consumed, in parallel mode
	maxRegion    *region    // the region holding maxString, kept for its offset
	prevRegion   *region    // the region before p.region: rows can straddle the two
	regions      regionPool // regions for reuse, in parallel mode
	vals         []uint64

	headerCompact bool  // the header object has no white space
	traceCountAt  int64 // offset of the header's trace_function_count value, or of the header
	afterStrings  int64 // offset of the first key after "strings", or -1
	violations    int
}

// violation reports a problem at off. Without Options.Collect it returns the
// error, which stops reading; with it, the error is collected and reading
// goes on (nil), until there are too many.
func (p *parser) violation(off int64, format string, args ...any) error {
	err := ir.Errorf(v8ir.Format, off, format, args...)
	if p.opts.Collect == nil {
		return err
	}
	p.violations++
	if p.violations > maxViolations {
		return ir.Errorf(v8ir.Format, off, "more than %d violations; stopping", maxViolations)
	}
	p.opts.Collect(err)
	return nil
}

// at returns the offset of value k of the current batch (approximate for a
// negative k, a value of the batch before).
func (p *parser) at(k int) int64 {
	if p.region != nil {
		if k < 0 && p.prevRegion != nil {
			return p.prevRegion.valueOffset(int(p.prevRegion.st.values) + k)
		}
		return p.region.valueOffset(k)
	}
	return p.s.valueOffset(k)
}

func (p *parser) file() (*ir.File, error) {
	s := p.s
	p.f = &ir.File{Format: v8ir.Format}
	p.snap = &ir.Snapshot{Root: ir.NoNode}
	p.v8 = &v8ir.Snapshot{}
	p.snap.SetSection(p.v8)
	p.f.Snapshots = []*ir.Snapshot{p.snap}
	p.seen = map[string]bool{}
	p.arrays = map[string]arrayState{}
	p.rootIndex = -1
	p.afterStrings = -1
	p.maxStringOff = -1
	// 65520 values: a multiple of every usual row width (3 to 7), so that
	// batches hold whole rows.
	if p.opts.Size > 0 && p.opts.Size < 1<<20 {
		p.vals = make([]uint64, 4200) // also a multiple of 3 to 7
	} else {
		p.vals = make([]uint64, 65520)
	}

	// A UTF-8 byte order mark is tolerated (DevTools accepts it).
	bom := s.ensure(3) && string(s.buf[s.pos:s.pos+3]) == "\xef\xbb\xbf"
	if bom {
		s.pos += 3
	}
	s.skipWS()
	c, ok := s.peek()
	if !ok {
		return nil, s.errorf("empty file")
	}
	if c != '{' {
		return nil, s.errorf("not a V8 heap snapshot: expected '{', found %q", c)
	}
	s.pos++
	leadWS := s.wsNewline + s.wsOther
	sepExact := !bom && leadWS == 0
	for i := 0; ; i++ {
		s.skipWS()
		if i > 0 {
			c, ok := s.peek()
			if !ok {
				return nil, s.eofErrorf("unexpected end of file, expected ',' or '}'")
			}
			if c == '}' {
				s.pos++
				break
			}
			if c != ',' {
				return nil, s.errorf("expected ',' or '}' after a top-level value, found %q", c)
			}
			s.pos++
			// V8 writes exactly ",\n" between sections.
			nl, ot := s.wsNewline, s.wsOther
			s.skipWS()
			if s.wsNewline-nl != 1 || s.wsOther != ot {
				sepExact = false
			}
		} else {
			s.skipWS()
		}
		keyOff := s.offset()
		key, err := s.str(&p.es)
		if err != nil {
			return nil, err
		}
		if p.seen[key] {
			return nil, s.errorAtOffset(keyOff, "duplicate top-level key %q", key)
		}
		p.seen[key] = true
		if p.seen[v8ir.KeyStrings] && key != v8ir.KeyStrings && p.afterStrings < 0 {
			p.afterStrings = keyOff
		}
		if c, _ := s.peek(); c != ':' && key == v8ir.KeySnapshot {
			if err := p.violation(s.offset(), "white space between \"snapshot\" and ':'; DevTools skips exactly one character after the key"); err != nil {
				return nil, err
			}
		}
		ws0 := s.wsNewline + s.wsOther
		if err := s.expect(':'); err != nil {
			return nil, err
		}
		s.skipWS()
		if s.wsNewline+s.wsOther != ws0 {
			sepExact = false
		}
		if i == 0 && key != v8ir.KeySnapshot {
			return nil, s.errorAtOffset(keyOff, "the first key is %q; V8 files (and DevTools) need \"snapshot\" first", key)
		}
		if err := p.section(key, keyOff); err != nil {
			return nil, err
		}
		if p.opts.Progress != nil {
			p.opts.Progress(s.offset())
		}
	}
	trailing := s.wsNewline + s.wsOther
	s.skipWS()
	if s.wsNewline+s.wsOther != trailing {
		sepExact = false
	}
	if _, ok := s.peek(); ok {
		return nil, s.errorf("data after the end of the top-level object")
	}
	if s.err != nil {
		return nil, s.errorf("read error")
	}
	return p.finish(sepExact)
}

func (p *parser) section(key string, keyOff int64) error {
	s := p.s
	if key != v8ir.KeySnapshot && !p.seen[v8ir.KeySnapshot] {
		return s.errorAtOffset(keyOff, "key %q before \"snapshot\"", key)
	}
	known := true
	var err error
	switch key {
	case v8ir.KeySnapshot:
		err = p.header()
	case v8ir.KeyNodes:
		err = p.nodes()
	case v8ir.KeyEdges:
		if !p.seen[v8ir.KeyNodes] {
			return s.errorAtOffset(keyOff, "\"edges\" before \"nodes\"")
		}
		err = p.edges()
	case v8ir.KeyTraceFunctionInfos:
		err = p.flat(key, &p.v8.TraceFunctionInfos, 0)
	case v8ir.KeySamples:
		err = p.flat(key, &p.v8.Samples, 0)
	case v8ir.KeyLocations:
		if !p.seen[v8ir.KeyNodes] {
			return s.errorAtOffset(keyOff, "\"locations\" before \"nodes\"")
		}
		// V8 gives an object at most one location, so the nodes read
		// bound the rows; the bytes left bound them too.
		err = p.flat(key, &p.v8.Locations, p.snap.Nodes.Len()*max(len(p.locationFields), 1))
	case v8ir.KeyTraceTree:
		err = p.traceTree()
	case v8ir.KeyStrings:
		err = p.strings()
	default:
		known = false
		var v ir.JSON
		v, err = s.value(0, &p.es)
		p.v8.Keys = append(p.v8.Keys, v8ir.Key{Name: key, Value: &v})
	}
	if known {
		p.v8.Keys = append(p.v8.Keys, v8ir.Key{Name: key})
	}
	return err
}

// header reads the "snapshot" object and resolves the meta it declares.
func (p *parser) header() error {
	s := p.s
	start := s.offset()
	ws := s.wsNewline + s.wsOther
	p.traceCountAt = start
	h, err := s.valueAt(1, &p.es, func(key string, off int64) {
		if key == v8ir.HeaderTraceFunctionCount {
			p.traceCountAt = off
		}
	})
	if err != nil {
		return err
	}
	if h.Kind != ir.JSONObject {
		return s.errorAtOffset(start, "\"snapshot\" is not an object")
	}
	p.headerCompact = s.wsNewline+s.wsOther == ws
	p.v8.Header = h
	meta := h.Get(v8ir.HeaderMeta)
	if meta == nil || meta.Kind != ir.JSONObject {
		return s.errorAtOffset(start, "header has no \"meta\" object")
	}
	list := func(key string, required bool) ([]string, error) {
		l := meta.Get(key).Strings()
		if l == nil && (meta.Get(key) != nil || required) {
			return nil, s.errorAtOffset(start, "meta.%s is missing or not a list of strings", key)
		}
		return l, nil
	}
	if p.nodeFields, err = list(v8ir.MetaNodeFields, true); err != nil {
		return err
	}
	if p.edgeFields, err = list(v8ir.MetaEdgeFields, true); err != nil {
		return err
	}
	if p.locationFields, err = list(v8ir.MetaLocationFields, false); err != nil {
		return err
	}
	for _, f := range v8ir.NodeFields {
		if !slices.Contains(p.nodeFields, f) {
			return s.errorAtOffset(start, "meta.node_fields lacks %q (DevTools needs it)", f)
		}
	}
	for _, f := range v8ir.EdgeFields {
		if !slices.Contains(p.edgeFields, f) {
			return s.errorAtOffset(start, "meta.edge_fields lacks %q (DevTools needs it)", f)
		}
	}
	if dup, ok := firstDuplicate(p.nodeFields); ok {
		return s.errorAtOffset(start, "meta.node_fields lists %q twice", dup)
	}
	if dup, ok := firstDuplicate(p.edgeFields); ok {
		return s.errorAtOffset(start, "meta.edge_fields lists %q twice", dup)
	}
	// The type names are the entry of node_types / edge_types at the
	// position of "type" in the field list, as DevTools looks them up (V8
	// puts type first). V8 13.6 writes more entries than there are fields,
	// so the lengths are not checked (see docs/formats/v8.md, Versions).
	typeNames := func(key string, fields []string, typeField string) ([]string, error) {
		list := meta.Get(key)
		i := slices.Index(fields, typeField)
		if list == nil || list.Kind != ir.JSONArray || i >= len(list.Elems) || list.Elems[i].Strings() == nil {
			return nil, s.errorAtOffset(start, "meta.%s[%d] (the entry for \"type\") is not a list of type names", key, i)
		}
		names := list.Elems[i].Strings()
		if len(names) > 256 {
			return nil, s.errorAtOffset(start, "meta.%s lists more than 256 types", key)
		}
		return names, nil
	}
	if p.snap.NodeKinds, err = typeNames(v8ir.MetaNodeTypes, p.nodeFields, v8ir.NodeType); err != nil {
		return err
	}
	edgeTypes, err := typeNames(v8ir.MetaEdgeTypes, p.edgeFields, v8ir.EdgeType)
	if err != nil {
		return err
	}
	for _, name := range edgeTypes {
		p.snap.EdgeKinds = append(p.snap.EdgeKinds, ir.EdgeKind{Name: name, Indexed: ir.EdgeKindIndexed(name)})
	}
	if tf := meta.Get(v8ir.MetaTraceNodeFields).Strings(); len(tf) > 0 {
		p.traceNodeFields = len(tf)
	}
	var ok bool
	if p.nodeCount, ok = h.Get(v8ir.HeaderNodeCount).Uint(); !ok {
		return s.errorAtOffset(start, "header node_count is missing or not a non-negative integer")
	}
	if p.edgeCount, ok = h.Get(v8ir.HeaderEdgeCount).Uint(); !ok {
		return s.errorAtOffset(start, "header edge_count is missing or not a non-negative integer")
	}
	if p.nodeCount >= math.MaxUint32 || p.edgeCount > math.MaxUint32 {
		return s.errorAtOffset(start, "node_count %d / edge_count %d beyond 2^32", p.nodeCount, p.edgeCount)
	}
	if tfc, ok := h.Get(v8ir.HeaderTraceFunctionCount).Uint(); ok {
		// DevTools sizes a Uint32Array from it: count × fields must fit.
		fields := uint64(max(len(meta.Get(v8ir.MetaTraceFunctionInfoFields).Strings()), 1))
		if tfc > math.MaxUint32 || tfc*fields > math.MaxUint32 {
			return s.errorAtOffset(start, "trace_function_count %d beyond what DevTools can size (%d fields each, 2^32 values)", tfc, fields)
		}
	}
	if ri := h.Get(v8ir.HeaderRootIndex); ri != nil {
		v, ok := ri.Uint()
		if !ok {
			return s.errorAtOffset(start, "header root_index is not a non-negative integer")
		}
		p.rootIndex = int64(v)
	}
	if v, ok := h.Get(v8ir.HeaderExtraNativeBytes).Uint(); ok {
		p.snap.Totals = append(p.snap.Totals, ir.Total{Name: v8ir.HeaderExtraNativeBytes, Value: v})
	}
	return nil
}

// firstDuplicate returns the first name listed twice (which may be "").
func firstDuplicate(l []string) (string, bool) {
	for i, a := range l {
		if slices.Contains(l[i+1:], a) {
			return a, true
		}
	}
	return "", false
}

// capacity returns how many rows of width fields to reserve for a declared
// count: no more than the bytes left in the input could hold (each value
// needs at least a digit and a separator).
func (p *parser) capacity(declared uint64, fields int) int {
	c := declared
	if p.opts.Size > 0 {
		left := p.opts.Size - p.s.offset()
		c = min(c, uint64(max(left, 0))/uint64(2*fields)+1)
	} else {
		c = min(c, 1<<20)
	}
	return int(c)
}

// parallelMin is the input size from which number arrays are parsed by
// worker goroutines.
const parallelMin = 8 << 20

// numbers reads the number array that comes next and passes its values to
// fn in whole rows of width values, in order. k0 is the index, within the
// current batch, of rows[0] (negative when the row began in the batch
// before); p.at turns such indices into file offsets for messages.
func (p *parser) numbers(key string, width int, fn func(rows []uint64, k0 int) error) error {
	s := p.s
	if err := s.expect('['); err != nil {
		return err
	}
	carry := make([]uint64, 0, width)
	// emit passes on vals, which begin with value base of the batch.
	emit := func(vals []uint64, base int) error {
		i := 0
		if len(carry) > 0 {
			need := width - len(carry)
			if need > len(vals) {
				carry = append(carry, vals...)
				return nil
			}
			carry = append(carry, vals[:need]...)
			if err := fn(carry, base+need-width); err != nil {
				return err
			}
			carry, i = carry[:0], need
		}
		whole := (len(vals) - i) / width * width
		if whole > 0 {
			if err := fn(vals[i:i+whole], base+i); err != nil {
				return err
			}
		}
		carry = append(carry, vals[i+whole:]...)
		return nil
	}
	st := arrayState{}
	if p.opts.Size >= parallelMin {
		if err := p.parallel(&st, emit); err != nil {
			return err
		}
	}
	p.region = nil
	for !st.done {
		n, err := s.uints(p.vals, &st)
		if err != nil {
			return err
		}
		if err := emit(p.vals[:n], 0); err != nil {
			return err
		}
	}
	if len(carry) != 0 {
		return s.errorf("the %s array ends in the middle of a row (%d values is not a multiple of %d)", key, st.values, width)
	}
	s.batch = -1 // let fill discard the array's bytes
	p.arrays[key] = st
	return nil
}

// parallel reads as much of a number array as it can in regions parsed by
// worker goroutines. It returns with st.done set, or leaves the rest (a
// truncated or odd tail) to the sequential scanner.
func (p *parser) parallel(st *arrayState, emit func(vals []uint64, base int) error) error {
	pn := newParallelNumbers(p.s, &p.regions)
	defer func() {
		p.region, p.prevRegion = nil, nil
		pn.close()
	}()
	expect := uint8(expectFirst)
	stuck := false
	for {
		for !pn.done && !stuck && len(pn.pending) < cap(pn.work) {
			r, ok := pn.cut(expect)
			if !ok {
				stuck = true
				break
			}
			expect = expectValue
			pn.pending = append(pn.pending, r)
			pn.work <- r
		}
		if len(pn.pending) == 0 {
			st.expect = expect
			return nil
		}
		r := pn.pending[0]
		pn.pending = pn.pending[1:]
		<-r.finished
		if prev := pn.prev; prev != nil && !prev.pinned {
			p.regions.put(prev)
		}
		pn.prev, pn.cur = pn.cur, r
		p.prevRegion, p.region = pn.prev, r
		st.values += r.st.values
		st.newlines += r.st.newlines
		st.other += r.st.other
		if r.errPos >= 0 {
			return ir.Errorf(v8ir.Format, r.off+int64(r.errPos), "%s", r.errMsg)
		}
		if err := emit(r.vals, 0); err != nil {
			return err
		}
		if err := emit(r.second, len(r.vals)); err != nil {
			return err
		}
		if r.st.done {
			st.done = true
			return nil
		}
	}
}

// nodes reads the nodes array into the node columns.
func (p *parser) nodes() error {
	nf := len(p.nodeFields)
	nd := &p.snap.Nodes
	capN := p.capacity(p.nodeCount, nf)
	// Uncleared: each entry is appended before it is read.
	nd.Kind = slicesx.MakeUncleared[uint8](0, capN)
	nd.Name = slicesx.MakeUncleared[uint32](0, capN)
	nd.FirstEdge = slicesx.MakeUncleared[uint32](1, capN+1)
	nd.FirstEdge[0] = 0
	nd.ID.Reserve(capN)
	nd.SelfSize.Reserve(capN)
	iType, iName, iID, iSize, iEdges := -1, -1, -1, -1, -1
	var extras []int // field positions of the extra columns
	for i, f := range p.nodeFields {
		switch f {
		case v8ir.NodeType:
			iType = i
		case v8ir.NodeName:
			iName = i
		case v8ir.NodeID:
			iID = i
		case v8ir.NodeSelfSize:
			iSize = i
		case v8ir.NodeEdgeCount:
			iEdges = i
		default:
			extras = append(extras, i)
			p.v8.NodeExtra = append(p.v8.NodeExtra, v8ir.Field{Name: f})
			p.v8.NodeExtra[len(p.v8.NodeExtra)-1].Values.Reserve(capN)
		}
	}
	nk := uint64(len(p.snap.NodeKinds))
	collect := p.opts.Collect != nil
	var edgeSum uint64
	var ids, sizes []uint64
	extraVals := make([][]uint64, len(extras))
	err := p.numbers(v8ir.KeyNodes, nf, func(rows []uint64, k0 int) error {
		n := len(rows) / nf
		if collect {
			if err := p.wide(rows, k0, nd.Len(), p.nodeFields, "node"); err != nil {
				return err
			}
		}
		if uint64(nd.Len()+n) > p.nodeCount {
			return ir.Errorf(v8ir.Format, p.at(k0+(int(p.nodeCount)-nd.Len())*nf), "the nodes array holds more than node_count (%d) nodes", p.nodeCount)
		}
		ids, sizes = ids[:0], sizes[:0]
		for i := range extraVals {
			extraVals[i] = extraVals[i][:0]
		}
		for r := 0; r < n; r++ {
			row := rows[r*nf : r*nf+nf]
			t := row[iType]
			if t >= nk {
				if err := p.violation(p.at(k0+r*nf+iType), "node %d: type %d is not in meta.node_types[0] (%d types)", nd.Len(), t, nk); err != nil {
					return err
				}
				t = 0
			}
			name := row[iName]
			if name >= uint64(p.maxString) {
				if name > math.MaxUint32 {
					return ir.Errorf(v8ir.Format, p.at(k0+r*nf+iName), "node name index %d beyond 2^32", name)
				}
				p.noteString(uint32(name), k0+r*nf+iName)
			}
			edgeSum += row[iEdges]
			if edgeSum > p.edgeCount {
				return ir.Errorf(v8ir.Format, p.at(k0+r*nf+iEdges), "node %d: edge_counts add up to more than edge_count (%d)", nd.Len(), p.edgeCount)
			}
			nd.Kind = append(nd.Kind, uint8(t))
			nd.Name = append(nd.Name, uint32(name))
			nd.FirstEdge = append(nd.FirstEdge, uint32(edgeSum))
			ids = append(ids, row[iID])
			sizes = append(sizes, row[iSize])
			for i, f := range extras {
				extraVals[i] = append(extraVals[i], row[f])
			}
		}
		nd.ID.AppendAll(ids)
		nd.SelfSize.AppendAll(sizes)
		for i := range extraVals {
			p.v8.NodeExtra[i].Values.AppendAll(extraVals[i])
		}
		return nil
	})
	if err != nil {
		return err
	}
	if uint64(nd.Len()) != p.nodeCount {
		return p.s.errorf("the nodes array holds %d nodes, but node_count is %d", nd.Len(), p.nodeCount)
	}
	if edgeSum != p.edgeCount {
		return p.s.errorf("node edge_counts add up to %d, but edge_count is %d", edgeSum, p.edgeCount)
	}
	return nil
}

// wide reports values DevTools would wrap (validate only).
func (p *parser) wide(rows []uint64, k0, first int, fields []string, what string) error {
	for k, v := range rows {
		if v > math.MaxUint32 {
			if err := p.violation(p.at(k0+k), "%s %d: %s %d does not fit in 32 bits (DevTools wraps it)", what, first+k/len(fields), fields[k%len(fields)], v); err != nil {
				return err
			}
		}
	}
	return nil
}

// noteString records the largest string index seen so far and where; it is
// checked against the string table, which comes last.
func (p *parser) noteString(v uint32, k int) {
	if v == 0 || v < p.maxString {
		return
	}
	p.maxString = v
	p.maxStringK = k
	switch {
	case p.region != nil:
		// Keep the region; the offset is worked out only if needed. A
		// row that began in the region before has its first values there.
		r := p.region
		if k < 0 && p.prevRegion != nil {
			r, p.maxStringK = p.prevRegion, int(p.prevRegion.st.values)+k
		}
		if p.maxRegion != r {
			if old := p.maxRegion; old != nil {
				old.pinned = false
				// The current and previous regions go back to the pool
				// when the reader moves past them; older ones go now.
				if old != p.region && old != p.prevRegion {
					p.regions.put(old)
				}
			}
			r.pinned = true
			p.maxRegion = r
		}
	default:
		// The scanner's cursor makes these lookups one pass per batch.
		p.maxRegion = nil
		p.maxStringOff = p.at(k)
	}
}

// divider divides by a constant with a multiplication (Lemire's method),
// exact for dividends below 2^32: edges hold one to_node division each.
type divider struct{ d, m uint64 }

func newDivider(d uint64) divider { return divider{d, ^uint64(0)/d + 1} }

// divExact returns x/d and whether d divides x.
func (v divider) divExact(x uint64) (uint64, bool) {
	var q uint64
	if x < 1<<32 {
		q, _ = bits.Mul64(x, v.m)
	} else {
		q = x / v.d
	}
	return q, q*v.d == x
}

// edges reads the edges array into the edge columns.
func (p *parser) edges() error {
	ef := len(p.edgeFields)
	n := uint64(p.snap.Nodes.Len())
	div := newDivider(uint64(len(p.nodeFields)))
	ed := &p.snap.Edges
	capE := p.capacity(p.edgeCount, ef)
	ed.Kind = slicesx.MakeUncleared[uint8](0, capE)
	ed.Name = slicesx.MakeUncleared[uint32](0, capE)
	ed.Target = slicesx.MakeUncleared[uint32](0, capE)
	iType, iName, iTo := -1, -1, -1
	var extras []int
	for i, f := range p.edgeFields {
		switch f {
		case v8ir.EdgeType:
			iType = i
		case v8ir.EdgeNameOrIndex:
			iName = i
		case v8ir.EdgeToNode:
			iTo = i
		default:
			extras = append(extras, i)
			p.v8.EdgeExtra = append(p.v8.EdgeExtra, v8ir.Field{Name: f})
			p.v8.EdgeExtra[len(p.v8.EdgeExtra)-1].Values.Reserve(capE)
		}
	}
	ek := uint64(len(p.snap.EdgeKinds))
	indexed := make([]bool, len(p.snap.EdgeKinds))
	for i, k := range p.snap.EdgeKinds {
		indexed[i] = k.Indexed
	}
	stringKind := uint64(max(slices.Index(indexed, false), 0))
	collect := p.opts.Collect != nil
	extraVals := make([][]uint64, len(extras))
	err := p.numbers(v8ir.KeyEdges, ef, func(rows []uint64, k0 int) error {
		m := len(rows) / ef
		if collect {
			if err := p.wide(rows, k0, ed.Len(), p.edgeFields, "edge"); err != nil {
				return err
			}
		}
		if uint64(ed.Len()+m) > p.edgeCount {
			return ir.Errorf(v8ir.Format, p.at(k0+(int(p.edgeCount)-ed.Len())*ef), "the edges array holds more than edge_count (%d) edges", p.edgeCount)
		}
		for i := range extraVals {
			extraVals[i] = extraVals[i][:0]
		}
		for r := 0; r < m; r++ {
			row := rows[r*ef : r*ef+ef]
			t := row[iType]
			if t >= ek {
				if err := p.violation(p.at(k0+r*ef+iType), "edge %d: type %d is not in meta.edge_types[0] (%d types)", ed.Len(), t, ek); err != nil {
					return err
				}
				t = stringKind
			}
			to, ok := div.divExact(row[iTo])
			if !ok || to >= n {
				if err := p.violation(p.at(k0+r*ef+iTo), "edge %d: to_node %d is not a node (a multiple of %d below %d)", ed.Len(), row[iTo], div.d, n*div.d); err != nil {
					return err
				}
				to = 0
			}
			name := row[iName]
			if name >= uint64(p.maxString) && !indexed[t] {
				if name > math.MaxUint32 {
					return ir.Errorf(v8ir.Format, p.at(k0+r*ef+iName), "edge name %d beyond 2^32", name)
				}
				p.noteString(uint32(name), k0+r*ef+iName)
			} else if name > math.MaxUint32 {
				return ir.Errorf(v8ir.Format, p.at(k0+r*ef+iName), "edge index %d beyond 2^32", name)
			}
			ed.Kind = append(ed.Kind, uint8(t))
			ed.Name = append(ed.Name, uint32(name))
			ed.Target = append(ed.Target, uint32(to))
			for i, f := range extras {
				extraVals[i] = append(extraVals[i], row[f])
			}
		}
		for i := range extraVals {
			p.v8.EdgeExtra[i].Values.AppendAll(extraVals[i])
		}
		return nil
	})
	if err != nil {
		return err
	}
	if uint64(ed.Len()) != p.edgeCount {
		return p.s.errorf("the edges array holds %d edges, but edge_count is %d", ed.Len(), p.edgeCount)
	}
	return nil
}

// flat reads an array of unsigned integers into a column. Its length is
// not declared, so the column grows by doubling, unless expect bounds it:
// the most values the data already read allows. Then the column is
// reserved for that many (or fewer, if the rest of the input could not
// hold them) and trimmed after. The locations of a 10 GB file grown by
// doubling would leave gigabytes of copies behind, and the pages of a
// reservation that no value reaches cost no memory.
func (p *parser) flat(key string, dst *ir.Uints, expect int) error {
	if expect > 0 {
		dst.Reserve(min(expect, p.capacity(math.MaxUint64, 1)))
	}
	err := p.numbers(key, 1, func(rows []uint64, _ int) error {
		dst.AppendAll(rows)
		return nil
	})
	dst.Trim()
	return err
}

// traceTree reads the nested trace_tree array, flattening it in pre-order
// (see v8ir.Snapshot.TraceTree).
func (p *parser) traceTree() error {
	s := p.s
	if err := s.expect('['); err != nil {
		return err
	}
	tt := &p.v8.TraceTree
	nf := p.traceNodeFields
	// Each open list has a slot holding its child count.
	type open struct{ slot, count int }
	stack := []open{{slot: tt.Len()}}
	tt.Append(0)
	field := 0
	nl, ot := s.wsNewline, s.wsOther
	defer func() {
		st := p.arrays[v8ir.KeyTraceTree]
		st.newlines, st.other = s.wsNewline-nl, s.wsOther-ot
		p.arrays[v8ir.KeyTraceTree] = st
	}()
	for {
		s.skipWS()
		c, ok := s.peek()
		if !ok {
			return s.eofErrorf("unexpected end of file inside trace_tree")
		}
		switch {
		case c == ']':
			s.pos++
			if field != 0 {
				return s.errorf("trace_tree node with %d of its %d fields", field, nf)
			}
			top := stack[len(stack)-1]
			tt.Set(top.slot, uint64(top.count))
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return nil
			}
			field = 0 // the children list was the parent's last field
		case c == '[':
			if nf < 2 {
				// A node needs a field before its children, which count it.
				return s.errorf("trace_tree has data but meta.trace_node_fields has no field before children")
			}
			if field != nf-1 {
				return s.errorf("trace_tree: a list where field %d of a node is expected", field)
			}
			if len(stack) > 10000 {
				return s.errorf("trace_tree nested deeper than 10000 levels")
			}
			s.pos++
			stack = append(stack, open{slot: tt.Len()})
			tt.Append(0)
			field = 0
			continue
		case c >= '0' && c <= '9':
			if nf < 2 {
				return s.errorf("trace_tree has data but meta.trace_node_fields is missing")
			}
			if field == 0 {
				stack[len(stack)-1].count++
			}
			if field == nf-1 {
				return s.errorf("trace_tree: a number where a node's children list is expected")
			}
			var one [1]uint64
			st := arrayState{expect: expectValue}
			if _, err := s.uintsSlow(one[:], 0, &st); err != nil {
				return err
			}
			tt.Append(one[0])
			field++
		default:
			return s.errorf("unexpected %q in trace_tree", c)
		}
		// After a closing bracket: ',' or the next ']'.
		s.skipWS()
		if c, ok := s.peek(); ok && c == ',' {
			s.pos++
		}
	}
}

// strings reads the string table.
func (p *parser) strings() error {
	s := p.s
	if err := s.expect('['); err != nil {
		return err
	}
	nl, ot := s.wsNewline, s.wsOther
	s.skipWS()
	if c, ok := s.peek(); ok && c == ']' {
		s.pos++
		return nil
	}
	// The count is not declared. The table usually ends with the largest
	// index nodes and edges use, so room for that many is made at once (no
	// more than the bytes left can hold: a string takes at least 3); any
	// further strings are collected in chunks and the table is made once,
	// so that its growth does not allocate several times its size.
	want := uint64(p.maxString) + 1
	if p.opts.Size > 0 {
		want = min(want, uint64(max(p.opts.Size-s.offset(), 0))/3+1)
	} else {
		want = min(want, 1<<16)
	}
	chunk := make([]string, 0, max(want, 1024))
	var chunks [][]string
	defer func() {
		if len(chunks) == 0 {
			p.f.Strings = chunk
			return
		}
		n := len(chunk)
		for _, c := range chunks {
			n += len(c)
		}
		p.f.Strings = make([]string, 0, n)
		for _, c := range chunks {
			p.f.Strings = append(p.f.Strings, c...)
		}
		p.f.Strings = append(p.f.Strings, chunk...)
	}()
	quoted := false // the next string's opening quote is taken
	for {
		var str string
		var err error
		if quoted {
			str, err = s.strBody(&p.es)
		} else {
			str, err = s.str(&p.es)
		}
		if err != nil {
			return err
		}
		if len(chunk) == cap(chunk) {
			chunks = append(chunks, chunk)
			chunk = make([]string, 0, min(2*cap(chunk), 1<<16))
		}
		chunk = append(chunk, str)
		// V8 puts a comma and a newline between strings: taken in one
		// step with the next opening quote.
		if quoted = s.end-s.pos >= 3 && string(s.buf[s.pos:s.pos+3]) == ",\n\""; quoted {
			s.pos += 3
			s.wsNewline++
			continue
		}
		s.skipWS()
		c, ok := s.peek()
		if !ok {
			return s.eofErrorf("unexpected end of file in strings")
		}
		s.pos++
		if c == ']' {
			break
		}
		if c != ',' {
			return s.errorAtPos(s.pos-1, "expected ',' or ']' in strings, found %q", c)
		}
		s.skipWS()
	}
	p.strWS, p.strWSo = s.wsNewline-nl, s.wsOther-ot
	return nil
}

// finish checks what needs the whole file and settles the style.
func (p *parser) finish(sepExact bool) (*ir.File, error) {
	for _, k := range []string{v8ir.KeyNodes, v8ir.KeyEdges, v8ir.KeyStrings} {
		if !p.seen[k] {
			return nil, ir.Errorf(v8ir.Format, p.s.offset(), "no %q section", k)
		}
	}
	meta := p.v8.Meta()
	if meta.Get(v8ir.MetaSampleFields) != nil && !p.seen[v8ir.KeySamples] {
		if err := p.violation(-1, "meta declares sample_fields but there is no \"samples\" array (DevTools would hang)"); err != nil {
			return nil, err
		}
	}
	if meta.Get(v8ir.MetaLocationFields) != nil && !p.seen[v8ir.KeyLocations] {
		if err := p.violation(-1, "meta declares location_fields but there is no \"locations\" array (DevTools would hang)"); err != nil {
			return nil, err
		}
	}
	if last := p.v8.Keys[len(p.v8.Keys)-1].Name; last != v8ir.KeyStrings {
		if err := p.violation(p.afterStrings, "\"strings\" must be the last key (it is followed by %q); DevTools cannot load the file", last); err != nil {
			return nil, err
		}
	}
	ns := uint32(len(p.f.Strings))
	if ns == 0 || p.maxString >= ns {
		if p.maxRegion != nil {
			p.maxStringOff = p.maxRegion.valueOffset(p.maxStringK)
		}
		// With no index above 0 noted, the fault is the empty table itself:
		// maxStringOff is still -1, the whole file.
		if err := p.violation(p.maxStringOff, "string index %d out of range (%d strings)", p.maxString, ns); err != nil {
			return nil, err
		}
	}
	n := p.snap.Nodes.Len()
	switch {
	case n == 0:
		return nil, ir.Errorf(v8ir.Format, -1, "snapshot has no nodes (DevTools needs a root node)")
	case p.rootIndex >= 0:
		// root_index is an offset into the nodes array, like to_node.
		nf := int64(len(p.nodeFields))
		root := p.rootIndex / nf
		if p.rootIndex%nf != 0 || (root != 0 && root != int64(n-1)) {
			if err := p.violation(-1, "root_index %d: the root must be the first or the last node (offset 0 or %d)", p.rootIndex, int64(n-1)*nf); err != nil {
				return nil, err
			}
			root = 0
		}
		p.snap.Root = uint32(root)
	default:
		p.snap.Root = 0
	}
	if err := p.locations(); err != nil {
		return nil, err
	}
	if declared, wrong := p.v8.TraceFunctionCountWrong(); wrong && p.opts.Collect != nil {
		// Read all the same: Node 20 writes such files (the writer
		// corrects the count, see v8ir.Snapshot.HeaderLoss).
		n, functions := p.v8.TraceFunctions(), "functions"
		if n == 1 {
			functions = "function"
		}
		if err := p.violation(p.traceCountAt, "trace_function_count is %s, but trace_function_infos holds %d %s: DevTools reads only as many as the header counts, and its loader fails on a trace node of a function beyond them", declared, n, functions); err != nil {
			return nil, err
		}
	}
	if p.es.rawNonASCII {
		p.v8.Escape = v8ir.EscapeRaw
	}
	p.v8.Layout = p.layout(sepExact)
	p.f.FormatVersion = p.describe()
	return p.f, nil
}

// locations converts node-index location fields to node ordinals.
func (p *parser) locations() error {
	lf := p.locationFields
	loc := &p.v8.Locations
	if loc.Len() == 0 {
		return nil
	}
	if len(lf) == 0 || loc.Len()%len(lf) != 0 {
		return ir.Errorf(v8ir.Format, -1, "locations: %d values do not make rows of %d location_fields", loc.Len(), len(lf))
	}
	nf := uint64(len(p.nodeFields))
	n := uint64(p.snap.Nodes.Len())
	for fi, name := range lf {
		if !slices.Contains(v8ir.LocationNodeFields, name) {
			continue
		}
		for i := fi; i < loc.Len(); i += len(lf) {
			v := loc.At(i)
			if v%nf != 0 || v/nf >= n {
				if err := p.violation(-1, "location %d: %s %d is not a node index", i/len(lf), name, v); err != nil {
					return err
				}
				v = 0
			}
			loc.Set(i, v/nf)
		}
	}
	return nil
}

// layout decides which V8 white-space style the file is in. It is "rows"
// when every number array has one newline per row and the strings one per
// string after the first, "compact" when arrays and strings have none, and
// "other" otherwise (and whenever the header or the separators differ from
// what V8 writes).
func (p *parser) layout(sepExact bool) v8ir.Layout {
	if !sepExact || !p.headerCompact || p.es.nonV8 || p.strWSo != 0 {
		return v8ir.LayoutOther
	}
	compact, rowStyle := p.strWS == 0, len(p.f.Strings) > 0 && p.strWS == int64(len(p.f.Strings)-1)
	for key, st := range p.arrays {
		if st.other != 0 {
			return v8ir.LayoutOther
		}
		if st.newlines != 0 {
			compact = false
		}
		if key == v8ir.KeyTraceTree {
			if st.newlines != 0 {
				rowStyle = false
			}
			continue
		}
		w := v8ir.RowWidth(p.v8, key)
		if w == 0 || st.values%int64(w) != 0 || st.newlines != st.values/int64(w) {
			rowStyle = false
		}
	}
	switch {
	case compact:
		return v8ir.LayoutCompact
	case rowStyle:
		return v8ir.LayoutRows
	}
	return v8ir.LayoutOther
}

// describe names the variant for `info`: the V8 generation it looks like
// and the facts that tell it.
func (p *parser) describe() string {
	h := &p.v8.Header
	nt := len(p.snap.NodeKinds)
	gen := "other producer"
	if p.v8.Layout != v8ir.LayoutOther && p.v8.Escape == v8ir.EscapeV8 {
		switch {
		case p.v8.Layout == v8ir.LayoutRows && nt == 16:
			gen = "V8 11 (Node 20)"
		case p.v8.Layout == v8ir.LayoutRows:
			gen = "V8 12 (Node 22)"
		case len(p.locationFields) == 5:
			gen = "V8 15"
		case len(p.v8.Meta().Get(v8ir.MetaNodeTypes).Elems) != len(p.nodeFields):
			gen = "V8 13 (Node 24)"
		default:
			gen = "V8 14 (Node 26)"
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s; node_fields=%d node_types=%d location_fields=%d layout=%s escape=%s",
		gen, len(p.nodeFields), nt, len(p.locationFields), p.v8.Layout, p.v8.Escape)
	if h.Get(v8ir.HeaderExtraNativeBytes) != nil {
		b.WriteString(" extra_native_bytes")
	}
	if p.v8.TraceFunctionInfos.Len() > 0 {
		b.WriteString(" allocation-tracking")
	}
	return b.String()
}
