package dart

import (
	"errors"
	"io"
	"math"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/heapconv/heapconv/internal/slicesx"
	"github.com/heapconv/heapconv/ir"
	dartir "github.com/heapconv/heapconv/ir/dart"
)

// A split read decodes the objects on two cores. Nothing in the file says
// where an object starts, so the second half is a guess verified
// afterwards:
//
//   - The second goroutine takes an offset about halfway through the
//     objects and moves forward to where two chains of syncRun objects,
//     decoded without error from different offsets, meet (sync). It
//     decodes from there, numbering its objects from 0, and notes the
//     offset of every markEvery'th object.
//   - The first goroutine decodes from the start until it reaches that
//     offset. If it lands on it exactly, the guess was an object boundary
//     and every object the second decoded is an object of the file, the
//     k'th being object base+k. If it steps over it, the guess was wrong:
//     the second half is dropped and the first goes on alone.
//   - The second goroutine cannot know where the objects end until the
//     first gives it base: it stops after n-base objects, or at
//     an error (the objects may have ended, or the file is damaged). The
//     first takes its objects up to the last mark before both, and
//     decodes the rest itself, from that mark's offset: what it reads,
//     and every error it reports, is what a read on one core would.
//
// Both halves write the node and edge columns in place: the first half at
// their start, the second from where its share is expected to begin.
// Their rooms allow for what the guess cannot know (how many bytes of
// identity hash codes follow the objects, from none to 5 an object) and a
// 32nd of the objects more each, for objects' sizes varying through the
// file; joining moves the second half's objects to where the first half's
// end. A half that outgrows its room is copied back into the columns.

// firstShare is the part of the objects' bytes the split's guess gives
// the first half.
const firstShare = 0.52

// splitMin is the fewest objects worth a second goroutine.
var splitMin uint64 = 1 << 15

// splitGuess, when set (by tests), chooses the second half's first guess
// instead of the middle of the objects; splitJoined, when set, is told how
// many objects the first half adopted, and whether in place; splitTail,
// whether it adopted the tail the second half read, and whether the second
// half had gone past the objects' end before it learnt where it is;
// splitInterned, how many of the second half's strings the first interned
// while it waited, of all its strings.
var (
	splitGuess    func(objects, size int64) int64
	splitJoined   func(adopted uint64, inPlace bool)
	splitTail     func(adopted, late bool)
	splitInterned func(ahead, all int)
)

const (
	// markEvery objects the second half notes where it is: the first half
	// decodes at most this many objects again.
	markEvery = 256
	// syncRun objects must decode from an offset for it to start a
	// chain; syncWindow bytes past the guess are tried. A try
	// fails at an object of more than syncMost references or string
	// bytes, and all tries together read at most syncBudget bytes: the
	// search costs little, whatever the bytes.
	syncRun    = 32
	syncWindow = 1 << 16
	syncMost   = 1 << 12
	syncBudget = 1 << 22
)

// errTooBig ends a try at an object boundary that meets a bigger object
// than tries decode.
var errTooBig = errors.New("dart: an object too big for a try at a boundary")

// secondHalf is the second goroutine's part of a split read.
type secondHalf struct {
	q     *parser
	start int64 // the offset of its first object
	// The part of the objects expected before start: shareHi if 5 bytes
	// of identity hash code an object follow them, shareLo if nothing
	// does.
	shareHi, shareLo float64
	count            uint64 // objects decoded, once objectsDone
	failed           bool   // whether they ended at an error
	at               io.ReaderAt
	// objectsDone is closed when the second half has stopped decoding
	// objects, limitSet when the first half has set its limit (to the
	// objects left, or 0 to cancel), done when the second half has also
	// read the tail, if it does.
	objectsDone, limitSet, done chan struct{}
	setOnce                     sync.Once
	// tail, when set, has read the external properties and the identity
	// hash codes from tailStart on, with tailErr: the second half does
	// so when it decoded as many objects as the first half's limit says
	// are left, whose end is then where the objects end.
	tail      *parser
	tailStart int64
	tailErr   error

	// The node and edge columns the halves share: the first half's room
	// is the first nodeAt objects and edgeAt edges, the second half's the
	// rest.
	kind, ekind        []uint8
	name, class, first []uint32
	ename, target      []uint32
	nodeAt, edgeAt     int
}

