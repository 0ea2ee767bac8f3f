package v8gen

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"
)

// Options say what to generate. Set Items or TargetBytes.
type Options struct {
	// Items is the number of Item objects in the heap. When it is 0, the
	// number is derived from TargetBytes.
	Items int
	// TargetBytes is the size of file to make when Items is 0: the number
	// of Items is chosen so that the file comes within a fraction of a
	// percent of it (about 500 bytes per Item). A target below the size of
	// the fixed part (about 5 kB) gives a heap without Items; one above
	// 10.1 GB is refused, as DevTools could not load the file (its strings
	// section would exceed Chrome's longest string).
	TargetBytes int64
	// Seed picks the Items' tag strings: 0 gives 't' + (i % 7) and
	// 'u' + (i % 11) as the program in the package comment does; any other
	// value draws them from a hash of the seed and the index i.
	Seed int64
}

// Stats describe a generated file.
type Stats struct {
	// Items is the number of Item objects in the heap.
	Items int
	// Nodes and Edges are the header's node_count and edge_count.
	Nodes, Edges int64
	// Strings is the number of entries of the strings table, "<dummy>"
	// included.
	Strings int64
	// Locations is the number of rows of the locations section.
	Locations int64
	// Bytes is the size of the file: the bytes written, or for Plan an
	// estimate (within 0.1 %).
	Bytes int64
}

// Limits of what DevTools can load. It keeps node and edge fields in
// Uint32Arrays, so to_node (node ordinal × 7) must stay below 2^32, and it
// parses the strings section as one JavaScript string, which Chrome limits
// to 536,870,888 UTF-16 units (V8's String::kMaxLength; ir/v8's
// MaxStringsUnits).
const (
	maxNodes        = math.MaxUint32 / nodeFields
	maxStringsUnits = 536_870_888
)

// nodeFields is the number of node fields of a Node 20 file.
const nodeFields = 7

// Write writes a generated V8 heap snapshot to w and returns what it wrote.
// Memory use does not depend on the size: the rows are formatted in chunks
// into one buffer and w receives them through a bufio.Writer of 1 MiB. The
// same Options always give the same bytes.
func Write(w io.Writer, opts Options) (Stats, error) {
	l, err := plan(opts)
	if err != nil {
		return Stats{}, err
	}
	cw := &countingWriter{w: w}
	bw := bufio.NewWriterSize(cw, 1<<20)
	e := &emitter{w: bw}
	for _, p := range l.parts() {
		if err := e.emit(p); err != nil {
			return Stats{}, err
		}
	}
	if err := bw.Flush(); err != nil {
		return Stats{}, err
	}
	st := l.stats()
	st.Bytes = cw.n
	return st, nil
}

// Plan returns the Stats Write would return for opts without writing
// anything; Bytes is an estimate from a sample of the rows.
func Plan(opts Options) (Stats, error) {
	l, err := plan(opts)
	if err != nil {
		return Stats{}, err
	}
	st := l.stats()
	st.Bytes = l.estimate()
	return st, nil
}

// plan checks opts and lays the heap out.
func plan(opts Options) (*layout, error) {
	switch {
	case opts.Items < 0:
		return nil, fmt.Errorf("v8gen: negative number of items %d", opts.Items)
	case opts.TargetBytes < 0:
		return nil, fmt.Errorf("v8gen: negative target size %d", opts.TargetBytes)
	case opts.Items > 0 && opts.TargetBytes > 0:
		return nil, errors.New("v8gen: set either Items or TargetBytes, not both")
	case opts.Items == 0 && opts.TargetBytes == 0:
		return nil, errors.New("v8gen: set Items or TargetBytes")
	}
	n := opts.Items
	if n == 0 {
		var err error
		if n, err = itemsFor(opts.TargetBytes, opts.Seed); err != nil {
			return nil, err
		}
	}
	return newLayout(n, opts.Seed)
}

