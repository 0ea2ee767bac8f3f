package conformance

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
	moarvmir "github.com/heapconv/heapconv/ir/moarvm"

	"github.com/heapconv/heapconv/internal/sampling"
	"github.com/heapconv/heapconv/ir"
)

// Damage sweeps: every fixture of every format that has fixtures (the
// table's fixtures glob, so a new format plugs in with its table entry),
// read cut short at many points, with bits flipped and with bytes
// replaced. A cut file must give a *ir.FormatError naming an offset (for
// MoarVM, a recovery report will do); every damaged file must give an
// error or a valid file; none may panic, hang or allocate more than the
// input justifies. The constants below are the exhaustive sweep's
// (HEAPCONV_EXHAUSTIVE=1, scripts/exhaustive.sh); `go test ./...` runs a
// fixed part of it (sweepSample*).
const (
	// sweepEveryByte: fixtures up to this size are cut at every byte.
	sweepEveryByte = 8 << 10
	// sweepCuts is how many cut points a bigger fixture gets (spread
	// evenly, plus the first and last 256 bytes).
	sweepCuts = 1500
	// sweepFlips is how many single-bit flips and byte replacements each
	// fixture gets.
	sweepFlips = 300
	// sweepStreamEvery: every so many cuts, flips and replacements are
	// also read as a stream of unknown size.
	sweepStreamEvery = 8
	// sweepTimeout is how long one read may take before it counts as a
	// hang.
	sweepTimeout = 20 * time.Second
	// A read may allocate sweepAllocPerByte times the input plus
	// sweepAllocFloor.
	sweepAllocPerByte = 64
	sweepAllocFloor   = 128 << 20
)

// sweepResult is what reading one damaged input did.
type sweepResult struct {
	f       *ir.File
	err     error
	alloc   uint64
	panic   any
	elapsed time.Duration
}

// sweepRead reads data with fm's reader, catching panics and measuring
// what it allocated (the sweep runs one read at a time). With stream the
// reader gets a plain io.Reader, as from a pipe: it cannot know the size,
// so cannot bound a declared count by the bytes left and must grow its
// arrays with what it actually reads.
func sweepRead(fm format, data []byte, stream bool) sweepResult {
	done := make(chan sweepResult, 1)
	go func() {
		var r sweepResult
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		defer func() {
			r.elapsed = time.Since(start)
			runtime.ReadMemStats(&after)
			r.alloc = after.TotalAlloc - before.TotalAlloc
			r.panic = recover()
			done <- r
		}()
		var in io.Reader = bytes.NewReader(data)
		if stream {
			in = struct{ io.Reader }{in}
		}
		r.f, r.err = fm.read(in)
	}()
	select {
	case r := <-done:
		return r
	case <-time.After(sweepTimeout):
		return sweepResult{err: errors.New("hang"), elapsed: sweepTimeout}
	}
}

// sweepCheck fails t when a read of a damaged input misbehaved. cut says
// the input is a truncation, which must be refused (or recovered) unless
// what was cut off, tail, is padding.
func sweepCheck(t *testing.T, fm format, what string, data, tail []byte, r sweepResult, cut bool) {
	t.Helper()
	switch {
	case r.panic != nil:
		t.Fatalf("%s: panic: %v", what, r.panic)
	case r.elapsed >= sweepTimeout:
		t.Fatalf("%s: no answer in %v", what, sweepTimeout)
	case r.alloc > sweepAllocPerByte*uint64(len(data))+sweepAllocFloor:
		t.Fatalf("%s: %d bytes allocated for a %d-byte input", what, r.alloc, len(data))
	}
	if r.err == nil {
		if err := r.f.Validate(); err != nil {
			t.Fatalf("%s: accepted, but the file read is invalid: %v", what, err)
		}
		if fm.judge != nil {
			if err := fm.judge(data); err != nil {
				t.Fatalf("%s: accepted, but the format's own consumer refuses it: %v", what, err)
			}
		}
		if cut && !(moarvmir.FileOf(r.f) != nil && moarvmir.FileOf(r.f).Recovery != nil) && !onlyPadding(tail) {
			// Only a prefix that is a whole file itself may be accepted
			// (a Dart file ending before the optional identity hash
			// codes, a MoarVM file as it stood before its last table of
			// contents was appended): it must read the same written
			// again, and be rare (TestSweep counts them).
			if fm.write == nil {
				t.Fatalf("%s: a truncated file was accepted", what)
			}
			var b bytes.Buffer
			if _, err := fm.write(&b, r.f); err != nil {
				t.Fatalf("%s: a truncated file was accepted, and cannot be written: %v", what, err)
			}
			back, err := fm.read(bytes.NewReader(b.Bytes()))
			if err != nil {
				t.Fatalf("%s: a truncated file was accepted, and written does not read: %v", what, err)
			}
			// (The description and the writer's own choice of gzip aside.)
			g := *back
			g.FormatVersion = r.f.FormatVersion
			if fuchsiair.FileOf(&g) != nil && fuchsiair.FileOf(r.f) != nil {
				ff := *fuchsiair.FileOf(&g)
				ff.Gzip = fuchsiair.FileOf(r.f).Gzip
				g.SetSection(&ff)
			}
			if d := ir.Diff(r.f, &g, 5); len(d) > 0 {
				t.Fatalf("%s: a truncated file was accepted, and does not read back the same: %v", what, d)
			}
		}
		return
	}
	var fe *ir.FormatError
	if !errors.As(r.err, &fe) {
		t.Fatalf("%s: error without a format and offset: %v", what, r.err)
	}
	if cut && (fe.Offset < 0 || fe.Offset > int64(len(data))) {
		t.Fatalf("%s: error at offset %d of a %d-byte input: %v", what, fe.Offset, len(data), r.err)
	}
}

