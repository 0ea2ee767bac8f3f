package dart_test

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"strconv"
	"testing"

	"github.com/heapconv/heapconv/internal/dartgen"
	"github.com/heapconv/heapconv/ir"
	dartir "github.com/heapconv/heapconv/ir/dart"
	rdart "github.com/heapconv/heapconv/readers/dart"
	wdart "github.com/heapconv/heapconv/writers/dart"
)

// references returns node i's reference list as the file has it: 1-origin
// object ids, with the zero references at their slots.
func references(s *ir.Snapshot, i int) []uint64 {
	lo, hi := s.Nodes.EdgeRange(i)
	var zs []uint32
	for k, n := range dartir.Of(s).ZeroRefNode {
		if n == uint32(i) {
			zs = append(zs, dartir.Of(s).ZeroRefSlot[k])
		}
	}
	total := hi - lo + len(zs)
	out := make([]uint64, 0, total)
	e := lo
	for j := 0; j < total; j++ {
		if len(zs) > 0 && zs[0] == uint32(j) {
			out = append(out, 0)
			zs = zs[1:]
			continue
		}
		out = append(out, uint64(s.Edges.Target[e])+1)
		e++
	}
	return out
}

// value returns node i's value index, or -1.
func value(s *ir.Snapshot, i int) int {
	for j, n := range s.Values.Node {
		if n == uint32(i) {
			return j
		}
	}
	return -1
}

// TestSharedSample decodes the hand-built sample of the VM layout and
// checks every value synthetic_expected.json lists.
func TestSharedSample(t *testing.T) {
	data, err := os.ReadFile("testdata/synthetic_vm_layout.dartheap")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("testdata/synthetic_expected.json")
	if err != nil {
		t.Fatal(err)
	}
	var want struct {
		Name           string
		Flags          uint64
		ClassCount     int
		ObjectCount    int
		ReferenceCount uint64
		Classes        []string
		Objects        []struct {
			ID               int
			ClassID          uint32
			Class            string
			ShallowSize      uint64
			Data             []any
			References       []uint64
			IdentityHashCode uint64
		}
		ExternalProperties []struct {
			Object       uint32
			ExternalSize uint64
			Name         string
		}
		VMFileSize int `json:"vm_file_size"`
	}
	// Data arrays mix numbers (some beyond float64's precision) and strings.
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&want); err != nil {
		t.Fatal(err)
	}
	if len(data) != want.VMFileSize {
		t.Fatalf("sample is %d bytes, expected %d", len(data), want.VMFileSize)
	}
	f, err := rdart.Read(bytes.NewReader(data), rdart.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := f.Snapshots[0]
	if got := f.String(s.Name); got != want.Name {
		t.Errorf("name %q, want %q", got, want.Name)
	}
	if dartir.Of(s).Flags != want.Flags || dartir.Of(s).ReferenceCount != want.ReferenceCount {
		t.Errorf("flags %d referenceCount %d, want %d %d", dartir.Of(s).Flags, dartir.Of(s).ReferenceCount, want.Flags, want.ReferenceCount)
	}
	if f.Classes.Len() != want.ClassCount || s.Nodes.Len() != want.ObjectCount {
		t.Fatalf("%d classes %d objects, want %d %d", f.Classes.Len(), s.Nodes.Len(), want.ClassCount, want.ObjectCount)
	}
	for k, name := range want.Classes {
		if got := f.String(f.Classes.Name[k]); got != name {
			t.Errorf("class %d: %q, want %q", k+1, got, name)
		}
	}
	for _, o := range want.Objects {
		i := o.ID - 1
		if s.Nodes.Class[i] != o.ClassID || s.Nodes.SelfSize.At(i) != o.ShallowSize || s.Nodes.ID.At(i) != o.IdentityHashCode {
			t.Errorf("object %d: class %d size %d hash %d, want %d %d %d", o.ID, s.Nodes.Class[i], s.Nodes.SelfSize.At(i), s.Nodes.ID.At(i), o.ClassID, o.ShallowSize, o.IdentityHashCode)
		}
		if got := references(s, i); !equalU64(got, o.References) {
			t.Errorf("object %d: references %v, want %v", o.ID, got, o.References)
		}
		tag, _ := strconv.Atoi(text(o.Data[0]))
		if int(s.Nodes.Kind[i]) != tag {
			t.Errorf("object %d: tag %d, want %d", o.ID, s.Nodes.Kind[i], tag)
			continue
		}
		j := value(s, i)
		if (j >= 0) != (tag != dartir.NoData) {
			t.Errorf("object %d: value %d for tag %d", o.ID, j, tag)
			continue
		}
		v := &s.Values
		switch tag {
		case dartir.IntData:
			w, _ := strconv.ParseInt(text(o.Data[1]), 10, 64)
			if int64(v.Bits[j]) != w {
				t.Errorf("object %d: int %d, want %d", o.ID, int64(v.Bits[j]), w)
			}
		case dartir.DoubleData:
			w, _ := strconv.ParseFloat(text(o.Data[1]), 64)
			if math.Float64frombits(v.Bits[j]) != w {
				t.Errorf("object %d: double %v, want %v", o.ID, math.Float64frombits(v.Bits[j]), w)
			}
		case dartir.Latin1Data, dartir.UTF16Data:
			l, _ := strconv.ParseUint(text(o.Data[1]), 10, 64)
			str := f.String(uint32(v.Bits[j]))
			full := v.Aux[j]
			if full == 0 {
				full = uint64(ir.UTF16Len(str))
			}
			if str != text(o.Data[2]) || full != l {
				t.Errorf("object %d: string %q of length %d, want %q %d", o.ID, str, full, o.Data[2], l)
			}
		case dartir.NameData:
			if got := f.String(uint32(v.Bits[j])); got != text(o.Data[1]) {
				t.Errorf("object %d: name %q, want %q", o.ID, got, o.Data[1])
			}
		case dartir.NullData:
			if v.Kind[j] != ir.ValueNull {
				t.Errorf("object %d: value kind %v, want null", o.ID, v.Kind[j])
			}
		}
	}
	d := dartir.Of(s)
	if len(d.ExternalNode) != len(want.ExternalProperties) {
		t.Fatalf("%d external properties, want %d", len(d.ExternalNode), len(want.ExternalProperties))
	}
	for k, e := range want.ExternalProperties {
		if d.ExternalNode[k]+1 != e.Object || d.ExternalSize.At(k) != e.ExternalSize || f.String(d.ExternalName[k]) != e.Name {
			t.Errorf("external property %d: %d %d %q, want %+v", k, d.ExternalNode[k]+1, d.ExternalSize.At(k), f.String(d.ExternalName[k]), e)
		}
	}
}

