package v8

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
	"runtime"
	"sync"

	"github.com/heapconv/heapconv/internal/slicesx"
)

// A region is a self-contained run of a number array, cut by the reader at
// a separator: "12,3,\n45," or "6,7]". Workers parse regions into values in
// parallel; the reader consumes the results in order. This is what makes
// reading scale with cores: digit scanning is most of the work.
type region struct {
	data   []byte // the region's bytes plus padPar zero bytes (a sentinel for the digit loops)
	off    int64  // file offset of data[0]
	expect uint8  // the array state at the start of the region
	// results: the values, in two parts when parse scanned the region in
	// two (second follows vals), both in store
	vals, second []uint64
	store        []uint64
	st           arrayState
	errPos       int // index into data, or -1
	errMsg       string
	finished     chan struct{}
	pinned       bool // kept by the parser for an error offset; not to be reused
}

const (
	regionSize = 1 << 20
	// padPar zero bytes follow a region's data, so that 8-byte loads at any
	// position of the data stay inside the slice.
	padPar = 8
)

// regionPool keeps the regions of one read for reuse. It is not a
// sync.Pool: that is emptied by every garbage collection, and a big read
// collects often, so its regions would be allocated again and again.
type regionPool struct {
	mu   sync.Mutex
	free []*region
}

func (rp *regionPool) get() *region {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	if n := len(rp.free); n > 0 {
		r := rp.free[n-1]
		rp.free = rp.free[:n-1]
		return r
	}
	// store grows as needed: a region of one-digit values needs
	// regionSize/2 of them, typical ones a fifth of that.
	return &region{data: make([]byte, 0, regionSize+padPar), store: make([]uint64, 0, regionSize/8)}
}

func (rp *regionPool) put(r *region) {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	rp.free = append(rp.free, r)
}

// digits8 returns how many of the 8 bytes of x (little-endian: x's low
// byte first) are leading ASCII digits, and their value. It converts all
// digits at once (SWAR), which is what makes number parsing cheap.
func digits8(x uint64) (n int, v uint64) {
	const ones = 0x0101010101010101
	// Digits become 0-9. A byte below '0' borrows from the bytes after
	// it, which are past the first non-digit and do not count.
	y := x - 0x30*ones
	// A byte is a digit when y's is below 10: adding 0x76 then leaves its
	// high bit clear, and y's own high bit is clear. A carry out of a
	// non-digit byte only reaches the bytes after it too.
	nd := ((y + 0x76*ones) | y) & (0x80 * ones)
	n = bits.TrailingZeros64(nd) >> 3
	// The n digits' values in the high bytes, zeros below (n = 0: all
	// zero), combined in pairs, fours and eights.
	d := y << (64 - 8*uint(n))
	d = d * (10<<8 + 1) >> 8
	d = (d & 0x00FF00FF00FF00FF) * (100<<16 + 1) >> 16
	d = (d & 0x0000FFFF0000FFFF) * (10000<<32 + 1) >> 32
	return n, d
}

// moreDigits continues the decimal number v with the digits from buf[pos]
// on, returning the value and the position of the first non-digit. The
// buffer must end in a non-digit (the readers keep a sentinel or padding),
// so the loop needs no bounds check of its own.
func moreDigits(buf []byte, pos int, v uint64) (uint64, int) {
	for {
		d := buf[pos] - '0'
		if d >= 10 {
			return v, pos
		}
		v = v*10 + uint64(d)
		pos++
	}
}

// pow10 holds 10^0 … 10^8.
var pow10 = [9]uint64{1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000}