// sweepStats collects the figures docs/robustness.md reports.
type sweepStats struct {
	reads    int
	worst    float64 // allocation / input size
	worstIn  string
	worstB   uint64
	most     uint64 // the largest allocation
	mostIn   string
	slowest  time.Duration
	slowIn   string
	accepted int
}

func (s *sweepStats) add(what string, data []byte, r sweepResult) {
	s.reads++
	if ratio := float64(r.alloc) / float64(max(len(data), 1)); ratio > s.worst && len(data) > 4096 {
		s.worst, s.worstIn, s.worstB = ratio, what, r.alloc
	}
	if r.alloc > s.most {
		s.most, s.mostIn = r.alloc, what
	}
	if r.elapsed > s.slowest {
		s.slowest, s.slowIn = r.elapsed, what
	}
	if r.err == nil {
		s.accepted++
	}
}

// cutPoints returns where the exhaustive sweep cuts an input of n bytes,
// in increasing order.
func cutPoints(n int) []int {
	var cuts []int
	if n <= sweepEveryByte {
		for i := 0; i < n; i++ {
			cuts = append(cuts, i)
		}
		return cuts
	}
	for i := 0; i < 256; i++ {
		cuts = append(cuts, i)
	}
	for i := 0; i < sweepCuts; i++ {
		cuts = append(cuts, 256+int(int64(i)*int64(n-512)/sweepCuts))
	}
	for i := 255; i >= 0; i-- {
		cuts = append(cuts, n-1-i)
	}
	return cuts
}

// The default run's sample of a fixture's damaged inputs (all of them with
// HEAPCONV_EXHAUSTIVE=1). Cuts near the ends of a file reach its header
// and its trailer (a MoarVM table of contents, a gzip footer), where most
// of a reader's decisions are, and are cheap at the start; the rest of a
// fixture's cuts are sampled evenly. Flips are the first ones of the
// exhaustive run's sequence, so the sample is a part of that run.
const (
	// sweepSampleEnds: the first and last so many cut points are kept.
	sweepSampleEnds = 10
	// sweepSampleEvery: one in so many of the other cut points is kept,
	// and at most sweepSampleSpread of them: in a big file they are the
	// costly ones (a cut at c reads c bytes), and the most alike.
	sweepSampleEvery  = 24
	sweepSampleSpread = 8
	// sweepSampleFlips: flips and replacements per fixture.
	sweepSampleFlips = 16
	// sweepSampleDevTools: accepted damaged V8 files that DevTools' loader
	// opens per fixture, of the fixtures devtoolsFixtures picks
	// (sweepDevTools of every fixture in an exhaustive run).
	sweepSampleDevTools = 1
)

// sampleCuts returns the cut points the run makes of all (cutPoints):
// every one in an exhaustive run, else both ends and an even spread.
func sampleCuts(all []int) []int {
	var cuts []int
	for _, i := range sampling.Ends(len(all), sweepSampleEnds, sweepSampleEvery, sweepSampleSpread) {
		cuts = append(cuts, all[i])
	}
	return cuts
}

// sweepDevTools is how many damaged V8 files the reader accepts that
// TestSweep also has DevTools' loader open (each fixture's first ones).
const sweepDevTools = 3

