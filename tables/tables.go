// Package tables writes heaps as relational tables in Apache Parquet, for
// query engines that know nothing of heapconv: DuckDB on a laptop, Spark,
// Trino or BigQuery on a cluster.
//
// Write puts one Parquet file per table in a directory: files, snapshots,
// nodes, edges, classes, strings, roots and, for a heap that has allocation
// stacks, stacks. Every row carries the file id the caller chose and the
// snapshot's index, so that the tables of many files (each written to a
// directory of its own) union into one dataset: read_parquet('*/nodes.parquet')
// in DuckDB. The schema is described in docs/tables.md; Schema lists it.
//
// The tables hold the model every format shares (nodes, edges, classes as
// heapconv info counts them, roots, stacks), and the dominator tree that
// heapconv info --by retained computes: each node's immediate dominator and
// retained size, each class's retained size (analysis.NodeRetained). What
// only one format has (its IR section) stays in the IR, and Write's loss
// report names it.
package tables

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/analysis"
)

// Options adjust Write. The zero value writes file id "heap".
type Options struct {
	// FileID is every row's file_id: what tells this file's rows from
	// another's once the tables of many files are read together.
	FileID string
	// Source is what files.source records (the input's name).
	Source string
	// Snapshots, when set, lists the snapshots to write (by their number
	// in the file, which their rows keep); nil writes them all.
	Snapshots []int
}

// FileRow is a row of the files table: one per Write.
type FileRow struct {
	FileID        string `parquet:"file_id"`
	Source        string `parquet:"source"`
	Format        string `parquet:"format"`
	FormatVersion string `parquet:"format_version"`
	Producer      string `parquet:"producer"`
	Snapshots     int32  `parquet:"snapshots"`
	Strings       int64  `parquet:"strings"`
}

// SnapshotRow is a row of the snapshots table.
type SnapshotRow struct {
	FileID       string `parquet:"file_id,dict"`
	Snapshot     int32  `parquet:"snapshot"`
	Name         string `parquet:"name"`
	Nodes        int64  `parquet:"nodes"`
	Edges        int64  `parquet:"edges"`
	SelfSize     uint64 `parquet:"self_size"`
	ExternalSize uint64 `parquet:"external_size"`
	// Root is the root node's index, null for a snapshot without one.
	Root *int64 `parquet:"root,optional"`
	// CaptureTime is when the snapshot was taken, in nanoseconds since
	// the Unix epoch (0 when the format does not say).
	CaptureTime int64 `parquet:"capture_time"`
	// Identity says what the nodes' ids identify across snapshots of one
	// process (ir.ObjectIdentities), "" when nothing.
	Identity string `parquet:"identity"`
}

// NodeRow is a row of the nodes table: one per node.
type NodeRow struct {
	FileID   string `parquet:"file_id"`
	Snapshot int32  `parquet:"snapshot"`
	// Node is the node's index in its snapshot, which edges and roots
	// refer to.
	Node int64  `parquet:"node,delta"`
	ID   uint64 `parquet:"id,delta"`
	Kind string `parquet:"kind"`
	Name string `parquet:"name"`
	// Class is the node's row in the classes table, null for a node the
	// class summary does not count (a V8 node DevTools shows no size for).
	Class *int32 `parquet:"class,optional"`
	// SelfSize is the node's own size as the file has it; CountedSize the
	// size the class summary counts for it (for V8, DevTools' Summary
	// size, which moves an owned array's size to its owner; elsewhere the
	// same as SelfSize).
	SelfSize     uint64 `parquet:"self_size"`
	CountedSize  uint64 `parquet:"counted_size"`
	ExternalSize uint64 `parquet:"external_size"`
	Edges        int64  `parquet:"edge_count"`
	// Objects is how many objects the node stands for: 1, but for a
	// Fuchsia profile's sample, which counts the allocations it merges
	// (ir.ObjectCounts); the classes table counts these.
	Objects uint64 `parquet:"objects"`
	// Dominator is the node's immediate dominator in the dominator tree
	// heapconv info --by retained uses (analysis.NodeRetained): the
	// nearest node every path from the root to this one passes through.
	// It is null for the root, for a node only the GC roots as a whole
	// dominate (in a snapshot that lists its roots without a root node),
	// and for every node of a snapshot that has neither. Nodes the root
	// cannot reach are hung from it, as DevTools does.
	Dominator *int64 `parquet:"dominator,optional"`
	// RetainedSize is the memory the node keeps alive: its own size and
	// that of every node it dominates (for V8 DevTools' figure); null
	// for a snapshot without a dominator tree.
	RetainedSize *uint64 `parquet:"retained_size,optional"`
}