// parse scans the region (which ends in ',' or ']') into r.vals and
// r.second.
//
// Each number's end is where the next begins, so a single scan is a
// chain of dependent steps that leaves the core idle while it waits on
// each. parse therefore splits the region at a comma near its middle and
// scans both parts at once (twoChains), which gives the core two
// independent chains to overlap, and finishes each part on its own
// (scan) from where anything unusual stopped that. The parts' results are
// joined as one scan would have left them (the first part's error wins,
// and the second starts expecting a value, as the first's comma left it),
// but for the values: the second part's stay where they were stored, in
// r.second.
func (r *region) parse() {
	d := r.data[:len(r.data)-padPar]
	buf := r.data // zero padding from buf[len(d)]
	a := scanState{end: len(d), expect: r.expect, vals: r.store[:0], errPos: -1}
	r.second = nil
	mid := len(d) / 2
	if k := bytes.IndexByte(d[mid:], ','); len(d) >= twoChainsMin && k >= 0 && mid+k+1 < len(d) {
		mid += k + 1
		// Every value takes a digit and a separator, so the first part
		// holds at most mid/2 values and the second part's go after
		// those, in the same storage.
		room := mid/2 + (len(d)-mid)/2 + 2
		if cap(r.store) < room {
			r.store = slicesx.MakeUncleared[uint64](0, room)
		}
		out := r.store[:room]
		hi := mid / 2
		pa, pb, na, nb := twoChains(buf, 0, mid, mid, len(d), out, 0, hi)
		a.pos, a.end, a.vals = pa, mid, out[:na:hi]
		a.newlines = int64(bytes.Count(d[:pa], newline))
		if pa > 0 {
			a.expect = expectValue // a number and its comma were taken
		}
		a.scan(buf)
		if a.errPos < 0 {
			b := scanState{pos: pb, end: len(d), expect: expectValue, vals: out[hi:nb], errPos: -1}
			b.newlines = int64(bytes.Count(d[mid:pb], newline))
			b.scan(buf)
			r.second = b.vals
			a.newlines += b.newlines
			a.other += b.other
			a.expect, a.errPos, a.errMsg = b.expect, b.errPos, b.errMsg
			a.done = a.done || b.done
		}
	} else {
		a.scan(buf)
	}
	r.vals = a.vals
	if r.second == nil && cap(a.vals) > cap(r.store) {
		r.store = a.vals[:0] // grown by append: keep it for the next region
	}
	r.st = arrayState{expect: a.expect, done: a.done, values: int64(len(r.vals) + len(r.second)), newlines: a.newlines, other: a.other}
	r.errPos, r.errMsg = a.errPos, a.errMsg
}

var newline = []byte{'\n'}

// twoChainsMin is the shortest region parse splits.
const twoChainsMin = 4 << 10

// twoChains scans numbers from pa on (up to ea) and from pb on (up to eb)
// at once, storing them in out from na and from nb on, while both parts
// hold what V8 writes: numbers of fewer than 16 digits, each followed by
// ',' or by a newline and ','. It returns where each part stopped, before
// anything else or at its end, and where its next value would go.
func twoChains(buf []byte, pa, ea, pb, eb int, out []uint64, na, nb int) (int, int, int, int) {
	for pa < ea && pb < eb && buf[pa]-'0' < 10 && buf[pb]-'0' < 10 {
		ka, xa := digits8(binary.LittleEndian.Uint64(buf[pa:]))
		kb, xb := digits8(binary.LittleEndian.Uint64(buf[pb:]))
		ea2, eb2 := pa+ka, pb+kb // each number's end
		// Eight digits (V8's ids and edge targets often have eight) and
		// a ninth: the next word too. Written out for each chain: a
		// function for both is not inlined, and took 2% more of the
		// scan's CPU on a real 1 GB file.
		if ka == 8 && buf[ea2]-'0' < 10 {
			k, x := digits8(binary.LittleEndian.Uint64(buf[ea2:]))
			if k == 8 {
				break
			}
			xa = xa*pow10[k] + x
			ea2 += k
		}
		if kb == 8 && buf[eb2]-'0' < 10 {
			k, x := digits8(binary.LittleEndian.Uint64(buf[eb2:]))
			if k == 8 {
				break
			}
			xb = xb*pow10[k] + x
			eb2 += k
		}
		// What follows each number: ',' (1), or '\n' and ',' (2).
		sa, sb := sepLen(buf, ea2), sepLen(buf, eb2)
		if sa == 0 || sb == 0 {
			break
		}
		out[na], out[nb] = xa, xb
		na++
		nb++
		pa, pb = ea2+sa, eb2+sb
	}
	return pa, pb, na, nb
}

// sepLen is the length of the separator V8 writes at buf[i] after a
// number: 1 for ',', 2 for a newline and ',' (a row's end), 0 for
// anything else.
func sepLen(buf []byte, i int) int {
	switch {
	case buf[i] == ',':
		return 1
	case buf[i] == '\n' && buf[i+1] == ',':
		return 2
	}
	return 0
}

// scanState is the progress of scanning a run of a region's bytes.
type scanState struct {
	pos, end        int
	expect          uint8
	done            bool
	vals            []uint64
	newlines, other int64
	errPos          int // index into the region's data, or -1
	errMsg          string
}