func TestSweep(t *testing.T) {
	// Not parallel: it measures what each read allocates, which other
	// tests running beside it would add to.
	if testing.Short() {
		t.Skip("the damage sweep reads every fixture thousands of times")
	}
	o := newOracle(t.TempDir())
	for _, fm := range table {
		if fm.fixtures == "" && fm.damage == "" {
			t.Errorf("%s: no fixtures and no inputs to damage", fm.name)
			continue
		}
		t.Run(fm.name, func(t *testing.T) {
			var paths []string
			for _, glob := range []string{fm.fixtures, fm.damage} {
				if glob != "" {
					p, err := filepath.Glob(filepath.Join(moduleRoot, glob))
					if err != nil || len(p) == 0 {
						t.Fatalf("no inputs match %s", glob)
					}
					paths = append(paths, p...)
				}
			}
			var st sweepStats
			start := time.Now()
			// ran and all count the damaged inputs made (each read once
			// with the size known, and every sweepStreamEvery-th also as
			// a stream) of those an exhaustive run makes.
			ran, all := 0, 0
			judge := sampling.Count(sweepDevTools, sweepSampleDevTools)
			// damaged reads the i-th damaged input (of a fixture's cuts or
			// its flips), every sweepStreamEvery-th also as a stream, and
			// checks and counts each read; it returns the sized read.
			damaged := func(i int, what string, in, tail []byte, cut bool) sweepResult {
				if i%sweepStreamEvery == 0 {
					r := sweepRead(fm, in, true)
					sweepCheck(t, fm, what+" (stream)", in, tail, r, cut)
					st.add(what+" (stream)", in, r)
				}
				r := sweepRead(fm, in, false)
				sweepCheck(t, fm, what, in, tail, r, cut)
				st.add(what, in, r)
				return r
			}
			dev := devtoolsFixtures(len(paths))
			for pi, path := range paths {
				name := fixtureName(path)
				data := loadFixture(t, path)
				judge := judge
				if !dev[pi] {
					judge = 0
				}
				for _, stream := range []bool{false, true} {
					if r := sweepRead(fm, data, stream); r.err != nil || r.panic != nil {
						t.Fatalf("%s: the fixture itself does not read (stream %v): %v %v", name, stream, r.err, r.panic)
					}
				}
				allCuts := cutPoints(len(data))
				cuts, whole := sampleCuts(allCuts), 0
				ran += len(cuts)
				all += len(allCuts)
				for i, c := range cuts {
					what := fmt.Sprintf("%s cut at %d of %d", name, c, len(data))
					r := damaged(i, what, data[:c], data[c:], true)
					if r.err == nil && !onlyPadding(data[c:]) && (moarvmir.FileOf(r.f) == nil || moarvmir.FileOf(r.f).Recovery == nil) {
						whole++
					}
				}
				if whole > max(2, len(cuts)/100) {
					t.Errorf("%s: %d of %d cuts accepted as whole files", name, whole, len(cuts))
				}
				rng := rand.New(rand.NewPCG(uint64(len(data)), 7))
				buf := make([]byte, len(data))
				judged := 0
				flips := sampling.Count(sweepFlips, sweepSampleFlips)
				ran += flips
				all += sweepFlips
				for i := 0; i < flips; i++ {
					copy(buf, data)
					at := rng.IntN(len(buf))
					var what string
					if i%2 == 0 {
						bit := rng.IntN(8)
						buf[at] ^= 1 << bit
						what = fmt.Sprintf("%s with bit %d of byte %d flipped", name, bit, at)
					} else {
						v := []byte{0x00, 0xff, 0x7f, 0x80, '"', '9', ','}[rng.IntN(7)]
						buf[at] = v
						what = fmt.Sprintf("%s with byte %d set to %#x", name, at, v)
					}
					r := damaged(i, what, buf, nil, false)
					if fm.v8Output && r.err == nil && judged < judge {
						// What the reader accepts, DevTools' loader must
						// load (heapconv validate applies its rules).
						judged++
						path := o.file(t, fmt.Sprintf("damaged-%s-%d", name, i), buf)
						o.expect("sweep/"+what, func(t *testing.T, sum func(string) *summary) {
							loaded(t, sum(path))
						})
					}
				}
			}
			sampling.Logf(t, ran, all, "damaged inputs (cuts, flips and replacements)")
			if fm.v8Output {
				sampling.Logf(t, judge*len(dev), sweepDevTools*len(paths), "accepted damaged files opened by DevTools (at most)")
			}
			t.Logf("%s: %d damaged inputs read in %v (%d accepted: flips that leave a valid file, or recovered cuts); most allocated for its size: %.1f× the input, %d bytes (%s); most allocated: %d bytes (%s); slowest: %v (%s)",
				fm.name, st.reads, time.Since(start).Round(time.Millisecond), st.accepted, st.worst, st.worstB, st.worstIn, st.most, st.mostIn, st.slowest.Round(time.Millisecond), st.slowIn)
		})
	}
	t.Run("devtools", o.run)
}

// onlyPadding reports whether b holds nothing but zero bytes or ASCII
// white space: cutting it off leaves the file whole (a DevTools export's
// padding, a JSON file's final newline).
func onlyPadding(b []byte) bool {
	for _, c := range b {
		if c != 0 && c != ' ' && c != '\n' && c != '\r' && c != '\t' {
			return false
		}
	}
	return len(b) > 0
}