// text returns a decoded JSON number or string as text.
func text(x any) string {
	switch x := x.(type) {
	case json.Number:
		return x.String()
	case string:
		return x
	}
	return ""
}

func equalU64(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestExternalSizesSummed: a node's external size is the sum of its
// external properties' sizes, saturating at 2^64-1, whatever their order
// and widths; nodes without one have none.
func TestExternalSizesSummed(t *testing.T) {
	f, err := rdart.Read(bytes.NewReader(generated(t, dartgen.Options{Seed: 4, Objects: 5000})), rdart.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := f.Snapshots[0]
	d := dartir.Of(s)
	name := d.ExternalName[0]
	for _, e := range []struct {
		node uint32
		size uint64
	}{{5, 10}, {7, math.MaxUint64 - 1}, {5, 20}, {9, 1 << 40}, {7, 5}, {11, 300}, {5, 0}} {
		d.ExternalNode = append(d.ExternalNode, e.node)
		d.ExternalSize.Append(e.size)
		d.ExternalName = append(d.ExternalName, name)
	}
	var out bytes.Buffer
	if _, err := wdart.Write(&out, f, wdart.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, split := range []bool{false, true} {
		restore := rdart.SetSplit(math.MaxUint64, nil, nil)
		if split {
			restore()
			restore = rdart.SetSplit(1, nil, nil)
		}
		g, err := rdart.Read(bytes.NewReader(out.Bytes()), rdart.Options{})
		restore()
		if err != nil {
			t.Fatal(err)
		}
		gs := g.Snapshots[0]
		gd := dartir.Of(gs)
		want := make([]uint64, gs.Nodes.Len())
		for k, node := range gd.ExternalNode {
			want[node] = ir.SatAdd(want[node], gd.ExternalSize.At(k))
		}
		if want[5] != 30+externalOf(d, 5) || want[7] != math.MaxUint64 || want[9] < 1<<40 {
			t.Fatalf("the file's external properties are not those added: %d %d %d", want[5], want[7], want[9])
		}
		for i, w := range want {
			if got := gs.Nodes.ExternalSize.At(i); got != w {
				t.Fatalf("split %v: node %d: external size %d, want %d", split, i, got, w)
			}
		}
	}
}

// externalOf returns the sizes of node's external properties in d, but for
// the last seven, summed.
func externalOf(d *dartir.Snapshot, node uint32) uint64 {
	var sum uint64
	for k, n := range d.ExternalNode[:len(d.ExternalNode)-7] {
		if n == node {
			sum += d.ExternalSize.At(k)
		}
	}
	return sum
}
