package fidl

import (
	"encoding/hex"
	"errors"
	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/heapconv/heapconv/ir"
)

// unhex parses hex bytes, ignoring whitespace and "//" comments and
// "NNNN:" offset labels at the start of a line.
func unhex(tb testing.TB, s string) []byte {
	tb.Helper()
	var clean strings.Builder
	for _, line := range strings.Split(s, "\n") {
		if i := strings.Index(line, "//"); i >= 0 {
			line = line[:i]
		}
		if i := strings.Index(line, ":"); i >= 0 {
			line = line[i+1:]
		}
		clean.WriteString(strings.Join(strings.Fields(line), ""))
	}
	b, err := hex.DecodeString(clean.String())
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// rawPersist encodes without validation, to build invalid inputs.
func rawPersist(e *Element) []byte {
	return new(encoder).appendElement(nil, e)
}

func mustPersist(tb testing.TB, e *Element) []byte {
	tb.Helper()
	b, err := Persist(e)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// formatError returns err's *ir.FormatError or fails.
func formatError(tb testing.TB, err error) *ir.FormatError {
	tb.Helper()
	var fe *ir.FormatError
	if !errors.As(err, &fe) {
		tb.Fatalf("error %v (%T) is not an *ir.FormatError", err, err)
	}
	if fe.Format != fuchsiair.FormatFIDL {
		tb.Fatalf("error format %q", fe.Format)
	}
	return fe
}

func set(f *Fields, ords ...int) {
	for _, o := range ords {
		f.Set(o)
	}
}

// randomElement makes an arbitrary valid element: random kind (unknown
// variants included), random presence, values, unknown fields.
func randomElement(rng *rand.Rand) Element {
	var e Element
	u64 := func() uint64 {
		switch rng.IntN(4) {
		case 0:
			return rng.Uint64N(256)
		case 1:
			return ^uint64(0) - rng.Uint64N(4)
		}
		return rng.Uint64()
	}
	str := func(limit int) string {
		n := rng.IntN(limit + 1)
		var b strings.Builder
		for b.Len() < n {
			var r rune
			switch rng.IntN(6) {
			case 0:
				r = rune(0x80 + rng.IntN(0x780)) // 2 bytes
			case 1:
				r = rune(0x800 + rng.IntN(0xd000-0x800)) // 3 bytes
			case 2:
				r = rune(0x10000 + rng.IntN(0x1000)) // 4 bytes
			default:
				r = rune(rng.IntN(0x80))
			}
			if b.Len()+len(string(r)) > n {
				break
			}
			b.WriteRune(r)
		}
		return b.String()
	}
	bytesN := func(n int) []byte {
		if n == 0 {
			return nil
		}
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	unknown := func(nk int) []RawField {
		if rng.IntN(4) != 0 {
			return nil
		}
		var out []RawField
		ord := uint64(nk)
		for range 1 + rng.IntN(3) {
			ord += 1 + rng.Uint64N(3)
			if rng.IntN(2) == 0 {
				out = append(out, RawField{Ordinal: ord, Inline: true, Bytes: bytesN(4)})
			} else {
				out = append(out, RawField{Ordinal: ord, Bytes: bytesN(8 * (1 + rng.IntN(4)))})
			}
		}
		return out
	}
	present := func(n int) Fields { return Fields(rng.IntN(1 << n)) }
	switch rng.IntN(7) {
	case 0:
		e.Kind = KindAllocation
		a := &e.Allocation
		a.Present = present(6)
		v := [6]uint64{}
		for i := range v {
			if a.Present.Has(i + 1) {
				v[i] = u64()
			}
		}
		a.Address, a.Size, a.StackTraceKey, a.Timestamp, a.ThreadInfoKey, a.Count = v[0], v[1], v[2], int64(v[3]), v[4], v[5]
		a.Unknown = unknown(6)
	case 1:
		e.Kind = KindStackTrace
		t := &e.StackTrace
		t.Present = present(2)
		if t.Present.Has(1) {
			t.Key = u64()
		}
		if t.Present.Has(2) {
			for range rng.IntN(40) {
				t.ProgramAddresses = append(t.ProgramAddresses, u64())
			}
		}
		t.Unknown = unknown(2)
	case 2:
		e.Kind = KindThreadInfo
		t := &e.ThreadInfo
		t.Present = present(3)
		if t.Present.Has(1) {
			t.Key = u64()
		}
		if t.Present.Has(2) {
			t.Koid = u64()
		}
		if t.Present.Has(3) {
			t.Name = str(MaxNameLength)
		}
		t.Unknown = unknown(3)
	case 3:
		e.Kind = KindExecutableRegion
		r := &e.ExecutableRegion
		r.Present = present(6)
		if r.Present.Has(1) {
			r.Address = u64()
		}
		if r.Present.Has(2) {
			r.Size = u64()
		}
		if r.Present.Has(3) {
			r.FileOffset = u64()
		}
		if r.Present.Has(4) {
			r.BuildID.Value = bytesN(rng.IntN(MaxBuildIDLength + 1))
		}
		if r.Present.Has(5) {
			r.Vaddr = u64()
		}
		if r.Present.Has(6) {
			r.Name = str(80)
		}
		r.Unknown = unknown(6)
	case 4:
		e.Kind = KindBlockContents
		b := &e.BlockContents
		b.Present = present(2)
		if b.Present.Has(1) {
			b.Address = u64()
		}
		if b.Present.Has(2) {
			b.Contents = bytesN(rng.IntN(100))
		}
		b.Unknown = unknown(2)
	case 5:
		e.Kind = KindSnapshotHeader
		h := &e.SnapshotHeader
		h.Present = present(2)
		if h.Present.Has(1) {
			h.ProcessName = str(MaxNameLength)
		}
		if h.Present.Has(2) {
			h.ProcessKoid = u64()
		}
		h.Unknown = unknown(2)
	default:
		e.Kind = KindUnknown
		e.Unknown.Ordinal = 7 + rng.Uint64N(1000)
		if rng.IntN(3) == 0 {
			e.Unknown.Ordinal = u64() | 8
		}
		if rng.IntN(2) == 0 {
			e.Unknown.Inline, e.Unknown.Bytes = true, bytesN(4)
		} else {
			e.Unknown.Bytes = bytesN(8 * (1 + rng.IntN(6)))
		}
	}
	return e
}

// variant returns the meaningful part of an element, for comparisons.
func variant(e *Element) any {
	switch e.Kind {
	case KindAllocation:
		return e.Allocation
	case KindStackTrace:
		return e.StackTrace
	case KindThreadInfo:
		return e.ThreadInfo
	case KindExecutableRegion:
		return e.ExecutableRegion
	case KindBlockContents:
		return e.BlockContents
	case KindSnapshotHeader:
		return e.SnapshotHeader
	}
	return e.Unknown
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
