package v8

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
	"runtime"
	"sync"
)

// A region is a self-contained run of a number array, cut by the reader at
// a separator: "12,3,\n45," or "6,7]". Workers parse regions into values in
// parallel; the reader consumes the results in order. This is what makes
// reading scale with cores: digit scanning is most of the work.
type region struct {
	data   []byte // the region's bytes plus padPar zero bytes (a sentinel for the digit loops)
	off    int64  // file offset of data[0]
	expect uint8  // the array state at the start of the region
	// results
	vals     []uint64
	st       arrayState
	errPos   int // index into data, or -1
	errMsg   string
	finished chan struct{}
	pinned   bool // kept by the parser for an error offset; not to be reused
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
	// vals grows as needed: a region of one-digit values needs
	// regionSize/2 of them, typical ones a fifth of that.
	return &region{data: make([]byte, 0, regionSize+padPar), vals: make([]uint64, 0, regionSize/8)}
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
	// A byte is a digit when its high nibble is 3 and adding 6 keeps it 3.
	nd := ((x & (0xF0 * ones)) ^ (0x30 * ones)) | (((x + 0x06*ones) & (0xF0 * ones)) ^ (0x30 * ones))
	n = bits.TrailingZeros64(nd) >> 3
	d := (x - 0x30*ones) << (64 - 8*uint(n)) // the n digits in the high bytes, zeros below (n = 0: all zero)
	d = (d & (0x0F * ones)) * (10<<8 + 1) >> 8
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

// parse scans the region (which ends in ',' or ']') into r.vals.
func (r *region) parse() {
	d := r.data[:len(r.data)-padPar]
	buf := r.data // zero padding from buf[len(d)]
	r.vals = r.vals[:0]
	r.errPos = -1
	st := arrayState{expect: r.expect}
	pos, end := 0, len(d)
	for pos < end {
		c := buf[pos]
		if st.expect != expectSep && c-'0' < 10 {
			start := pos
			k, v := digits8(binary.LittleEndian.Uint64(buf[pos:]))
			pos += k
			if k == 8 {
				// V8 ids and edge targets often have eight digits or more.
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
					r.fail(&st, start, "number does not fit in 64 bits")
					return
				}
			}
			r.vals = append(r.vals, v)
			st.values++
			if buf[pos] == ',' {
				pos++
				st.expect = expectValue
				continue
			}
			if c := buf[pos]; c == '.' || c == 'e' || c == 'E' {
				r.fail(&st, start, "number is not an unsigned integer")
				return
			}
			st.expect = expectSep
			continue
		}
		switch {
		case c == '\n':
			st.newlines++
		case c == ' ' || c == '\r' || c == '\t':
			st.other++
		case st.expect == expectSep && c == ',':
			st.expect = expectValue
		case (st.expect == expectSep || (st.expect == expectFirst && len(r.vals) == 0)) && c == ']':
			st.done = true
		case st.expect == expectSep:
			r.fail(&st, pos, "expected ',' or ']' in a number array, found %q", c)
			return
		case c == '-':
			r.fail(&st, pos, "negative number in a number array (V8 writes unsigned integers only)")
			return
		case c == ']':
			r.fail(&st, pos, "expected a number after ','")
			return
		default:
			r.fail(&st, pos, "expected an unsigned integer, found %q", c)
			return
		}
		pos++
	}
	r.st = st
}

func (r *region) fail(st *arrayState, pos int, format string, args ...any) {
	r.st = *st
	r.errPos = pos
	r.errMsg = fmt.Sprintf(format, args...)
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