// scan goes on from st.pos to st.end, or to the first error. Its state is
// in local variables, which the compiler keeps in registers.
func (st *scanState) scan(buf []byte) {
	pos, end, expect, vals, newlines := st.pos, st.end, st.expect, st.vals, st.newlines
scan:
	for pos < end {
		c := buf[pos]
		if expect != expectSep && c-'0' < 10 {
			start := pos
			k, v := digits8(binary.LittleEndian.Uint64(buf[pos:]))
			pos += k
			if k == 8 && buf[pos]-'0' < 10 {
				// Nine digits or more.
				k2, v2 := digits8(binary.LittleEndian.Uint64(buf[pos:]))
				v = v*pow10[k2] + v2
				pos += k2
				if k2 == 8 {
					// Sixteen digits or more: the plain loop (the padding stops it).
					v, pos = moreDigits(buf, pos, v)
				}
			}
			if pos-start > 19 {
				var ok bool
				if v, ok = parseBig(buf[start:pos]); !ok {
					st.failAt(start, "number does not fit in 64 bits")
					break scan
				}
			}
			vals = append(vals, v)
			if buf[pos] == ',' {
				pos++
				expect = expectValue
				continue
			}
			if buf[pos] == '\n' && buf[pos+1] == ',' {
				// V8 ends a row with a newline, before the next row's comma.
				pos += 2
				newlines++
				expect = expectValue
				continue
			}
			if c := buf[pos]; c == '.' || c == 'e' || c == 'E' {
				st.failAt(start, "number is not an unsigned integer")
				break scan
			}
			expect = expectSep
			continue
		}
		switch {
		case c == '\n':
			newlines++
		case c == ' ' || c == '\r' || c == '\t':
			st.other++
		case expect == expectSep && c == ',':
			expect = expectValue
		case (expect == expectSep || (expect == expectFirst && len(vals) == 0)) && c == ']':
			st.done = true
		case expect == expectSep:
			st.failAt(pos, "expected ',' or ']' in a number array, found %q", c)
			break scan
		case c == '-':
			st.failAt(pos, "negative number in a number array (V8 writes unsigned integers only)")
			break scan
		case c == ']':
			st.failAt(pos, "expected a number after ','")
			break scan
		default:
			st.failAt(pos, "expected an unsigned integer, found %q", c)
			break scan
		}
		pos++
	}
	st.pos, st.expect, st.vals, st.newlines = pos, expect, vals, newlines
}

// failAt records an error at index pos of the region's data; scan then
// stops, and records its state as it was there.
func (st *scanState) failAt(pos int, format string, args ...any) {
	st.errPos = pos
	st.errMsg = fmt.Sprintf(format, args...)
}

// valueOffset returns the file offset of value k of the region.
func (r *region) valueOffset(k int) int64 {
	return r.off + int64(nthValue(r.data[:len(r.data)-padPar], k))
}

// nthValue returns the index in d where value k starts (len(d) if absent).
func nthValue(d []byte, k int) int {
	if k < 0 {
		return 0
	}
	for pos, i := 0, 0; pos < len(d); {
		if c := d[pos]; c >= '0' && c <= '9' {
			if i == k {
				return pos
			}
			for pos < len(d) && d[pos] >= '0' && d[pos] <= '9' {
				pos++
			}
			i++
			continue
		}
		pos++
	}
	return len(d)
}

// parallelNumbers hands regions of one number array to worker goroutines
// and returns their values in order.
type parallelNumbers struct {
	s       *scanner
	pool    *regionPool
	work    chan *region
	pending []*region // dispatched, in order
	done    bool      // the last region has been dispatched
	cur     *region   // the region whose values were returned last
	prev    *region   // the one before it
	wg      sync.WaitGroup
}

func newParallelNumbers(s *scanner, pool *regionPool) *parallelNumbers {
	workers := max(1, runtime.GOMAXPROCS(0))
	pn := &parallelNumbers{s: s, pool: pool, work: make(chan *region, 2*workers)}
	for i := 0; i < workers; i++ {
		pn.wg.Add(1)
		go func() {
			defer pn.wg.Done()
			for r := range pn.work {
				r.parse()
				close(r.finished)
			}
		}()
	}
	return pn
}

// close stops the workers.
func (pn *parallelNumbers) close() {
	close(pn.work)
	pn.wg.Wait()
	for _, r := range pn.pending {
		pn.pool.put(r)
	}
	for _, r := range []*region{pn.cur, pn.prev} {
		if r != nil && !r.pinned {
			pn.pool.put(r)
		}
	}
	pn.cur, pn.prev = nil, nil
}

// cut takes the next region from the scanner's buffer; ok is false when the
// buffer holds no separator to cut at (absurd white space, or the end of
// the file), and the caller falls back to the sequential scanner.
func (pn *parallelNumbers) cut(expect uint8) (*region, bool) {
	s := pn.s
	if s.end-s.pos < regionSize && !s.eof {
		s.fill()
	}
	avail := s.buf[s.pos:min(s.end, s.pos+regionSize)]
	n := -1
	last := false
	if i := bytes.IndexByte(avail, ']'); i >= 0 {
		n, last = i+1, true
	} else if i := bytes.LastIndexByte(avail, ','); i >= 0 {
		n = i + 1
	}
	if n < 0 {
		return nil, false
	}
	r := pn.pool.get()
	r.data = append(r.data[:0], avail[:n]...)
	r.data = append(r.data, make([]byte, padPar)...)
	r.off = s.offset()
	r.expect = expect
	r.finished = make(chan struct{})
	s.pos += n
	pn.done = last
	return r, true
}