// findSecondHalf returns where the second half of the objects starts, or
// nil when the input cannot be read at offsets or holds too few objects
// for a second goroutine to pay.
func (p *parser) findSecondHalf() (h *secondHalf) {
	if p.at == nil || p.n < splitMin || p.in.size <= 0 || runtime.GOMAXPROCS(0) < 2 {
		return nil
	}
	if p.in.whole {
		// A fault reading the input's end or the guess's neighbourhood
		// (ReadBytes): no split, so that the read meets the file's
		// problems in their order, as a read on one core does.
		defer onFault(p.in.buf, func(error) { h = nil })
	}
	objects := p.in.offset()
	// The external properties and the identity hash codes (about 3.5
	// bytes each, in the VM's files) follow the objects, then a DevTools
	// export's padding. The second half reads them while the first joins
	// the halves. It aims a little past the middle of the objects'
	// bytes: the second half takes longer over each object (it notes
	// marks and shows its strings at them, and its strings are interned
	// twice), and its halves then end at about the same time on
	// generated heaps.
	content := p.contentEnd()
	end := max(content-int64(p.n)*7/2, objects+1)
	guess := objects + int64(float64(end-objects)*firstShare)
	if splitGuess != nil {
		guess = splitGuess(objects, p.in.size)
	}
	if guess <= objects || guess >= p.in.size {
		return nil
	}
	in := newInputAt(p.at, guess, p.in.size)
	start, ok := p.sync(in, guess)
	if !ok {
		return nil
	}
	h = &secondHalf{start: start, at: p.at,
		shareHi:     shareBefore(start, objects, content-int64(p.n)*maxHashBytes),
		shareLo:     shareBefore(start, objects, content),
		objectsDone: make(chan struct{}), limitSet: make(chan struct{}), done: make(chan struct{})}
	h.q = p.secondParser(in, 0, 0)
	return h
}

// allocate makes the node and edge columns, for p.n objects and edges
// references, and gives each half its room in them.
func (h *secondHalf) allocate(p *parser, edges uint64) {
	n := int(p.n)
	var nn, ne int
	h.nodeAt, nn = rooms(n, h.shareHi, h.shareLo)
	h.edgeAt, ne = rooms(int(edges), h.shareHi, h.shareLo)
	// The columns are left uncleared: every entry is written before it
	// is read, and the halves' rooms are joined without their gaps.
	h.q.expect = uint64(nn - h.nodeAt) // its room: it may decode past its share
	h.target = slicesx.MakeUncleared[uint32](ne, ne)
	h.ekind = slicesx.MakeUncleared[uint8](ne, ne)
	h.kind = slicesx.MakeUncleared[uint8](nn, nn)
	h.class = slicesx.MakeUncleared[uint32](nn, nn)
	h.q.sizes = newBatch(&h.q.s.Nodes.SelfSize, int(h.q.expect))
	h.ename = slicesx.MakeUncleared[uint32](ne, ne)
	h.name = slicesx.MakeUncleared[uint32](nn, nn)
	h.first = slicesx.MakeUncleared[uint32](nn+2, nn+2)
	nd, ed := &p.s.Nodes, &p.s.Edges
	a := h.nodeAt
	nd.Kind, nd.Name, nd.Class, nd.FirstEdge = h.kind[:0:a], h.name[:0:a], h.class[:0:a], h.first[:1:a+1]
	ed.Kind, ed.Name, ed.Target = h.ekind[:0:h.edgeAt], h.ename[:0:h.edgeAt], h.target[:0:h.edgeAt]
	qn, qe := &h.q.s.Nodes, &h.q.s.Edges
	qn.Kind, qn.Name, qn.Class, qn.FirstEdge = h.kind[a:a], h.name[a:a], h.class[a:a], h.first[a+1:a+2]
	nd.FirstEdge[0], qn.FirstEdge[0] = 0, 0
	e := h.edgeAt
	qe.Kind, qe.Name, qe.Target = h.ekind[e:e], h.ename[e:e], h.target[e:e]
}

// maxHashBytes is the longest identity hash code: the VM writes a 32-bit
// value as LEB128.
const maxHashBytes = 5

