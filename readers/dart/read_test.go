package dart_test

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"strconv"
	"testing"

	dartir "github.com/heapconv/heapconv/ir/dart"

	"github.com/heapconv/heapconv/ir"
	rdart "github.com/heapconv/heapconv/readers/dart"
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