// maxItems is the largest number of Items whose file DevTools can load:
// 19,279,031, a file of 10.1 GB, whose strings section reaches Chrome's
// limit (a real Node heap of as many Items would exceed it too).
func maxItems() int {
	maxItemsOnce.Do(func() {
		f := theFixed()
		lo, hi := 0, (maxNodes-len(f.nodes)-4)/children // lo fits; find the last that does
		for lo < hi {
			mid := lo + (hi-lo+1)/2
			if newLayoutUnchecked(mid, 0).stringsUnits() <= maxStringsUnits {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		maxItemsValue = lo
	})
	return maxItemsValue
}

var (
	maxItemsOnce  sync.Once
	maxItemsValue int
)

// itemsFor returns the number of Items that makes a file of about target
// bytes.
func itemsFor(target int64, seed int64) (int, error) {
	base, err := newLayout(0, seed)
	if err != nil {
		return 0, err
	}
	fixedSize := base.estimate()
	if target <= fixedSize {
		return 0, nil
	}
	top := maxItems()
	n := int(min(int64(top), (target-fixedSize)/500+1))
	for range 8 {
		l, err := newLayout(n, seed)
		if err != nil {
			return 0, err
		}
		perItem := float64(l.estimate()-fixedSize) / float64(n)
		next := int(math.Round(float64(target-fixedSize) / perItem))
		if next > top {
			if n == top {
				return 0, fmt.Errorf("v8gen: a file of %d bytes would hold more than %d items, more than DevTools can load", target, top)
			}
			next = top
		}
		if next < 1 {
			next = 1
		}
		if next == n {
			break
		}
		n = next
	}
	return n, nil
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	k, err := c.w.Write(p)
	c.n += int64(k)
	return k, err
}

// layout is where everything of a heap of n Items is: node ordinals,
// string indexes, counts. Every row of the file is a function of it and
// the row's index.
type layout struct {
	f    *fixed
	n    int // Items
	seed uint64

	// The Map holds every 4th Item: m entries in an OrderedHashMap of
	// capacity entries and capacity/2 buckets, whose slots are 3 header
	// words, the buckets, and 3 words (key, value, chain) per entry.
	m, capacity, buckets int

	// Node ordinals.
	items   int // the array of Items
	item0   int // Item i is item0+i
	elems   int // the array's backing store
	mapObj  int // the Map
	table   int // its hash table
	group0  int // Item i's children are group0+6i .. group0+6i+5
	nodes   int
	edges   int64
	strName int // "item-i" is string strName+i
	strNum  int // the decimal string of j is string strNum+j
	nums    int // decimal strings: 0 .. nums-1
	strings int
}

// Offsets of an Item's children from group0+6i.
const (
	childName = iota
	childPoint
	childTags
	childTagsElems
	childTag
	childTag2
	children
)

// Allocation locations of Items and Points (script, line, column: the
// constructors' positions in scripts/gen-big.sh's program, as Node 20
// reports them for a script read from standard input).
const (
	scriptID            = 107
	itemLine, itemCol   = 8, 13
	pointLine, pointCol = 5, 13
)

// newLayout lays out a heap of n Items, at most maxItems.
func newLayout(n int, seed int64) (*layout, error) {
	if n > maxItems() {
		return nil, fmt.Errorf("v8gen: %d items are more than DevTools can load (at most %d)", n, maxItems())
	}
	return newLayoutUnchecked(n, seed), nil
}

func newLayoutUnchecked(n int, seed int64) *layout {
	f := theFixed()
	l := &layout{f: f, n: n, seed: uint64(seed)}
	l.m = (n + 3) / 4
	l.capacity = 4
	for l.capacity < l.m {
		l.capacity *= 2
	}
	l.buckets = l.capacity / 2
	l.items = len(f.nodes)
	l.item0 = l.items + 1
	l.elems = l.item0 + n
	l.mapObj = l.elems + 1
	l.table = l.elems + 2
	l.group0 = l.elems + 3
	l.nodes = l.group0 + children*n
	// The array: n elements, __proto__, elements, map; an Item: 5; the
	// backing store: n; the Map: 3; its table: 2 per entry and map; an
	// Item's children: 1 + 2 + 5 + 2 + 1 + 1.
	l.edges = int64(f.edges) + int64(n+3) + 5*int64(n) + int64(n) + 3 + 2*int64(l.m) + 1 + 12*int64(n)
	l.strName = len(f.strings)
	l.strNum = l.strName + n
	l.nums = max(n, f.numerals, 2)
	if l.m > 0 {
		l.nums = max(l.nums, l.tableSlot(l.m-1)+2)
	}
	l.strings = l.strNum + l.nums
	return l
}

// stringsUnits is the length of the strings section, from its [ to its ],
// which DevTools parses as one string.
func (l *layout) stringsUnits() int64 {
	units := int64(len(`["<dummy>"]`))
	for _, s := range l.f.strings[1:] {
		units += int64(len(",\n\"\"") + len(s))
	}
	units += int64(len(",\n\"item-\""))*int64(l.n) + sumDigits(l.n)
	return units + int64(len(",\n\"\""))*int64(l.nums) + sumDigits(l.nums)
}

// sumDigits returns the number of decimal digits of 0, 1, ..., n-1.
func sumDigits(n int) int64 {
	var sum int64
	for d, lo := 1, 0; lo < n; d++ {
		hi := min(int(pow10[d]), n)
		sum += int64(d) * int64(hi-lo)
		lo = hi
	}
	return sum
}

func (l *layout) stats() Stats {
	return Stats{Items: l.n, Nodes: int64(l.nodes), Edges: l.edges, Strings: int64(l.strings), Locations: 2 * int64(l.n)}
}

// tableSlot is the slot of the hash table holding entry e's key (its value
// is the next slot).
func (l *layout) tableSlot(e int) int { return 3 + l.buckets + 3*e }

// tags returns the indexes (0..6, 0..10) of Item i's tag strings.
func (l *layout) tags(i int) (int, int) {
	if l.seed == 0 {
		return i % 7, i % 11
	}
	h := mix(l.seed*0x9e3779b97f4a7c15 ^ uint64(i))
	return int(h % 7), int((h >> 32) % 11)
}

// mix is splitmix64's finalizer.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// stringSize is V8's size of a sequential one-byte string of n characters
// on x64 without pointer compression.
func stringSize(n int) uint64 { return uint64(16+n+7) &^ 7 }

// A part is a piece of the file: n units, formatted by appendRange for any
// subrange. A part of one unit is a piece of fixed text.
type part struct {
	n           int
	appendRange func(b []byte, lo, hi int) []byte
}

func fixedPart(f func(b []byte) []byte) part {
	return part{n: 1, appendRange: func(b []byte, _, _ int) []byte { return f(b) }}
}

// The file's fixed text.
const (
	meta = `{"node_fields":["type","name","id","self_size","edge_count","trace_node_id","detachedness"],` +
		`"node_types":[["hidden","array","string","object","code","closure","regexp","number","native",` +
		`"synthetic","concatenated string","sliced string","symbol","bigint","object shape","wasm object"],` +
		`"string","number","number","number","number","number"],` +
		`"edge_fields":["type","name_or_index","to_node"],` +
		`"edge_types":[["context","element","property","internal","hidden","shortcut","weak"],"string_or_number","node"],` +
		`"trace_function_info_fields":["function_id","name","script_name","script_id","line","column"],` +
		`"trace_node_fields":["id","function_info_index","count","size","children"],` +
		`"sample_fields":["timestamp_us","last_assigned_id"],` +
		`"location_fields":["object_index","script_id","line","column"]}`
	traceSections = "],\n\"trace_function_infos\":[],\n\"trace_tree\":[],\n\"samples\":[],\n\"locations\":["
)

// parts lists the file's pieces in order.
func (l *layout) parts() []part {
	f := l.f
	return []part{
		fixedPart(l.appendHead),
		{l.n, l.appendItemNodes},
		fixedPart(l.appendMidNodes),
		{l.n, l.appendChildNodes},
		fixedPart(l.appendFixedEdges),
		{l.n, l.appendArrayEdges},
		fixedPart(func(b []byte) []byte {
			b = appendEdge(b, edgeProperty, uint64(f.sProto), f.arrayProto)
			b = appendEdge(b, edgeInternal, uint64(f.sElements), l.elems)
			return appendEdge(b, edgeInternal, uint64(f.sMapEdge), f.holeyArrayShape)
		}),
		{l.n, l.appendItemEdges},
		{l.n, l.appendElemsEdges},
		fixedPart(func(b []byte) []byte {
			b = appendEdge(b, edgeInternal, uint64(f.sTable), l.table)
			b = appendEdge(b, edgeProperty, uint64(f.sProto), f.mapProto)
			return appendEdge(b, edgeInternal, uint64(f.sMapEdge), f.mapShape)
		}),
		{l.m, l.appendTableEdges},
		fixedPart(func(b []byte) []byte {
			return appendEdge(b, edgeInternal, uint64(f.sMapEdge), f.tableMap)
		}),
		{l.n, l.appendChildEdges},
		fixedPart(func(b []byte) []byte { return append(b, traceSections...) }),
		{l.n, l.appendLocations},
		fixedPart(l.appendFixedStrings),
		{l.n, decimalStrings("item-")},
		{l.nums, decimalStrings("")},
		fixedPart(func(b []byte) []byte { return append(b, "]}"...) }),
	}
}

// appendHead appends the header line, the start of nodes and the fixed
// nodes and the array's.
func (l *layout) appendHead(b []byte) []byte {
	b = append(b, `{"snapshot":{"meta":`...)
	b = append(b, meta...)
	b = append(b, `,"node_count":`...)
	b = appendUint(b, uint64(l.nodes))
	b = append(b, `,"edge_count":`...)
	b = appendUint(b, uint64(l.edges))
	b = append(b, `,"trace_function_count":0},`+"\n"+`"nodes":[`...)
	for i, nd := range l.f.nodes {
		k := len(b)
		b = appendNode(b, nd.typ, uint64(nd.name), i, uint64(nd.self), len(nd.edges))
		if i == 0 {
			b = dropComma(b, k) // the first row has none
		}
	}
	return appendNode(b, nodeObject, uint64(l.f.sArray), l.items, 32, l.n+3)
}

func (l *layout) appendItemNodes(b []byte, lo, hi int) []byte {
	for i := lo; i < hi; i++ {
		b = appendNode(b, nodeObject, uint64(l.f.sItem), l.item0+i, 56, 5)
	}
	return b
}

// appendMidNodes appends the array's backing store, the Map and its table.
func (l *layout) appendMidNodes(b []byte) []byte {
	b = appendNode(b, nodeArray, uint64(l.f.sElems), l.elems, 16+8*uint64(l.n), l.n)
	b = appendNode(b, nodeObject, uint64(l.f.sMap), l.mapObj, 32, 3)
	return appendNode(b, nodeArray, 1, l.table, 16+8*uint64(3+l.buckets+3*l.capacity), 2*l.m+1)
}

func (l *layout) appendChildNodes(b []byte, lo, hi int) []byte {
	f := l.f
	for i := lo; i < hi; i++ {
		g := l.group0 + children*i
		t, u := l.tags(i)
		b = appendNode(b, nodeString, uint64(l.strName+i), g+childName, stringSize(5+digits(uint64(i))), 1)
		b = appendNode(b, nodeObject, uint64(f.sPoint), g+childPoint, 40, 2)
		b = appendNode(b, nodeObject, uint64(f.sArray), g+childTags, 32, 5)
		b = appendNode(b, nodeArray, uint64(f.sElems), g+childTagsElems, 32, 2)
		b = appendNode(b, nodeString, uint64(f.sTag[t]), g+childTag, 24, 1)
		b = appendNode(b, nodeString, uint64(f.sTag2[u]), g+childTag2, 24, 1)
	}
	return b
}

// appendFixedEdges ends nodes and appends the start of edges and the fixed
// nodes' edges.
func (l *layout) appendFixedEdges(b []byte) []byte {
	b = append(b, "],\n"+`"edges":[`...)
	first := true
	for _, nd := range l.f.nodes {
		for _, e := range nd.edges {
			name, to := uint64(e.name), e.to
			if e.name < 0 {
				name = uint64(l.strNum - e.name - 1)
			}
			switch to {
			case toItemsArray:
				to = l.items
			case toMapObject:
				to = l.mapObj
			}
			k := len(b)
			b = appendEdge(b, e.typ, name, to)
			if first {
				b = dropComma(b, k)
				first = false
			}
		}
	}
	return b
}

func (l *layout) appendArrayEdges(b []byte, lo, hi int) []byte {
	for i := lo; i < hi; i++ {
		b = appendEdge(b, edgeElement, uint64(i), l.item0+i)
	}
	return b
}

func (l *layout) appendItemEdges(b []byte, lo, hi int) []byte {
	f := l.f
	for i := lo; i < hi; i++ {
		g := l.group0 + children*i
		b = appendEdge(b, edgeProperty, uint64(f.sName), g+childName)
		b = appendEdge(b, edgeProperty, uint64(f.sPt), g+childPoint)
		b = appendEdge(b, edgeProperty, uint64(f.sTags), g+childTags)
		b = appendEdge(b, edgeProperty, uint64(f.sProto), f.itemProto)
		b = appendEdge(b, edgeInternal, uint64(f.sMapEdge), f.itemShape)
	}
	return b
}

func (l *layout) appendElemsEdges(b []byte, lo, hi int) []byte {
	for i := lo; i < hi; i++ {
		b = appendEdge(b, edgeInternal, uint64(l.strNum+i), l.item0+i)
	}
	return b
}

func (l *layout) appendTableEdges(b []byte, lo, hi int) []byte {
	for e := lo; e < hi; e++ {
		s := l.tableSlot(e)
		b = appendEdge(b, edgeInternal, uint64(l.strNum+s), l.group0+children*4*e+childName)
		b = appendEdge(b, edgeInternal, uint64(l.strNum+s+1), l.item0+4*e)
	}
	return b
}

func (l *layout) appendChildEdges(b []byte, lo, hi int) []byte {
	f := l.f
	for i := lo; i < hi; i++ {
		g := l.group0 + children*i
		b = appendEdge(b, edgeInternal, uint64(f.sMapEdge), f.stringMap)
		b = appendEdge(b, edgeProperty, uint64(f.sProto), f.pointProto)
		b = appendEdge(b, edgeInternal, uint64(f.sMapEdge), f.pointShape)
		b = appendEdge(b, edgeElement, 0, g+childTag)
		b = appendEdge(b, edgeElement, 1, g+childTag2)
		b = appendEdge(b, edgeProperty, uint64(f.sProto), f.arrayProto)
		b = appendEdge(b, edgeInternal, uint64(f.sElements), g+childTagsElems)
		b = appendEdge(b, edgeInternal, uint64(f.sMapEdge), f.packedArrayShape)
		b = appendEdge(b, edgeInternal, uint64(l.strNum), g+childTag)
		b = appendEdge(b, edgeInternal, uint64(l.strNum+1), g+childTag2)
		b = appendEdge(b, edgeInternal, uint64(f.sMapEdge), f.stringMap)
		b = appendEdge(b, edgeInternal, uint64(f.sMapEdge), f.stringMap)
	}
	return b
}

// appendLocations appends the rows of Item i and its Point; the first row
// of the section has no comma.
func (l *layout) appendLocations(b []byte, lo, hi int) []byte {
	for i := lo; i < hi; i++ {
		k := len(b)
		b = appendLocation(b, l.item0+i, itemLine, itemCol)
		if i == 0 {
			b = dropComma(b, k)
		}
		b = appendLocation(b, l.group0+children*i+childPoint, pointLine, pointCol)
	}
	return b
}

// appendFixedStrings ends locations and appends the start of strings and
// the fixed strings.
func (l *layout) appendFixedStrings(b []byte) []byte {
	b = append(b, "],\n"+`"strings":["<dummy>"`...)
	for _, s := range l.f.strings[1:] {
		b = append(b, ",\n\""...)
		b = append(b, s...)
		b = append(b, '"')
	}
	return b
}

// decimalStrings returns a part writer of the strings prefix + "lo" to
// prefix + "hi-1", each on its own line: the Items' names ("item-<i>") and
// the decimal indexes that name element edges.
func decimalStrings(prefix string) func(b []byte, lo, hi int) []byte {
	lead := ",\n\"" + prefix
	return func(b []byte, lo, hi int) []byte {
		for i := lo; i < hi; i++ {
			b = append(b, lead...)
			b = appendUint(b, uint64(i))
			b = append(b, '"')
		}
		return b
	}
}

// appendNode appends a node row (with its leading comma): the node with
// ordinal i has id 2i+1.
func appendNode(b []byte, typ int, name uint64, i int, self uint64, edges int) []byte {
	b = append(b, ',')
	b = appendUint(b, uint64(typ))
	b = append(b, ',')
	b = appendUint(b, name)
	b = append(b, ',')
	b = appendUint(b, 2*uint64(i)+1)
	b = append(b, ',')
	b = appendUint(b, self)
	b = append(b, ',')
	b = appendUint(b, uint64(edges))
	return append(b, ",0,0\n"...)
}

// dropComma removes the comma at b[k], which starts the first row of a
// section.
func dropComma(b []byte, k int) []byte { return append(b[:k], b[k+1:]...) }

// appendEdge appends an edge row (with its leading comma) to the node with
// ordinal to.
func appendEdge(b []byte, typ int, name uint64, to int) []byte {
	b = append(b, ',')
	b = appendUint(b, uint64(typ))
	b = append(b, ',')
	b = appendUint(b, name)
	b = append(b, ',')
	b = appendUint(b, nodeFields*uint64(to))
	return append(b, '\n')
}

func appendLocation(b []byte, node int, line, col uint64) []byte {
	b = append(b, ',')
	b = appendUint(b, nodeFields*uint64(node))
	b = append(b, ","...)
	b = appendUint(b, scriptID)
	b = append(b, ',')
	b = appendUint(b, line)
	b = append(b, ',')
	b = appendUint(b, col)
	return append(b, '\n')
}

// estimate returns the size of the file: the fixed parts and small ranges
// exactly, large ranges from samples spread over them.
func (l *layout) estimate() int64 {
	const segments, sample = 64, 64
	var size int64
	var b []byte
	for _, p := range l.parts() {
		if p.n <= segments*sample {
			b = p.appendRange(b[:0], 0, p.n)
			size += int64(len(b))
			continue
		}
		for s := range segments {
			lo, hi := p.n*s/segments, p.n*(s+1)/segments
			b = p.appendRange(b[:0], lo, lo+sample)
			size += int64(len(b)) * int64(hi-lo) / sample
		}
	}
	return size
}
