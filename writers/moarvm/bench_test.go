package moarvm_test

import (
	"io"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	moarvmir "github.com/heapconv/heapconv/ir/moarvm"

	"github.com/heapconv/heapconv/ir"
	wmoar "github.com/heapconv/heapconv/writers/moarvm"
)

var (
	benchOnce sync.Once
	benchFile *ir.File
)

// bigFile makes a MoarVM IR file shaped like a real snapshot: n
// collectables (mostly objects, some type objects, STables and frames) with
// about 4 references each, MoarVM's mix of unknown, index and string
// descriptions, and reference ranges in an order unrelated to the
// collectables' (as MoarVM's work list makes them).
func bigFile(n int) *ir.File {
	r := rand.New(rand.NewPCG(1, 2))
	f := &ir.File{Format: moarvmir.Format, FormatVersion: "moarvm v3 (benchmark)"}
	const nStrings, nTypes, nFrames = 4000, 600, 400
	for i := range nStrings {
		f.Strings = append(f.Strings, "string number "+string(rune('a'+i%26))+itoa(i))
	}
	c := &f.Classes
	c.FirstField = make([]uint32, nTypes+1)
	for range nTypes {
		c.Name = append(c.Name, uint32(r.IntN(nStrings)))
		c.Library = append(c.Library, uint32(r.IntN(40)))
	}
	m := &moarvmir.File{Version: 3, HasMeta: true, Subversion: 1, StartTime: 1, HasPID: true, PID: 2,
		EntryCount: 40, DataOrder: slices.Clone(moarvmir.DefaultDataOrder), StringCount: nStrings,
		TOCs: []moarvmir.TOC{{NewStrings: nStrings, NewTypes: nTypes, NewFrames: nFrames}, {}}}
	for range nFrames {
		m.FrameName = append(m.FrameName, uint32(r.IntN(nStrings)))
		m.FrameCUID = append(m.FrameCUID, uint32(r.IntN(nStrings)))
		m.FrameLine = append(m.FrameLine, uint32(r.IntN(5000)))
		m.FrameFile = append(m.FrameFile, uint32(r.IntN(50)))
	}
	f.SetSection(m)
	s := &ir.Snapshot{Root: 0, NodeKinds: slices.Clone(moarvmir.NodeKinds), EdgeKinds: slices.Clone(moarvmir.EdgeKinds)}
	ms := &moarvmir.Snapshot{HasMeta: true, SnapTime: 5, GCSeqNum: 1}
	s.SetSection(ms)
	nd, ed := &s.Nodes, &s.Edges
	nd.Kind = make([]uint8, n)
	nd.Name = make([]uint32, n)
	nd.Class = make([]uint32, n)
	nd.FirstEdge = make([]uint32, 1, n+1)
	size := make([]uint64, n)
	usize := make([]uint64, n)
	tofi := make([]uint64, n)
	for i := range n {
		k := uint8(moarvmir.Object)
		switch x := r.IntN(100); {
		case i == 0:
			k = moarvmir.Root
		case x < 3:
			k = moarvmir.TypeObject
		case x < 6:
			k = moarvmir.STable
		case x < 10:
			k = moarvmir.Frame
		}
		nd.Kind[i] = k
		switch k {
		case moarvmir.Frame:
			tofi[i] = uint64(r.IntN(nFrames))
			size[i] = 168
			usize[i] = uint64(r.IntN(4)) * 64
			nd.Name[i] = m.FrameName[tofi[i]]
		case moarvmir.Root:
		default:
			tofi[i] = uint64(r.IntN(nTypes))
			size[i] = uint64(16 + 8*r.IntN(12))
			if r.IntN(10) == 0 {
				usize[i] = uint64(r.IntN(1 << 12))
			}
			nd.Class[i] = uint32(tofi[i]) + 1
			nd.Name[i] = c.Name[tofi[i]]
		}
		for range r.IntN(9) {
			var kind uint8
			var name uint32
			switch x := r.IntN(100); {
			case x < 18:
				kind = moarvmir.UnknownRef
			case x < 30:
				kind, name = moarvmir.IndexRef, uint32(r.IntN(64))
			default:
				kind, name = moarvmir.StringRef, uint32(r.IntN(nStrings/4))
			}
			ed.Kind = append(ed.Kind, kind)
			ed.Name = append(ed.Name, name)
			// Mostly nearby collectables, as MoarVM's depth-first
			// discovery numbers them; some anywhere.
			to := r.IntN(n)
			if r.IntN(10) < 7 {
				to = min(max(i+r.IntN(512)-256, 0), n-1)
			}
			ed.Target = append(ed.Target, uint32(to))
		}
		nd.FirstEdge = append(nd.FirstEdge, uint32(ed.Len()))
	}
	nd.SelfSize.AppendAll(size)
	nd.ExternalSize.AppendAll(usize)
	ms.TOFI.AppendAll(tofi)
	for i := range n {
		nd.ID.Append(uint64(i))
	}
	// Reference ranges in a shuffled collectable order.
	starts := make([]uint64, n)
	var at uint64
	for _, i := range r.Perm(n) {
		starts[i] = at
		at += uint64(nd.FirstEdge[i+1] - nd.FirstEdge[i])
	}
	ms.RefStart.AppendAll(starts)
	s.Totals = wmoar.Totals(s)
	ms.TopIDs, ms.TopScores, _ = wmoar.Leaderboards(s, 40, moarvmir.DefaultDataOrder)
	f.Snapshots = []*ir.Snapshot{s}
	return f
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

type countWriter struct{ n int64 }

func (w *countWriter) Write(b []byte) (int, error) { w.n += int64(len(b)); return len(b), nil }

var _ io.Writer = (*countWriter)(nil)

// BenchmarkWrite writes a 1 M-collectable, 4 M-reference snapshot.
func BenchmarkWrite(b *testing.B) {
	benchOnce.Do(func() { benchFile = bigFile(1 << 20) })
	f := benchFile
	if err := f.Validate(); err != nil {
		b.Fatal(err)
	}
	s := f.Snapshots[0]
	b.ReportAllocs()
	b.ResetTimer()
	var out int64
	for b.Loop() {
		w := &countWriter{}
		if _, err := wmoar.Write(w, f, wmoar.Options{}); err != nil {
			b.Fatal(err)
		}
		out = w.n
	}
	b.ReportMetric(float64(s.Nodes.Len())/b.Elapsed().Seconds()*float64(b.N)/1e6, "Mcollectables/s")
	b.ReportMetric(float64(out)/1e6, "MB_out")
	b.ReportMetric(float64(s.Edges.Len())/1e6, "Mrefs")
}

// BenchmarkConvert converts the same graph as BenchmarkWrite, taken as
// foreign IR (no MoarVM sections; classes, names and kinds kept).
func BenchmarkConvert(b *testing.B) {
	benchOnce.Do(func() { benchFile = bigFile(1 << 20) })
	f := *benchFile
	f.Sections = nil
	s := *f.Snapshots[0]
	s.Sections = nil
	s.Root = 1 // a synthetic root goes in front
	f.Snapshots = []*ir.Snapshot{&s}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := wmoar.Convert(&f); err != nil {
			b.Fatal(err)
		}
	}
}