// shareBefore is the part of the objects' bytes, from objects to end,
// before start (1 when end is not past start).
func shareBefore(start, objects, end int64) float64 {
	if end <= start {
		return 1
	}
	return float64(start-objects) / float64(end-objects)
}

// rooms returns where the second half's room starts in columns of n
// entries in all, and the columns' length: the first half is expected to
// hold shareHi of them at most and shareLo at least, give or take a 32nd.
// The columns hold all n.
func rooms(n int, shareHi, shareLo float64) (at, length int) {
	slack := n / 32
	at = int(shareHi*float64(n)) + slack
	return at, max(at+int((1-shareLo)*float64(n))+slack, n)
}

// run starts the second half.
func (h *secondHalf) run() {
	q := h.q
	q.limit.Store(q.n) // until the first half knows better: the objects' count
	go func() {
		defer close(h.done)
		objectsDone := sync.OnceFunc(func() { close(h.objectsDone) })
		defer objectsDone()
		objectsOver := false
		if q.in.whole {
			// A fault reading the input (ReadBytes): nothing of this
			// half, or not its tail, is adopted, and the first half
			// meets the fault itself, as a read on one core would.
			defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
			defer onFault(q.in.buf, func(fault error) {
				if !objectsOver {
					h.count, h.failed = 0, true
				} else {
					h.tail, h.tailErr = nil, fault // the first half may be reading count
				}
			})
		}
		var err error
		h.count, err = q.objects(0, math.MaxUint64, -1)
		h.failed = err != nil
		q.sizes.flush()
		objectsOver = true
		objectsDone()
		<-h.limitSet
		end, ok := h.objectsEnd()
		if !ok {
			return
		}
		// The tail follows. A parser of its own reads it, as the first
		// half is adopting this one's objects meanwhile.
		q.in.seek(h.at, end)
		t := &parser{in: q.in, strs: ir.NewInterner(nil), s: &ir.Snapshot{}, d: &dartir.Snapshot{}, n: q.n}
		h.tailStart = end
		h.tailErr = t.readExternal(q.n)
		if h.tailErr == nil {
			h.tailErr = t.readTail(int(q.n))
		}
		h.tail = t
	}()
}

// setLimit tells the second half how many objects are left for it (0:
// none, the split is cancelled), once.
func (h *secondHalf) setLimit(left uint64) {
	h.setOnce.Do(func() {
		h.q.limit.Store(left)
		close(h.limitSet)
	})
}

// objectsEnd returns where the objects end, once the limit is set: after
// the second half's limit'th object, when it decoded that many. It may
// have gone on past them before it learnt the limit, decoding the tail as
// objects, or stopped at an error there: the end is then found again from
// the last mark before it.
func (h *secondHalf) objectsEnd() (int64, bool) {
	q := h.q
	limit := q.limit.Load()
	if limit == 0 || h.count < limit {
		return 0, false // cancelled, or an error before the end
	}
	if h.count == limit && !h.failed {
		return q.in.offset(), true // stopped at the limit, or at the count
	}
	mark := limit / markEvery
	in := newInputAt(h.at, q.marks[mark], q.in.size)
	t := q.secondParser(in, markEvery, 4*markEvery)
	t.limit.Store(limit)
	if k, err := t.objects(mark*markEvery, limit, -1); err != nil || k != limit {
		return 0, false
	}
	return in.offset(), true
}

// markedStrings is the second half's string table when it began object
// objects: the strings of its objects before that one, in its table's
// order. Appending to the table later leaves these in place.
type markedStrings struct {
	objects uint64
	strs    []string
}

// markStrings shows the strings of the second half's first i objects to
// the first half, if it has new ones.
func (q *parser) markStrings(i uint64) {
	if m := q.marked.Load(); m == nil || len(m.strs) < len(q.strs.Strings) {
		q.marked.Store(&markedStrings{objects: i, strs: q.strs.Strings})
	}
}

// internAhead is called when the first half has set the second's limit
// and has nothing else to do but wait for it. It interns, in the second
// half's table order, the strings of the second half's objects up to its
// latest mark, and returns index, 1 + p's index of each. The first half
// would intern them in that order anyway, when it adopts those objects:
// a mark at or before the limit is at or before the last object it takes.
func (p *parser) internAhead(h *secondHalf) (index []uint32) {
	limit := h.q.limit.Load()
	for {
		m := h.q.marked.Load()
		if m == nil || m.objects > limit || len(m.strs) == len(index) {
			return index
		}
		for _, s := range m.strs[len(index):] {
			index = append(index, 1+p.strs.Intern(s))
		}
	}
}

