package moarvm_test

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/irtest"
	moarvmir "github.com/heapconv/heapconv/ir/moarvm"
	"github.com/heapconv/heapconv/readers/moarvm"
	wmoarvm "github.com/heapconv/heapconv/writers/moarvm"
)

// encodeV2 writes a MoarVM IR file in format version 2, as MoarVM ≥ 2019.11
// does, bugs included (see v2.go): a test-only writer, so that version 2
// reading is checked on more than the one sample and fuzzed from small
// seeds.
func encodeV2(f *ir.File) []byte {
	var b bytes.Buffer
	u64 := func(v uint64) { b.Write(binary.LittleEndian.AppendUint64(nil, v)) }
	b.WriteString(moarvmir.Magic2)
	m := moarvmir.FileOf(f)
	strs, types, frames := 0, 0, 0
	group := func(toc moarvmir.TOC) {
		b.WriteString("strs")
		u64(uint64(strs)) // the count field holds the strings written before
		for _, s := range f.Strings[strs : strs+int(toc.NewStrings)] {
			u64(uint64(len(s)))
			b.WriteString(s)
		}
		strs += int(toc.NewStrings)
		b.WriteString("type")
		u64(uint64(toc.NewTypes))
		u64(16)
		for k := types; k < types+int(toc.NewTypes); k++ {
			// 32-bit fields written as 64-bit: the next field in the high half.
			u64(uint64(f.Classes.Library[k]) | uint64(f.Classes.Name[k])<<32)
			u64(uint64(f.Classes.Name[k]) | 7<<32)
		}
		types += int(toc.NewTypes)
		b.WriteString("fram")
		u64(uint64(toc.NewFrames))
		u64(32)
		for k := frames; k < frames+int(toc.NewFrames); k++ {
			u64(uint64(m.FrameName[k]) | uint64(m.FrameCUID[k])<<32)
			u64(uint64(m.FrameCUID[k]) | uint64(m.FrameLine[k])<<32)
			u64(uint64(m.FrameLine[k]) | uint64(m.FrameFile[k])<<32)
			u64(uint64(m.FrameFile[k]))
		}
		frames += int(toc.NewFrames)
	}
	for k, s := range f.Snapshots {
		n := s.Nodes.Len()
		b.WriteString("coll")
		u64(uint64(n))
		u64(28)
		for i := 0; i < n; i++ {
			lo, hi := s.Nodes.EdgeRange(i)
			b.Write(binary.LittleEndian.AppendUint16(nil, uint16(s.Nodes.Kind[i])))
			b.Write(binary.LittleEndian.AppendUint32(nil, uint32(moarvmir.Of(s).TOFI.At(i))))
			b.Write(binary.LittleEndian.AppendUint16(nil, uint16(s.Nodes.SelfSize.At(i))))
			u64(s.Nodes.ExternalSize.At(i))
			u64(moarvmir.Of(s).RefStart.At(i))
			b.Write(binary.LittleEndian.AppendUint32(nil, uint32(hi-lo)))
		}
		// The reference table, in file order.
		refs := s.Edges.Len()
		order := make([]int, refs) // table position → edge
		for i := 0; i < n; i++ {
			lo, hi := s.Nodes.EdgeRange(i)
			for e := lo; e < hi; e++ {
				order[int(moarvmir.Of(s).RefStart.At(i))+e-lo] = e
			}
		}
		b.WriteString("refs")
		u64(uint64(refs))
		u64(17)
		for _, e := range order {
			kind := uint64(s.Edges.Kind[e])
			switch kind {
			case moarvmir.BadString:
				kind = 2
			case moarvmir.Kind3:
				kind = 3
			}
			idx, tgt := uint64(s.Edges.Name[e]), uint64(s.Edges.Target[e])
			w, code := 8, byte('6')
			switch v := max(idx, tgt); {
			case v < 1<<8:
				w, code = 1, '0'
			case v < 1<<16:
				w, code = 2, '1'
			case v < 1<<32:
				w, code = 4, '3'
			}
			b.WriteByte(code)
			b.WriteByte(byte(kind))
			b.Write(binary.LittleEndian.AppendUint64(nil, idx)[:w])
			b.Write(binary.LittleEndian.AppendUint64(nil, tgt)[:w])
		}
		group(m.TOCs[k])
	}
	group(m.TOCs[len(f.Snapshots)])
	for range f.Snapshots {
		u64(0)
		u64(0)
		u64(0)
		u64(0) // incremental_data: never filled in
	}
	u64(0)
	u64(0)
	u64(0)
	u64(uint64(len(f.Snapshots)))
	return b.Bytes()
}

// fuzzSeeds are small files of both versions written from random MoarVM
// heaps, and a truncated one.
func fuzzSeeds(tb testing.TB) [][]byte {
	tb.Helper()
	var out [][]byte
	for seed, mo := range []irtest.MoarVMOptions{{}, {BadRefs: true, NoPID: true}} {
		f := irtest.RandomMoarVM(int64(seed), irtest.Options{MaxNodes: 10, Snapshots: 2, Strings: irtest.AllStrings}, mo)
		var b bytes.Buffer
		if _, err := wmoarvm.Write(&b, f, wmoarvm.Options{}); err != nil {
			tb.Fatal(err)
		}
		out = append(out, b.Bytes(), b.Bytes()[:b.Len()*3/4])
	}
	f := irtest.RandomMoarVM(7, irtest.Options{MaxNodes: 10, Snapshots: 2}, irtest.MoarVMOptions{V2: true})
	return append(out, encodeV2(f))
}

// TestReadV2 reads version 2 files written from random heaps back to the
// same heap.
func TestReadV2(t *testing.T) {
	for seed := int64(1); seed <= 30; seed++ {
		f := irtest.RandomMoarVM(seed, irtest.Options{MaxNodes: 300, Snapshots: 1 + int(seed%3), Strings: irtest.AllStrings},
			irtest.MoarVMOptions{V2: true, BadRefs: seed%2 == 0})
		g, err := moarvm.Read(bytes.NewReader(encodeV2(f)), moarvm.Options{})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		f.FormatVersion = g.FormatVersion
		if d := ir.Diff(f, g, 5); len(d) > 0 {
			t.Fatalf("seed %d: read back differs:\n%s", seed, strings.Join(d, "\n"))
		}
	}
}

// FuzzRead: no input makes the reader panic, hang or return an invalid
// file; a file it reads, written as version 3 and read again, gives the
// same IR (it is a fixed point).
func FuzzRead(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := moarvm.Read(bytes.NewReader(data), moarvm.Options{})
		if err != nil {
			if !strings.Contains(err.Error(), "moarvm") {
				t.Fatalf("error without the format's name: %v", err)
			}
			return
		}
		var b bytes.Buffer
		if _, err := wmoarvm.Write(&b, g, wmoarvm.Options{}); err != nil {
			return // e.g. sizes a v3 column cannot hold; the writer says so
		}
		h, err := moarvm.Read(bytes.NewReader(b.Bytes()), moarvm.Options{})
		if err != nil {
			t.Fatalf("reading what was written: %v", err)
		}
		if moarvmir.FileOf(g).Version == 3 && moarvmir.FileOf(g).Recovery == nil {
			h.FormatVersion = g.FormatVersion
			if d := ir.Diff(g, h, 5); len(d) > 0 {
				t.Fatalf("written and read again, the file differs:\n%s", strings.Join(d, "\n"))
			}
		}
	})
}
