package irstream

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/irtest"
	v8ir "github.com/heapconv/heapconv/ir/v8"

	"github.com/vmihailenco/msgpack/v5"
)

// planBase decides how snapshot idx of f is stored, as the encoder does
// (planBaseOf).
func planBase(f *ir.File, idx int) *basing {
	if idx == 0 {
		return nil
	}
	return planBaseOf(f.Snapshots[idx-1], f.Snapshots[idx], idx)
}

// evolve returns the next snapshot of s's process, as a heap changes
// between two snapshots: s's nodes in another order (a block reversed),
// some gone (and the edges to them), a few sizes and edge targets
// changed, and new nodes with new ids, each with an edge to the root.
// s is V8-shaped with a V8 section (its extra node and edge columns are
// carried along), without locations or traces.
func evolve(s *ir.Snapshot, r *rand.Rand) *ir.Snapshot {
	n := s.Nodes.Len()
	var order []int
	order = append(order, 0)
	lo, hi := 1+r.IntN(max(n-1, 1)), n
	for i := 1; i < lo && i < n; i++ {
		order = append(order, i)
	}
	for i := hi - 1; i >= lo; i-- {
		order = append(order, i)
	}
	order = slices.DeleteFunc(order, func(i int) bool { return i != 0 && r.IntN(8) == 0 })
	at := make([]int, n)
	for i := range at {
		at[i] = -1
	}
	for k, i := range order {
		at[i] = k
	}
	sec := s.Section(v8ir.SectionName).(*v8ir.Snapshot)
	out := *s
	t := &out
	t.Nodes, t.Edges, t.Values = ir.Nodes{}, ir.Edges{}, ir.Values{}
	nsec := *sec
	nsec.NodeExtra = slices.Clone(sec.NodeExtra)
	nsec.EdgeExtra = slices.Clone(sec.EdgeExtra)
	for k := range nsec.NodeExtra {
		nsec.NodeExtra[k].Values = ir.Uints{}
	}
	for k := range nsec.EdgeExtra {
		nsec.EdgeExtra[k].Values = ir.Uints{}
	}
	var maxID uint64
	for i := range n {
		maxID = max(maxID, s.Nodes.ID.At(i))
	}
	t.Nodes.FirstEdge = []uint32{0}
	addEdge := func(kind uint8, name, target uint32, from int) {
		t.Edges.Kind = append(t.Edges.Kind, kind)
		t.Edges.Name = append(t.Edges.Name, name)
		t.Edges.Target = append(t.Edges.Target, target)
		for k := range nsec.EdgeExtra {
			v := uint64(0)
			if from >= 0 {
				v = sec.EdgeExtra[k].Values.At(from)
			}
			nsec.EdgeExtra[k].Values.Append(v)
		}
	}
	for _, i := range order {
		size := s.Nodes.SelfSize.At(i)
		if r.IntN(20) == 0 {
			size += 8
		}
		t.Nodes.Kind = append(t.Nodes.Kind, s.Nodes.Kind[i])
		t.Nodes.Name = append(t.Nodes.Name, s.Nodes.Name[i])
		t.Nodes.ID.Append(s.Nodes.ID.At(i))
		t.Nodes.SelfSize.Append(size)
		for k := range nsec.NodeExtra {
			nsec.NodeExtra[k].Values.Append(sec.NodeExtra[k].Values.At(i))
		}
		lo, hi := s.Nodes.EdgeRange(i)
		for e := lo; e < hi; e++ {
			target := at[s.Edges.Target[e]]
			if target < 0 {
				continue
			}
			if r.IntN(30) == 0 {
				target = r.IntN(len(order))
			}
			addEdge(s.Edges.Kind[e], s.Edges.Name[e], uint32(target), e)
		}
		t.Nodes.FirstEdge = append(t.Nodes.FirstEdge, uint32(t.Edges.Len()))
	}
	for k := range 1 + r.IntN(5) {
		t.Nodes.Kind = append(t.Nodes.Kind, s.Nodes.Kind[0])
		t.Nodes.Name = append(t.Nodes.Name, s.Nodes.Name[0])
		t.Nodes.ID.Append(maxID + 2*uint64(k+1))
		t.Nodes.SelfSize.Append(uint64(16 * (k + 1)))
		for j := range nsec.NodeExtra {
			nsec.NodeExtra[j].Values.Append(0)
		}
		if s.Edges.Len() > 0 {
			addEdge(s.Edges.Kind[0], s.Edges.Name[0], 0, -1)
		}
		t.Nodes.FirstEdge = append(t.Nodes.FirstEdge, uint32(t.Edges.Len()))
	}
	// Half the time the root takes another node's id and that node the
	// root's: the base's node 0 is then not this one's node 0, which a
	// decoder that took a missing base value for node 0 gets wrong.
	if k := len(order) - 1; k > 0 && r.IntN(2) == 0 {
		id0, idk := t.Nodes.ID.At(0), t.Nodes.ID.At(k)
		t.Nodes.ID.Set(0, idk)
		t.Nodes.ID.Set(k, id0)
	}
	t.Sections = []ir.Section{&nsec}
	return t
}