// EdgeRow is a row of the edges table: one per edge.
type EdgeRow struct {
	FileID   string `parquet:"file_id"`
	Snapshot int32  `parquet:"snapshot"`
	// Edge is the edge's index in its snapshot; From and To node indices.
	Edge int64  `parquet:"edge,delta"`
	From int64  `parquet:"from_node,delta"`
	To   int64  `parquet:"to_node"`
	Kind string `parquet:"kind"`
	// Name is the edge's name; for an edge named by an index (an array
	// element) it is null and Index is set.
	Name  *string `parquet:"name,optional"`
	Index *int64  `parquet:"index,optional"`
}

// ClassRow is a row of the classes table: the classes heapconv info counts
// (for V8, DevTools' Summary rows), with their count and the sum of their
// nodes' counted sizes.
type ClassRow struct {
	FileID   string `parquet:"file_id,dict"`
	Snapshot int32  `parquet:"snapshot"`
	Class    int32  `parquet:"class"`
	Name     string `parquet:"name"`
	// ScriptID, Line and Column locate a V8 class DevTools splits by
	// allocation location (zero-based); null otherwise.
	ScriptID *int64 `parquet:"script_id,optional"`
	Line     *int64 `parquet:"line,optional"`
	Column   *int64 `parquet:"column,optional"`
	Count    int64  `parquet:"count"`
	SelfSize uint64 `parquet:"self_size"`
	// RetainedSize is the class's retained size as heapconv info --by
	// retained shows it (DevTools' rule): the sum of the retained sizes
	// of its nodes that count (a counted size above 0) and that no other
	// such node of the class dominates. Null for a snapshot without a
	// dominator tree.
	RetainedSize *uint64 `parquet:"retained_size,optional"`
}

// StringRow is a row of the strings table: the file's string table.
type StringRow struct {
	FileID string `parquet:"file_id,dict"`
	String int64  `parquet:"string"`
	Value  string `parquet:"value"`
}

// RootRow is a row of the roots table: one per GC root a snapshot lists.
type RootRow struct {
	FileID   string `parquet:"file_id,dict"`
	Snapshot int32  `parquet:"snapshot"`
	Node     int64  `parquet:"node"`
	Category string `parquet:"category,dict"`
}

// TotalRow is a row of the totals table: a figure a snapshot's header
// states (MoarVM's total heap size, V8's extra native bytes, …).
type TotalRow struct {
	FileID   string `parquet:"file_id,dict"`
	Snapshot int32  `parquet:"snapshot"`
	Name     string `parquet:"name,dict"`
	Value    uint64 `parquet:"value"`
}

// ValueRow is a row of the values table: the primitive value of a node
// that has one (a string's text, a number), in the column of its kind.
type ValueRow struct {
	FileID   string `parquet:"file_id,dict"`
	Snapshot int32  `parquet:"snapshot"`
	Node     int64  `parquet:"node"`
	// Kind is string, int, float, bool, length or null.
	Kind   string   `parquet:"kind,dict"`
	String *string  `parquet:"string,optional"`
	Int    *int64   `parquet:"int,optional"`
	Float  *float64 `parquet:"float,optional"`
	// FullLength is, for a string cut short in the snapshot, its length
	// in UTF-16 code units; null otherwise.
	FullLength *uint64 `parquet:"full_length,optional"`
}