// waitSecondHalf waits for the second half, if there is one, to stop
// reading: Read returns only then.
func (p *parser) waitSecondHalf() {
	if p.half != nil {
		<-p.half.done
	}
}

// adoptTail takes the external properties and identity hash codes that h
// read, when it read them all from where the first half's objects end,
// and reports whether it did.
func (p *parser) adoptTail(h *secondHalf) bool {
	<-h.done
	t := h.tail
	ok := t != nil && h.tailErr == nil && h.tailStart == p.in.offset()
	if splitTail != nil {
		limit := h.q.limit.Load() // 0 when the split was cancelled
		splitTail(ok, limit > 0 && h.count >= limit && (h.count > limit || h.failed))
	}
	if !ok {
		return false
	}
	nd, d := &p.s.Nodes, p.d
	nd.ExternalSize, nd.ID = t.s.Nodes.ExternalSize, t.s.Nodes.ID
	d.ExternalNode, d.ExternalSize = t.d.ExternalNode, t.d.ExternalSize
	d.ExternalName = make([]uint32, len(t.d.ExternalName))
	for k, s := range t.d.ExternalName {
		d.ExternalName[k] = p.strs.Intern(t.strs.Strings[s])
	}
	d.IdentityHashes, d.Padding = t.d.IdentityHashes, t.d.Padding
	p.in.moveTo(p.at, p.in.size)
	p.in.atEOF() // reports the progress to the end
	return true
}

// secondParser returns a parser for a second half over in, its columns
// reserved for n objects and edges references.
func (p *parser) secondParser(in *input, n, edges uint64) *parser {
	q := &parser{in: in, strs: ir.NewInterner(nil), classes: p.classes, n: p.n, second: true}
	q.s = &ir.Snapshot{}
	q.d = &dartir.Snapshot{}
	reserveObjects(q.s, n, edges)
	q.sizes = newBatch(&q.s.Nodes.SelfSize, int(n))
	q.limit = new(atomic.Uint64)
	return q
}

// sync returns an offset at or after guess that is most likely an object
// boundary, leaving in there: where two chains of syncRun objects from
// different offsets meet, else the first chain's start.
func (p *parser) sync(in *input, guess int64) (int64, bool) {
	t := p.secondParser(in, syncRun, 4*syncRun)
	t.most = syncMost
	var spent int64
	// A wrong start often decodes too, for a few objects, before it falls
	// in step with the real ones; two chains of objects from different
	// starts meet at a real boundary. The first chain's objects are kept,
	// and the first of them a second chain also reaches is taken.
	var first []int64
	for off := guess; off < min(guess+syncWindow, p.in.size) && spent < syncBudget; off++ {
		if len(first) > 0 && slices.Contains(first, off) {
			continue // on the first chain: not a different start
		}
		in.seek(p.at, off)
		t.clear()
		k, err := t.objects(0, syncRun, -1)
		spent += in.offset() - off
		if err != nil || k != syncRun {
			continue
		}
		if first == nil {
			first = slices.Clone(t.starts)
			continue
		}
		for _, s := range t.starts {
			if _, met := slices.BinarySearch(first, s); met {
				in.seek(p.at, s)
				return s, true
			}
		}
	}
	if first != nil {
		in.seek(p.at, first[0])
		return first[0], true
	}
	return 0, false
}

// clear empties the columns of a parser, for another try.
func (q *parser) clear() {
	nd, ed, v, d := &q.s.Nodes, &q.s.Edges, &q.s.Values, q.d
	nd.Kind, nd.Name, nd.Class, nd.FirstEdge = nd.Kind[:0], nd.Name[:0], nd.Class[:0], nd.FirstEdge[:1]
	ed.Kind, ed.Name, ed.Target = ed.Kind[:0], ed.Name[:0], ed.Target[:0]
	v.Node, v.Kind, v.Bits, v.Aux = v.Node[:0], v.Kind[:0], v.Bits[:0], v.Aux[:0]
	d.ZeroRefNode, d.ZeroRefSlot = d.ZeroRefNode[:0], d.ZeroRefSlot[:0]
	q.sizes.reset()
	q.marks, q.starts = q.marks[:0], q.starts[:0]
	q.limit.Store(q.n)
}

