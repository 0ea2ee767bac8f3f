package dart_test

import (
	"bytes"
	"math"
	"testing"

	dartir "github.com/heapconv/heapconv/ir/dart"

	"github.com/heapconv/heapconv/internal/dartgen"
	"github.com/heapconv/heapconv/ir"
	rdart "github.com/heapconv/heapconv/readers/dart"
	wdart "github.com/heapconv/heapconv/writers/dart"
)

// TestAgainstGenerator reads realistic heaps of every generation, written
// independently of this package by internal/dartgen, and checks every
// class, object, reference, payload, hash and external property against the
// generator's own record of them; then writes them back byte for byte.
func TestAgainstGenerator(t *testing.T) {
	for _, gen := range []dartgen.Generation{dartgen.GenVM, dartgen.GenVMNoHash, dartgen.GenDevToolsExport} {
		t.Run(gen.String(), func(t *testing.T) {
			h, err := dartgen.Build(dartgen.Options{Seed: 7, Objects: 20000, Generation: gen, Isolates: 2})
			if err != nil {
				t.Fatal(err)
			}
			var file bytes.Buffer
			if _, err := h.WriteTo(&file); err != nil {
				t.Fatal(err)
			}
			f, err := rdart.Read(bytes.NewReader(file.Bytes()), rdart.Options{})
			if err != nil {
				t.Fatal(err)
			}
			s := f.Snapshots[0]
			classes := h.Classes()
			if f.Classes.Len() != len(classes) {
				t.Fatalf("%d classes, generator wrote %d", f.Classes.Len(), len(classes))
			}
			for k, c := range classes {
				lo, hi := f.Classes.FirstField[k], f.Classes.FirstField[k+1]
				if f.String(f.Classes.Name[k]) != c.Name || f.String(f.Classes.Library[k]) != c.LibraryName ||
					f.String(dartir.Of(s).ClassURI[k]) != c.LibraryURI || int(hi-lo) != len(c.Fields) {
					t.Fatalf("class %d: %q %q %q %d fields, want %+v", k+1, f.String(f.Classes.Name[k]),
						f.String(f.Classes.Library[k]), f.String(dartir.Of(s).ClassURI[k]), hi-lo, c)
				}
				for j, fl := range c.Fields {
					x := int(lo) + j
					if f.String(f.Classes.FieldName[x]) != fl.Name || dartir.Of(s).FieldIndex.At(x) != uint64(fl.Index) ||
						dartir.Of(s).FieldFlags.At(x) != uint64(fl.Flags) {
						t.Fatalf("class %d field %d differs from %+v", k+1, j, fl)
					}
				}
			}
			if s.Nodes.Len() != h.NumObjects() {
				t.Fatalf("%d objects, generator wrote %d", s.Nodes.Len(), h.NumObjects())
			}
			vals := map[uint32]int{}
			for j, n := range s.Values.Node {
				vals[n] = j
			}
			for id := 1; id <= h.NumObjects(); id++ {
				o, i := h.Object(id), id-1
				if int(s.Nodes.Class[i]) != o.ClassID || s.Nodes.SelfSize.At(i) != o.ShallowSize || s.Nodes.ID.At(i) != o.IdentityHash {
					t.Fatalf("object %d: class %d size %d hash %d, want %d %d %d", id, s.Nodes.Class[i],
						s.Nodes.SelfSize.At(i), s.Nodes.ID.At(i), o.ClassID, o.ShallowSize, o.IdentityHash)
				}
				refs := references(s, i)
				if len(refs) != len(o.References) {
					t.Fatalf("object %d: %d references, want %d", id, len(refs), len(o.References))
				}
				for j := range refs {
					if refs[j] != uint64(o.References[j]) {
						t.Fatalf("object %d reference %d: %d, want %d", id, j, refs[j], o.References[j])
					}
				}
				if int(s.Nodes.Kind[i]) != int(o.Data.Tag) {
					t.Fatalf("object %d: tag %d, want %d", id, s.Nodes.Kind[i], o.Data.Tag)
				}
				j, ok := vals[uint32(i)]
				if ok != (o.Data.Tag != dartgen.NoData) {
					t.Fatalf("object %d: value present %v for tag %d", id, ok, o.Data.Tag)
				}
				if ok {
					checkGenValue(t, f, s, j, id, o.Data)
				}
			}
			ext := h.ExternalProperties()
			if len(ext) != len(dartir.Of(s).ExternalNode) {
				t.Fatalf("%d external properties, want %d", len(dartir.Of(s).ExternalNode), len(ext))
			}
			for k, e := range ext {
				if int(dartir.Of(s).ExternalNode[k])+1 != e.Object || dartir.Of(s).ExternalSize.At(k) != e.Size || f.String(dartir.Of(s).ExternalName[k]) != e.Name {
					t.Fatalf("external property %d differs from %+v", k, e)
				}
			}
			var back bytes.Buffer
			if _, err := wdart.Write(&back, f, wdart.Options{}); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(back.Bytes(), file.Bytes()) {
				t.Errorf("written back: %d bytes, not the generator's %d", back.Len(), file.Len())
			}
		})
	}
}

func checkGenValue(t *testing.T, f *ir.File, s *ir.Snapshot, j, id int, d dartgen.Data) {
	t.Helper()
	v := &s.Values
	switch d.Tag {
	case dartgen.IntData:
		if int64(v.Bits[j]) != d.Int {
			t.Fatalf("object %d: int %d, want %d", id, int64(v.Bits[j]), d.Int)
		}
	case dartgen.DoubleData:
		if got := math.Float64frombits(v.Bits[j]); got != d.Float && !(math.IsNaN(got) && math.IsNaN(d.Float)) {
			t.Fatalf("object %d: double %v, want %v", id, got, d.Float)
		}
	case dartgen.LengthData, dartgen.BoolData:
		if v.Bits[j] != uint64(d.Int) {
			t.Fatalf("object %d: %d, want %d", id, v.Bits[j], d.Int)
		}
	case dartgen.NameData:
		if f.String(uint32(v.Bits[j])) != d.Name {
			t.Fatalf("object %d: name %q, want %q", id, f.String(uint32(v.Bits[j])), d.Name)
		}
	case dartgen.NullData:
	default: // strings: the full length and every stored code unit
		str := f.String(uint32(v.Bits[j]))
		var units []uint16
		for k := 0; k < len(str); {
			r, size := ir.DecodeWTF8(str[k:])
			k += size
			if r > 0xFFFF {
				r -= 0x10000
				units = append(units, uint16(0xD800+r>>10), uint16(0xDC00+r&0x3FF))
				continue
			}
			units = append(units, uint16(r))
		}
		want := d.UTF16
		if d.Latin1 != nil || d.Tag == dartgen.DataTag(dartir.Latin1Data) {
			want = nil
			for _, b := range d.Latin1 {
				want = append(want, uint16(b))
			}
		}
		full := v.Aux[j]
		if full == 0 {
			full = uint64(len(units))
		}
		if full != uint64(d.Length) || len(units) != len(want) {
			t.Fatalf("object %d: string of %d units storing %d, want %d storing %d", id, full, len(units), d.Length, len(want))
		}
		for k := range want {
			if units[k] != want[k] {
				t.Fatalf("object %d: code unit %d is %#x, want %#x", id, k, units[k], want[k])
			}
		}
	}
}
