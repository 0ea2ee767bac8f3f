package v8

import (
	"bufio"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/devtools"
	v8ir "github.com/heapconv/heapconv/ir/v8"
)

// Options tune Write.
type Options struct {
	// Progress, if set, is called now and then with the bytes written so far.
	Progress func(written int64)
	// AsRead writes the header of a snapshot read from a V8 file as it
	// was read, without the corrections DevTools needs (HeaderLoss in
	// ir/v8): how a round trip checks that the rest came back the same.
	AsRead bool
}

// Write writes the file's single snapshot as a V8 .heapsnapshot. A snapshot
// read from a V8 file is written in that file's style, byte for byte, but
// for a header value DevTools cannot load, which is corrected and named in
// the returned report (a trace_function_count that does not count the
// functions, as Node 20's inspector writes it); any other snapshot is first
// converted (see Convert) and the report says what the conversion could
// not carry.
func Write(w io.Writer, f *ir.File, opts Options) (ir.LossReport, error) {
	if len(f.Snapshots) != 1 {
		return nil, fmt.Errorf("v8: a .heapsnapshot holds one snapshot; this file has %d (select one with ir.File.Select)", len(f.Snapshots))
	}
	var loss ir.LossReport
	if v := v8ir.Of(f.Snapshots[0]); v == nil {
		var err error
		if f, loss, err = devtools.Convert(f); err != nil {
			return loss, err
		}
	} else if !opts.AsRead {
		loss = v.HeaderLoss()
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	sw := &serializer{w: bw, f: f, s: f.Snapshots[0], opts: opts}
	if err := sw.write(); err != nil {
		return loss, err
	}
	return loss, bw.Flush()
}

type serializer struct {
	w       *bufio.Writer
	f       *ir.File
	s       *ir.Snapshot
	v       *v8ir.Snapshot
	opts    Options
	b       []byte // pending output
	written int64
	rows    bool // V8 ≤ 12 layout: newline after each row and string
}

// flush writes the pending bytes when enough have gathered.
func (w *serializer) flush(force bool) error {
	if len(w.b) < 1<<20 && !force {
		return nil
	}
	n, err := w.w.Write(w.b)
	w.written += int64(n)
	w.b = w.b[:0]
	if w.opts.Progress != nil {
		w.opts.Progress(w.written)
	}
	return err
}

func (w *serializer) write() error {
	w.v = v8ir.Of(w.s)
	w.rows = w.v.Layout == v8ir.LayoutRows
	w.b = make([]byte, 0, 1<<21)
	w.b = append(w.b, '{')
	for i, k := range w.v.Keys {
		if i > 0 {
			w.b = append(w.b, ",\n"...)
		}
		w.b = appendString(w.b, k.Name, w.v.Escape)
		w.b = append(w.b, ':')
		if k.Value != nil {
			w.b = k.Value.AppendJSON(w.b, w.esc)
			continue
		}
		var err error
		switch k.Name {
		case v8ir.KeySnapshot:
			w.header()
		case v8ir.KeyNodes:
			err = w.nodes()
		case v8ir.KeyEdges:
			err = w.edges()
		case v8ir.KeyTraceFunctionInfos:
			err = w.flat(&w.v.TraceFunctionInfos, v8ir.RowWidth(w.v, v8ir.KeyTraceFunctionInfos))
		case v8ir.KeyTraceTree:
			err = w.traceTree()
		case v8ir.KeySamples:
			err = w.flat(&w.v.Samples, v8ir.RowWidth(w.v, v8ir.KeySamples))
		case v8ir.KeyLocations:
			err = w.locations()
		case v8ir.KeyStrings:
			err = w.strings()
		default:
			return fmt.Errorf("v8: key %q has no value", k.Name)
		}
		if err != nil {
			return err
		}
	}
	w.b = append(w.b, '}')
	return w.flush(true)
}

func (w *serializer) esc(b []byte, s string) []byte { return appendString(b, s, w.v.Escape) }

// header writes the snapshot object with node_count and edge_count taken
// from the graph, and trace_function_count from the function infos when
// it does not count them (unless AsRead).
func (w *serializer) header() {
	h := w.v.Header
	h.Fields = append([]ir.JSONField(nil), h.Fields...)
	h.Set(v8ir.HeaderNodeCount, ir.JSONNum(int64(w.s.Nodes.Len())))
	h.Set(v8ir.HeaderEdgeCount, ir.JSONNum(int64(w.s.Edges.Len())))
	if _, wrong := w.v.TraceFunctionCountWrong(); wrong && !w.opts.AsRead {
		h.Set(v8ir.HeaderTraceFunctionCount, ir.JSONNum(int64(w.v.TraceFunctions())))
	}
	w.b = h.AppendJSON(w.b, w.esc)
}

func (w *serializer) nodes() error {
	fields := w.v.MetaList(v8ir.MetaNodeFields)
	nd := &w.s.Nodes
	extra := map[string]*ir.Uints{}
	for i := range w.v.NodeExtra {
		extra[w.v.NodeExtra[i].Name] = &w.v.NodeExtra[i].Values
	}
	type col struct {
		u32 []uint32
		u8  []uint8
		u   *ir.Uints
		fe  bool
	}
	cols := make([]col, len(fields))
	for i, f := range fields {
		switch f {
		case v8ir.NodeType:
			cols[i].u8 = nd.Kind
		case v8ir.NodeName:
			cols[i].u32 = nd.Name
		case v8ir.NodeID:
			cols[i].u = &nd.ID
		case v8ir.NodeSelfSize:
			cols[i].u = &nd.SelfSize
		case v8ir.NodeEdgeCount:
			cols[i].fe = true
		default:
			if extra[f] == nil {
				return fmt.Errorf("v8: node field %q has no column", f)
			}
			cols[i].u = extra[f]
		}
	}
	w.b = append(w.b, '[')
	err := w.rowsParallel(nd.Len(), func(b []byte, lo, hi int) []byte {
		for i := lo; i < hi; i++ {
			if i > 0 {
				b = append(b, ',')
			}
			for j := range cols {
				if j > 0 {
					b = append(b, ',')
				}
				c := &cols[j]
				var v uint64
				switch {
				case c.u8 != nil:
					v = uint64(c.u8[i])
				case c.u32 != nil:
					v = uint64(c.u32[i])
				case c.fe:
					v = uint64(nd.FirstEdge[i+1] - nd.FirstEdge[i])
				default:
					v = c.u.At(i)
				}
				b = strconv.AppendUint(b, v, 10)
			}
			if w.rows {
				b = append(b, '\n')
			}
		}
		return b
	})
	w.b = append(w.b, ']')
	return err
}

func (w *serializer) edges() error {
	fields := w.v.MetaList(v8ir.MetaEdgeFields)
	ed := &w.s.Edges
	nf := uint64(len(w.v.MetaList(v8ir.MetaNodeFields)))
	extra := map[string]*ir.Uints{}
	for i := range w.v.EdgeExtra {
		extra[w.v.EdgeExtra[i].Name] = &w.v.EdgeExtra[i].Values
	}
	const (
		fType = iota
		fName
		fTo
		fExtra
	)
	role := make([]int, len(fields))
	ext := make([]*ir.Uints, len(fields))
	for i, f := range fields {
		switch f {
		case v8ir.EdgeType:
			role[i] = fType
		case v8ir.EdgeNameOrIndex:
			role[i] = fName
		case v8ir.EdgeToNode:
			role[i] = fTo
		default:
			if extra[f] == nil {
				return fmt.Errorf("v8: edge field %q has no column", f)
			}
			role[i], ext[i] = fExtra, extra[f]
		}
	}
	w.b = append(w.b, '[')
	err := w.rowsParallel(ed.Len(), func(b []byte, lo, hi int) []byte {
		for e := lo; e < hi; e++ {
			if e > 0 {
				b = append(b, ',')
			}
			for j, r := range role {
				if j > 0 {
					b = append(b, ',')
				}
				var v uint64
				switch r {
				case fType:
					v = uint64(ed.Kind[e])
				case fName:
					v = uint64(ed.Name[e])
				case fTo:
					v = uint64(ed.Target[e]) * nf
				default:
					v = ext[j].At(e)
				}
				b = strconv.AppendUint(b, v, 10)
			}
			if w.rows {
				b = append(b, '\n')
			}
		}
		return b
	})
	w.b = append(w.b, ']')
	return err
}

// rowsChunk is how many rows one formatting job covers.
const rowsChunk = 1 << 15

// rowsParallel formats rows [0, n) with format, in chunks spread over the
// cores, and writes the chunks in order.
func (w *serializer) rowsParallel(n int, format func(b []byte, lo, hi int) []byte) error {
	if err := w.flush(true); err != nil {
		return err
	}
	workers := max(1, runtime.GOMAXPROCS(0))
	if n < 4*rowsChunk || workers == 1 {
		w.b = format(w.b, 0, n)
		return w.flush(false)
	}
	type job struct {
		lo, hi int
		out    chan []byte
	}
	jobs := make(chan job, 2*workers)
	pending := make(chan job, 2*workers)
	free := make(chan []byte, 4*workers) // formatted buffers, reused
	for i := 0; i < workers; i++ {
		go func() {
			for j := range jobs {
				var b []byte
				select {
				case b = <-free:
				default:
				}
				j.out <- format(b[:0], j.lo, j.hi)
			}
		}()
	}
	go func() {
		for lo := 0; lo < n; lo += rowsChunk {
			j := job{lo, min(lo+rowsChunk, n), make(chan []byte, 1)}
			pending <- j
			jobs <- j
		}
		close(jobs)
		close(pending)
	}()
	var err error
	for j := range pending {
		b := <-j.out
		if err == nil {
			var k int
			k, err = w.w.Write(b)
			w.written += int64(k)
			if w.opts.Progress != nil {
				w.opts.Progress(w.written)
			}
		}
		select {
		case free <- b:
		default:
		}
	}
	return err
}

// flat writes a flat number array in rows of width values.
func (w *serializer) flat(c *ir.Uints, width int) error {
	w.b = append(w.b, '[')
	for i := 0; i < c.Len(); i++ {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.b = strconv.AppendUint(w.b, c.At(i), 10)
		if w.rows && width > 0 && (i+1)%width == 0 {
			w.b = append(w.b, '\n')
		}
		if err := w.flush(false); err != nil {
			return err
		}
	}
	w.b = append(w.b, ']')
	return nil
}

func (w *serializer) locations() error {
	lf := w.v.MetaList(v8ir.MetaLocationFields)
	nf := uint64(len(w.v.MetaList(v8ir.MetaNodeFields)))
	loc := &w.v.Locations
	w.b = append(w.b, '[')
	for i := 0; i < loc.Len(); i++ {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		v := loc.At(i)
		if slices.Contains(v8ir.LocationNodeFields, lf[i%len(lf)]) {
			v *= nf
		}
		w.b = strconv.AppendUint(w.b, v, 10)
		if w.rows && (i+1)%len(lf) == 0 {
			w.b = append(w.b, '\n')
		}
		if err := w.flush(false); err != nil {
			return err
		}
	}
	w.b = append(w.b, ']')
	return nil
}

// traceTree writes the flattened trace tree back as nested arrays.
func (w *serializer) traceTree() error {
	tt := &w.v.TraceTree
	if tt.Len() == 0 {
		w.b = append(w.b, "[]"...)
		return nil
	}
	nf := len(w.v.MetaList(v8ir.MetaTraceNodeFields))
	pos := 0
	var list func(depth int) error
	list = func(depth int) error {
		if pos >= tt.Len() || depth > 10000 {
			return fmt.Errorf("v8: malformed trace tree")
		}
		n := int(tt.At(pos))
		pos++
		w.b = append(w.b, '[')
		for i := 0; i < n; i++ {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			for f := 0; f < nf-1; f++ {
				if pos >= tt.Len() {
					return fmt.Errorf("v8: malformed trace tree")
				}
				w.b = strconv.AppendUint(w.b, tt.At(pos), 10)
				w.b = append(w.b, ',')
				pos++
			}
			if err := list(depth + 1); err != nil {
				return err
			}
		}
		w.b = append(w.b, ']')
		return w.flush(false)
	}
	return list(0)
}

func (w *serializer) strings() error {
	w.b = append(w.b, '[')
	for i, s := range w.f.Strings {
		if i > 0 {
			w.b = append(w.b, ',')
			if w.rows {
				w.b = append(w.b, '\n')
			}
		}
		w.b = appendString(w.b, s, w.v.Escape)
		if err := w.flush(false); err != nil {
			return err
		}
	}
	w.b = append(w.b, ']')
	return nil
}