// StackRow is a row of the stacks table: one frame of a node's allocation
// stack, depth 0 the innermost.
type StackRow struct {
	FileID   string `parquet:"file_id,dict"`
	Snapshot int32  `parquet:"snapshot"`
	Node     int64  `parquet:"node"`
	Depth    int32  `parquet:"depth"`
	Function string `parquet:"function,dict"`
	File     string `parquet:"file,dict"`
	Line     int64  `parquet:"line"`
	Column   int64  `parquet:"column"`
	Module   string `parquet:"module,dict"`
	Address  uint64 `parquet:"address"`
}

// Table names, each written as NAME.parquet.
const (
	Files     = "files"
	Snapshots = "snapshots"
	Nodes     = "nodes"
	Edges     = "edges"
	Classes   = "classes"
	Strings   = "strings"
	Roots     = "roots"
	Totals    = "totals"
	Values    = "values"
	Stacks    = "stacks"
)

// Names lists the tables, in the order of Schema.
func Names() []string {
	return []string{Files, Snapshots, Nodes, Edges, Classes, Strings, Roots, Totals, Values, Stacks}
}

// Schema returns each table's Parquet schema, in the order of Names.
func Schema() []*pq.Schema {
	return []*pq.Schema{
		pq.SchemaOf(FileRow{}), pq.SchemaOf(SnapshotRow{}), pq.SchemaOf(NodeRow{}), pq.SchemaOf(EdgeRow{}),
		pq.SchemaOf(ClassRow{}), pq.SchemaOf(StringRow{}), pq.SchemaOf(RootRow{}), pq.SchemaOf(TotalRow{}),
		pq.SchemaOf(ValueRow{}), pq.SchemaOf(StackRow{}),
	}
}

// batch is how many rows go to the Parquet writer at once.
const batch = 8192

// rowGroup bounds a row group, and with it the writer's buffers.
const rowGroup = 1 << 20

// noBounds lists the string columns, whose pages get no min and max:
// computing them costs a comparison per string (a third of the time of
// writing the edges), and queries prune by the numeric columns (snapshot,
// node) or by directory (each file's tables are a directory).
var noBounds = []string{"file_id", "kind", "name", "value", "string", "source", "category", "function", "file", "module", "format", "format_version", "producer", "identity"}

// table writes the rows of one table to dir/NAME.parquet.
type table[T any] struct {
	f   *os.File
	w   *pq.GenericWriter[T]
	buf []T
	err error
}

func newTable[T any](dir, name string) (*table[T], error) {
	f, err := os.Create(filepath.Join(dir, name+".parquet"))
	if err != nil {
		return nil, err
	}
	opts := []pq.WriterOption{
		pq.Compression(&zstd.Codec{Level: zstd.SpeedFastest}),
		pq.MaxRowsPerRowGroup(rowGroup),
		pq.DictionaryMaxBytes(16 << 20),
		pq.CreatedBy("heapconv", "", ""),
	}
	for _, col := range noBounds {
		opts = append(opts, pq.SkipPageBounds(col), pq.SkipPageStatistics(col))
	}
	return &table[T]{f: f, w: pq.NewGenericWriter[T](f, opts...), buf: make([]T, 0, batch)}, nil
}

// add adds a row; full reports that the batch is full, so that the caller
// may reuse what the rows point to once flush has written them.
func (t *table[T]) add(row T) (full bool) {
	t.buf = append(t.buf, row)
	if len(t.buf) == cap(t.buf) {
		t.flush()
		return true
	}
	return false
}

func (t *table[T]) flush() {
	if t.err == nil && len(t.buf) > 0 {
		_, t.err = t.w.Write(t.buf)
	}
	t.buf = t.buf[:0]
}