// cancel stops the second half and waits for it. The first half's room
// then extends over the second's.
func (h *secondHalf) cancel(p *parser) {
	h.setLimit(0)
	<-h.done
	if h.inRoom(p) {
		nd, ed := &p.s.Nodes, &p.s.Edges
		k, e := len(nd.Kind), ed.Len()
		nd.Kind, nd.Name, nd.Class, nd.FirstEdge = h.kind[:k], h.name[:k], h.class[:k], h.first[:k+1]
		ed.Kind, ed.Name, ed.Target = h.ekind[:e], h.ename[:e], h.target[:e]
	}
}

// inRoom reports whether the first half's columns are still those it was
// given: appending beyond its room moves them.
func (h *secondHalf) inRoom(p *parser) bool {
	nd, ed := &p.s.Nodes, &p.s.Edges
	a, e := h.nodeAt, h.edgeAt
	return cap(nd.Kind) == a && cap(nd.Name) == a && cap(nd.Class) == a && cap(nd.FirstEdge) == a+1 &&
		cap(ed.Kind) == e && cap(ed.Name) == e && cap(ed.Target) == e
}

// joinSecondHalf is called when the first half has decoded k objects and
// reached the second's first offset or passed it. It adopts what it can of
// the second half's objects, moves the input to the first object not
// adopted, and returns that object's number.
func (p *parser) joinSecondHalf(h *secondHalf, k uint64) uint64 {
	if p.in.offset() != h.start {
		h.cancel(p) // the guess was not an object boundary
		return k
	}
	q := h.q
	h.setLimit(p.n - k)
	interned := p.internAhead(h)
	<-h.objectsDone
	take := min(h.count, p.n-k) / markEvery * markEvery
	// The first half's FirstEdge must hold the edges of both.
	if take == 0 || uint64(p.s.Edges.Len())+uint64(q.s.Nodes.FirstEdge[take]) > math.MaxUint32 {
		h.cancel(p)
		return k
	}
	inPlace := h.place(p, take)
	p.adoptRest(q, take, interned)
	p.in.moveTo(p.at, q.marks[take/markEvery])
	if splitJoined != nil {
		splitJoined(take, inPlace)
	}
	return k + take
}

// place puts the second half's first take objects after the first half's
// in the shared columns and makes those p's, and reports whether both
// halves had kept to their rooms. A half that outgrew its room has its
// columns elsewhere (append moved them); they are copied back, so that
// a guess off by more than the rooms allow costs a copy of that half, not
// the columns made anew. The shared columns hold every object and edge,
// so the halves fit in them, unless the file holds more references than
// its header says: p's columns then grow as appending needs.
func (h *secondHalf) place(p *parser, take uint64) (inPlace bool) {
	nd, ed := &p.s.Nodes, &p.s.Edges
	qn, qe := &h.q.s.Nodes, &h.q.s.Edges
	a, e := h.nodeAt, h.edgeAt
	inPlace = h.inRoom(p) && cap(qn.Kind) == len(h.kind)-a && cap(qn.Name) == len(h.name)-a &&
		cap(qn.Class) == len(h.class)-a && cap(qn.FirstEdge) == len(h.first)-a-1 &&
		cap(qe.Kind) == len(h.ekind)-e && cap(qe.Name) == len(h.ename)-e && cap(qe.Target) == len(h.target)-e
	t := int(take)
	edges := int(qn.FirstEdge[t])
	e0 := uint32(ed.Len())
	nd.Kind = joinColumn(h.kind, nd.Kind, qn.Kind[:t])
	nd.Name = joinColumn(h.name, nd.Name, qn.Name[:t])
	nd.Class = joinColumn(h.class, nd.Class, qn.Class[:t])
	ed.Kind = joinColumn(h.ekind, ed.Kind, qe.Kind[:edges])
	ed.Name = joinColumn(h.ename, ed.Name, qe.Name[:edges])
	ed.Target = joinColumn(h.target, ed.Target, qe.Target[:edges])
	// The second half's edges now follow the first half's e0.
	first := joinColumn(h.first, nd.FirstEdge, qn.FirstEdge[1:t+1])
	for j, f := range first[len(first)-t:] {
		first[len(first)-t+j] = f + e0
	}
	nd.FirstEdge = first
	return inPlace
}