// TestBase stores snapshots against the one before (node.base and based
// columns) and reads them back: a process's snapshots one after another,
// reordered, pruned and grown, with V8's extra node and edge columns.
func TestBase(t *testing.T) {
	for seed := range int64(16) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			o := irtest.V8Shaped(2, 120)
			o.V8 = &irtest.V8Options{Layout: v8ir.LayoutRows, Escape: v8ir.EscapeV8, TraceNodeID: true, Detachedness: true, EdgeExtra: seed%2 == 0}
			f := irtest.Random(seed, o)
			r := rand.New(rand.NewPCG(uint64(seed), 7))
			for range 3 {
				f.Snapshots = append(f.Snapshots, evolve(f.Snapshots[len(f.Snapshots)-1], r))
			}
			if err := f.Validate(); err != nil {
				t.Fatalf("the evolved file is not valid: %v", err)
			}
			based := 0
			for i := range f.Snapshots {
				if p := planBase(f, i); p != nil && len(p.order) > 0 {
					based++
				}
			}
			if based == 0 {
				t.Fatalf("no snapshot is stored against a base")
			}
			var buf bytes.Buffer
			if err := Encode(&buf, f); err != nil {
				t.Fatal(err)
			}
			back, err := Decode(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatalf("reading back: %v", err)
			}
			if d := ir.Diff(f, back, 5); len(d) > 0 {
				t.Fatalf("read back differs:\n%v", d)
			}
		})
	}
}

// basedStream returns a stream of three snapshots, the second and third
// stored against the one before, as its records.
func basedStream(t *testing.T) []any {
	t.Helper()
	o := irtest.V8Shaped(20, 40)
	o.V8 = &irtest.V8Options{Layout: v8ir.LayoutRows, Escape: v8ir.EscapeV8, TraceNodeID: true}
	f := irtest.Random(3, o)
	r := rand.New(rand.NewPCG(3, 7))
	for range 2 {
		f.Snapshots = append(f.Snapshots, evolve(f.Snapshots[len(f.Snapshots)-1], r))
	}
	var buf bytes.Buffer
	if err := Encode(&buf, f); err != nil {
		t.Fatal(err)
	}
	dec := msgpack.NewDecoder(&buf)
	var recs []any
	for buf.Len() > 0 {
		v, err := dec.DecodeInterface()
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, v)
	}
	if p := planBase(f, 1); p == nil || !slices.Contains(p.order, "node.name") {
		t.Fatal("snapshot 1 is not stored against snapshot 0 with node.name based")
	}
	return recs
}

func encodeRecords(t *testing.T, recs []any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	for _, r := range recs {
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// snapshotRecord returns the fields and declarations of snapshot n's record.
func snapshotRecord(recs []any, n int) (map[string]any, []any) {
	for _, r := range recs {
		if a, ok := r.([]any); ok && len(a) == 3 && a[0] == "snapshot" {
			if n == 0 {
				return a[1].(map[string]any), a[2].([]any)
			}
			n--
		}
	}
	return nil, nil
}

// colRecords returns the col records of a column of snapshot n.
func colRecords(recs []any, n int, name string) [][]any {
	var out [][]any
	for _, r := range recs {
		if a, ok := r.([]any); ok && len(a) >= 4 && a[0] == "col" && a[2] == name && fmt.Sprint(a[1]) == fmt.Sprint(n) {
			out = append(out, a)
		}
	}
	return out
}

// TestBaseRefused checks that the decoder refuses a snapshot stored
// against a base that breaks the rules (SPEC.md, Snapshots stored against
// a base).
func TestBaseRefused(t *testing.T) {
	cases := []struct {
		name    string
		breakIt func(t *testing.T, recs []any) []any
		want    string
	}{
		{"base not earlier", func(t *testing.T, recs []any) []any {
			fields, _ := snapshotRecord(recs, 1)
			fields["base"] = 1
			return recs
		}, "not an earlier snapshot"},
		{"based column not declared", func(t *testing.T, recs []any) []any {
			fields, _ := snapshotRecord(recs, 1)
			fields["based"] = append(fields["based"].([]any), "no.such")
			return recs
		}, "no.such is named as based"},
		{"based column of the value table", func(t *testing.T, recs []any) []any {
			fields, _ := snapshotRecord(recs, 1)
			fields["based"] = append(fields["based"].([]any), "value.kind")
			return recs
		}, "value.kind is named as based"},
		{"based column named twice", func(t *testing.T, recs []any) []any {
			fields, _ := snapshotRecord(recs, 1)
			fields["based"] = append(fields["based"].([]any), "node.name")
			return recs
		}, "twice"},
		{"based columns without a base", func(t *testing.T, recs []any) []any {
			fields, _ := snapshotRecord(recs, 1)
			delete(fields, "base")
			return recs
		}, "without a base"},
		{"a base without node.base", func(t *testing.T, recs []any) []any {
			fields, decls := snapshotRecord(recs, 1)
			_ = fields
			for i, d := range decls {
				if d.([]any)[0] == "node.base" {
					decls = slices.Delete(decls, i, i+1)
					break
				}
			}
			for _, r := range recs {
				if a, ok := r.([]any); ok && len(a) == 3 && a[0] == "snapshot" && len(a[2].([]any)) == len(decls)+1 {
					a[2] = decls
					break
				}
			}
			return recs
		}, "node.base"},
		{"node.base names a base node twice", func(t *testing.T, recs []any) []any {
			c := colRecords(recs, 1, "node.base")[0]
			bin := c[len(c)-1].([]byte)
			copy(bin[2:4], bin[0:2]) // delta-coded: repeat the first difference
			return recs
		}, "node.base"},
		{"node.base names a node past the base", func(t *testing.T, recs []any) []any {
			c := colRecords(recs, 1, "node.base")[0]
			bin := c[len(c)-1].([]byte)
			bin[0] = 0xfe
			return recs
		}, "node.base"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			recs := tc.breakIt(t, basedStream(t))
			_, err := Decode(bytes.NewReader(encodeRecords(t, recs)))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
	// Unchanged, the records read.
	if _, err := Decode(bytes.NewReader(encodeRecords(t, basedStream(t)))); err != nil {
		t.Fatalf("the records re-encoded: %v", err)
	}
}