func (t *table[T]) close() error {
	t.flush()
	err := t.err
	if cerr := t.w.Close(); err == nil {
		err = cerr
	}
	if cerr := t.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// tableSet is the tables one goroutine writes: opened together, closed
// together.
type tableSet struct {
	closers []func() error
	err     error // the first error opening one
}

// openTable opens a table of ts; after an error (in ts.err) it opens
// nothing more and returns nil.
func openTable[T any](ts *tableSet, dir, name string) *table[T] {
	if ts.err != nil {
		return nil
	}
	t, err := newTable[T](dir, name)
	if err != nil {
		ts.err = err
		return nil
	}
	ts.closers = append(ts.closers, t.close)
	return t
}

// close closes every table opened, and says what failed.
func (ts *tableSet) close() error {
	var err error
	for _, c := range ts.closers {
		err = errors.Join(err, c())
	}
	return err
}

// Write writes f's tables into dir, which must exist, and returns what the
// tables do not hold: what each format section of the file and its
// snapshots holds that other formats cannot (ir.SectionLoss), the class
// table's field names, and the strings that were not valid UTF-8, which
// Parquet's strings must be, written with U+FFFD in place of the bad bytes.
// The edges, the largest table, and the string table are written on a
// goroutine of their own, the rest (with the dominator tree the nodes and
// classes need) on the caller's.
func Write(dir string, f *ir.File, opts *Options) (ir.LossReport, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.FileID == "" {
		o.FileID = "heap"
	}
	w := writer{f: f, o: o}
	err := w.write(dir)
	return w.loss(), err
}

type writer struct {
	f *ir.File
	o Options
	// mended counts the strings that were not UTF-8, one counter per
	// goroutine.
	mended, edgeMended mender
}

// mender makes strings valid UTF-8, counting those it had to mend.
type mender struct {
	n       int
	example string
}

func (m *mender) text(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	m.n++
	if m.example == "" {
		m.example = strconv.QuoteToASCII(s)
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// selected reports whether snapshot k is written.
func (w *writer) selected(k int) bool {
	return w.o.Snapshots == nil || slices.Contains(w.o.Snapshots, k)
}

func (w *writer) write(dir string) error {
	// The edges and strings go on their own goroutine, the rest on this
	// one: the string table there rather than here evens the two out,
	// the dominator tree being this one's.
	done := make(chan error, 1)
	go func() { done <- w.writeEdges(dir) }()
	err := w.writeRest(dir)
	return errors.Join(err, <-done)
}

// writeEdges writes the edges table and the string table.
func (w *writer) writeEdges(dir string) (err error) {
	f, id, m := w.f, w.o.FileID, &w.edgeMended
	var ts tableSet
	defer func() { err = errors.Join(err, ts.close()) }()
	edges := openTable[EdgeRow](&ts, dir, Edges)
	strs := openTable[StringRow](&ts, dir, Strings)
	if ts.err != nil {
		return ts.err
	}
	for i, s := range f.Strings {
		strs.add(StringRow{FileID: id, String: int64(i), Value: m.text(s)})
	}
	// The rows of a batch point into these, reused once it is written.
	names := make([]string, batch)
	indices := make([]int64, batch)
	k := 0
	for sn, s := range f.Snapshots {
		if !w.selected(sn) {
			continue
		}
		kinds := make([]string, len(s.EdgeKinds))
		for i, ek := range s.EdgeKinds {
			kinds[i] = m.text(ek.Name)
		}
		for i := 0; i < s.Nodes.Len(); i++ {
			lo, hi := s.Nodes.EdgeRange(i)
			for e := lo; e < hi; e++ {
				r := EdgeRow{FileID: id, Snapshot: int32(sn), Edge: int64(e), From: int64(i), To: int64(s.Edges.Target[e])}
				kind := int(s.Edges.Kind[e])
				if kind < len(kinds) {
					r.Kind = kinds[kind]
				}
				if kind < len(s.EdgeKinds) && s.EdgeKinds[kind].Indexed {
					indices[k] = int64(s.Edges.Name[e])
					r.Index = &indices[k]
				} else {
					names[k] = m.text(f.String(s.Edges.Name[e]))
					r.Name = &names[k]
				}
				k++
				if edges.add(r) {
					k = 0
				}
			}
		}
	}
	return nil // a write error is the table's: close reports it
}

// writeRest writes every table but the edges and the strings.
func (w *writer) writeRest(dir string) (err error) {
	f, id, m := w.f, w.o.FileID, &w.mended
	var ts tableSet
	defer func() { err = errors.Join(err, ts.close()) }()
	files := openTable[FileRow](&ts, dir, Files)
	snaps := openTable[SnapshotRow](&ts, dir, Snapshots)
	nodes := openTable[NodeRow](&ts, dir, Nodes)
	classes := openTable[ClassRow](&ts, dir, Classes)
	roots := openTable[RootRow](&ts, dir, Roots)
	totals := openTable[TotalRow](&ts, dir, Totals)
	values := openTable[ValueRow](&ts, dir, Values)
	if ts.err != nil {
		return ts.err
	}
	files.add(FileRow{FileID: id, Source: m.text(w.o.Source), Format: f.Format, FormatVersion: m.text(f.FormatVersion),
		Producer: m.text(f.Producer), Snapshots: int32(len(f.Snapshots)), Strings: int64(len(f.Strings))})
	var stacks *table[StackRow]

	for k, s := range f.Snapshots {
		if !w.selected(k) {
			continue
		}
		sn := int32(k)
		row := SnapshotRow{FileID: id, Snapshot: sn, Name: m.text(ir.SnapshotName(f, s)), Nodes: int64(s.Nodes.Len()), Edges: int64(s.Edges.Len()),
			SelfSize: s.Nodes.SelfSize.Sum(), ExternalSize: ir.ExternalSize(s), CaptureTime: s.CaptureTime}
		if s.Root != ir.NoNode {
			r := int64(s.Root)
			row.Root = &r
		}
		if ids := ir.Identities(s); ids != nil {
			row.Identity = ids.IdentityKind()
		}
		snaps.add(row)

		rows, of, counted, tree, err := analysis.NodeRetained(f, s)
		if err != nil {
			return err
		}
		for c, r := range rows {
			cr := ClassRow{FileID: id, Snapshot: sn, Class: int32(c), Name: m.text(r.Name), Count: int64(r.Count), SelfSize: r.SelfSize}
			if tree != nil {
				cr.RetainedSize = r.Retained
			}
			if l := r.Location; l != nil {
				sid, line, col := int64(l.ScriptID), int64(l.Line), int64(l.Column)
				cr.ScriptID, cr.Line, cr.Column = &sid, &line, &col
			}
			classes.add(cr)
		}
		kinds := make([]string, len(s.NodeKinds))
		for i, name := range s.NodeKinds {
			kinds[i] = m.text(name)
		}
		hasExt := s.Nodes.ExternalSize.Len() > 0
		classIdx := make([]int32, len(rows)) // what the rows' class pointers point to
		for c := range classIdx {
			classIdx[c] = int32(c)
		}
		objects := ir.ObjectCounts(s)
		n := s.Nodes.Len()
		// The rows of a batch point into these, reused once it is written.
		doms := make([]int64, batch)
		retained := make([]uint64, batch)
		b := 0
		for i := 0; i < n; i++ {
			lo, hi := s.Nodes.EdgeRange(i)
			nr := NodeRow{FileID: id, Snapshot: sn, Node: int64(i), ID: s.Nodes.ID.At(i), Name: m.text(f.String(s.Nodes.Name[i])),
				SelfSize: s.Nodes.SelfSize.At(i), CountedSize: counted.At(i), Edges: int64(hi - lo), Objects: 1}
			if objects != nil {
				nr.Objects = objects(i)
			}
			if k := int(s.Nodes.Kind[i]); k < len(kinds) {
				nr.Kind = kinds[k]
			}
			if c := of[i]; c >= 0 {
				nr.Class = &classIdx[c]
			}
			if hasExt {
				nr.ExternalSize = s.Nodes.ExternalSize.At(i)
			}
			if tree != nil {
				// The root's dominator is itself; a virtual root (index n)
				// is no node of the table.
				if d := tree.IDom[i]; d != uint32(i) && int(d) < n {
					doms[b] = int64(d)
					nr.Dominator = &doms[b]
				}
				retained[b] = tree.Retained[i]
				nr.RetainedSize = &retained[b]
			}
			b++
			if nodes.add(nr) {
				b = 0
			}
		}
		for _, r := range s.Roots {
			roots.add(RootRow{FileID: id, Snapshot: sn, Node: int64(r.Node), Category: m.text(f.String(r.Category))})
		}
		for _, t := range s.Totals {
			totals.add(TotalRow{FileID: id, Snapshot: sn, Name: m.text(t.Name), Value: t.Value})
		}
		for j := range s.Values.Node {
			values.add(w.value(id, sn, &s.Values, j))
		}
		if stackOf := ir.AllocationStacks(f, s); stackOf != nil {
			if stacks == nil {
				if stacks = openTable[StackRow](&ts, dir, Stacks); ts.err != nil {
					return ts.err
				}
			}
			for i := 0; i < s.Nodes.Len(); i++ {
				for d, fr := range stackOf(i) {
					if fr.Class {
						continue
					}
					stacks.add(StackRow{FileID: id, Snapshot: sn, Node: int64(i), Depth: int32(d), Function: m.text(fr.Function), File: m.text(fr.File),
						Line: fr.Line, Column: fr.Column, Module: m.text(fr.Module), Address: fr.Address})
				}
			}
		}
	}
	return nil
}

// value returns entry j of a snapshot's values as a row.
func (w *writer) value(id string, sn int32, v *ir.Values, j int) ValueRow {
	r := ValueRow{FileID: id, Snapshot: sn, Node: int64(v.Node[j]), Kind: v.Kind[j].String()}
	bits := v.Bits[j]
	switch v.Kind[j] {
	case ir.ValueString:
		str := w.mended.text(w.f.String(uint32(bits)))
		r.String = &str
		if j < len(v.Aux) && v.Aux[j] > 0 {
			n := v.Aux[j]
			r.FullLength = &n
		}
	case ir.ValueInt, ir.ValueBool, ir.ValueLength:
		x := int64(bits)
		r.Int = &x
	case ir.ValueFloat:
		x := math.Float64frombits(bits)
		r.Float = &x
	}
	return r
}

// Target is what the tables are, as a target of conversion: they keep
// allocation stacks, and nothing of what only one format's section has.
var Target = ir.Target{Format: "parquet", Name: "Parquet tables", KeepsStacks: true}

// loss names what the tables do not hold: what each section holds that
// other formats cannot, the class table's field names, and the strings
// mended into UTF-8.
func (w *writer) loss() ir.LossReport {
	f := w.f
	r := ir.SectionLoss(f, nil, Target)
	for k, s := range f.Snapshots {
		if w.selected(k) {
			r.Merge(ir.SectionLoss(f, s, Target))
		}
	}
	if n := len(f.Classes.FieldName); n > 0 {
		r.Add(ir.LossClasses, int64(n), "the class table's field names (the classes table holds the classes as heapconv info counts them)")
	}
	if n := w.mended.n + w.edgeMended.n; n > 0 {
		example := w.mended.example
		if example == "" {
			example = w.edgeMended.example
		}
		r.Add(ir.LossValues, int64(n), "strings that were not valid UTF-8 (Parquet's strings must be) have U+FFFD in place of their bad bytes").WithExample(example)
	}
	return r
}