// joinColumn returns first followed by second, in shared when they fit:
// first is at shared's start or elsewhere, second in shared past first's
// room or elsewhere. second moves before first is copied in, as it may lie
// where first goes when first outgrew its room (copy moves overlapping
// bytes as they were).
func joinColumn[T uint8 | uint32](shared, first, second []T) []T {
	k := len(first)
	if k+len(second) > len(shared) {
		return append(first, second...)
	}
	copy(shared[k:], second)
	if k > 0 && &first[0] != &shared[0] {
		copy(shared, first)
	}
	return shared[:k+len(second)]
}

// adoptRest appends the self sizes, values and zero references of a second
// half's first take objects, whose node and edge columns p has adopted;
// interned is 1 + p's index of the first of q's strings.
func (p *parser) adoptRest(q *parser, take uint64, interned []uint32) {
	nd, qn := &p.s.Nodes, &q.s.Nodes
	base := uint32(uint64(len(nd.Kind)) - take)
	p.sizes.flush()
	nd.SelfSize.AppendFirst(&qn.SelfSize, int(take))
	// Values and zero references are in object order: those of the
	// objects taken come first. String values move to p's string table.
	v, qv := &p.s.Values, &q.s.Values
	m := sort.Search(len(qv.Node), func(j int) bool { return uint64(qv.Node[j]) >= take })
	index := make([]uint32, len(q.strs.Strings)) // 1 + p's index of q's string
	copy(index, interned)
	if splitInterned != nil {
		splitInterned(len(interned), len(q.strs.Strings))
	}
	// Room for these and for the values of the objects the first half
	// decodes after them (fewer than markEvery), so that none of the
	// columns is copied again.
	room := m + markEvery
	v.Node, v.Kind = slicesx.Grow(v.Node, room), slicesx.Grow(v.Kind, room)
	v.Bits, v.Aux = slicesx.Grow(v.Bits, room), slicesx.Grow(v.Aux, room)
	v.Kind = append(v.Kind, qv.Kind[:m]...)
	v.Aux = append(v.Aux, qv.Aux[:m]...)
	for j, node := range qv.Node[:m] {
		bits := qv.Bits[j]
		if qv.Kind[j] == ir.ValueString {
			if index[bits] == 0 {
				index[bits] = 1 + p.strs.Intern(q.strs.Strings[bits])
			}
			bits = uint64(index[bits] - 1)
		}
		v.Node = append(v.Node, base+node)
		v.Bits = append(v.Bits, bits)
	}
	d, qd := p.d, q.d
	z := sort.Search(len(qd.ZeroRefNode), func(j int) bool { return uint64(qd.ZeroRefNode[j]) >= take })
	d.ZeroRefNode = slicesx.Grow(d.ZeroRefNode, z+markEvery)
	for _, node := range qd.ZeroRefNode[:z] {
		d.ZeroRefNode = append(d.ZeroRefNode, base+node)
	}
	d.ZeroRefSlot = append(d.ZeroRefSlot, qd.ZeroRefSlot[:z]...)
}

// readerAt returns r as an io.ReaderAt when it is one whose offset 0 is
// r's next byte, else nil.
func readerAt(r io.Reader) io.ReaderAt {
	ra, ok := r.(io.ReaderAt)
	s, seeks := r.(io.Seeker)
	if !ok || !seeks {
		return nil
	}
	if off, err := s.Seek(0, io.SeekCurrent); err != nil || off != 0 {
		return nil
	}
	return ra
}

// contentEnd returns the input's size less the zero bytes that end it (at
// most a DevTools export's padding).
func (p *parser) contentEnd() int64 {
	end := p.in.size
	buf := make([]byte, 64<<10)
	for end > max(p.in.size-dartir.ExportChunk, 0) {
		b := buf[:min(int64(len(buf)), end)]
		if n, _ := p.at.ReadAt(b, end-int64(len(b))); n != len(b) {
			return end
		}
		k := len(b)
		for k > 0 && b[k-1] == 0 {
			k--
		}
		end -= int64(len(b) - k)
		if k > 0 {
			break
		}
	}
	return end
}
