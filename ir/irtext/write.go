package irtext

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/heapconv/heapconv/ir"
)

// Write writes f in the text form.
func Write(w io.Writer, f *ir.File) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	t := &writer{w: bw, f: f, first: firstIndex(f.Strings)}
	t.file()
	return bw.Flush()
}

type writer struct {
	w *bufio.Writer
	f *ir.File
	// first maps each string to its first index: a string is written
	// quoted where its index is its first, else as s<index>.
	first map[string]uint32
}

func firstIndex(strs []string) map[string]uint32 {
	m := make(map[string]uint32, len(strs))
	for i := len(strs) - 1; i >= 0; i-- {
		m[strs[i]] = uint32(i)
	}
	return m
}

func (t *writer) p(format string, args ...any) { fmt.Fprintf(t.w, format, args...) }

// str writes a string reference.
func (t *writer) str(i uint32) string {
	if int(i) < len(t.f.Strings) && t.first[t.f.Strings[i]] == i {
		return strconv.Quote(t.f.Strings[i])
	}
	return "s" + strconv.FormatUint(uint64(i), 10)
}

// kind names an entry of a kind table: quoted where the name's first
// place is the entry, else k<index>.
func kind(names []string, k int) string {
	if k < len(names) && slices.Index(names, names[k]) == k {
		return strconv.Quote(names[k])
	}
	return "k" + strconv.Itoa(k)
}

func (t *writer) file() {
	f := t.f
	q := strconv.Quote
	t.p("heapir %d\n", ir.Version)
	t.p("format %s\nformat_version %s\nproducer %s\n", q(f.Format), q(f.FormatVersion), q(f.Producer))
	t.p("strings %d\n", len(f.Strings))
	for i, s := range f.Strings {
		t.p("  s%d %s\n", i, q(s))
	}
	c := &f.Classes
	t.p("classes %d\n", c.Len())
	for k := 0; k < c.Len(); k++ {
		t.p("  c%d %s library=%s fields=[", k+1, t.str(c.Name[k]), t.str(c.Library[k]))
		for j := c.FirstField[k]; j < c.FirstField[k+1]; j++ {
			if j > c.FirstField[k] {
				t.p(" ")
			}
			t.p("%s", t.str(c.FieldName[j]))
		}
		t.p("]\n")
	}
	for _, x := range f.Sections {
		b := ir.SectionBindings(x)
		t.section("", x, b)
		t.tables("", b)
	}
	for i, s := range f.Snapshots {
		t.snapshot(i, s)
	}
}

func (t *writer) snapshot(si int, s *ir.Snapshot) {
	t.p("snapshot %d name=%s capture_time=%d\n", si, t.str(s.Name), s.CaptureTime)
	for _, x := range s.Totals {
		t.p("  total %s %d\n", strconv.Quote(x.Name), x.Value)
	}
	t.p("  node_kinds")
	for _, k := range s.NodeKinds {
		t.p(" %s", strconv.Quote(k))
	}
	t.p("\n  edge_kinds")
	for _, k := range s.EdgeKinds {
		t.p(" %s", strconv.Quote(k.Name))
		if k.Indexed {
			t.p("[i]")
		}
	}
	t.p("\n")
	if s.Root == ir.NoNode {
		t.p("  root none\n")
	} else {
		t.p("  root n%d\n", s.Root)
	}
	for _, r := range s.Roots {
		t.p("  gcroot n%d %s\n", r.Node, t.str(r.Category))
	}
	if o := s.Origin; o != nil {
		t.p("  origin strings")
		for _, k := range o.Strings {
			t.p(" s%d", k)
		}
		t.p(" classes")
		for _, k := range o.Classes {
			t.p(" c%d", k+1)
		}
		t.p("\n")
	}
	sections := make([]*ir.Bindings, len(s.Sections))
	var nodeCols, edgeCols []*ir.Column
	for k, x := range s.Sections {
		sections[k] = ir.SectionBindings(x)
		t.section("  ", x, sections[k])
		for ci := range sections[k].Columns() {
			c := &sections[k].Columns()[ci]
			if !c.Present() {
				continue
			}
			switch c.Decl.Table {
			case ir.TableNode:
				nodeCols = append(nodeCols, c)
			case ir.TableEdge:
				edgeCols = append(edgeCols, c)
			}
		}
	}
	nd := &s.Nodes
	t.p("  nodes %d edges %d values %d\n", nd.Len(), s.Edges.Len(), s.Values.Len())
	kinds := make([]string, len(s.EdgeKinds))
	for k, ek := range s.EdgeKinds {
		kinds[k] = ek.Name
	}
	vi := 0
	for i := 0; i < nd.Len(); i++ {
		t.p("  n%d %s %s id=%s self=%d", i, kind(s.NodeKinds, int(nd.Kind[i])), t.str(nd.Name[i]), ir.FormatNodeID(s, nd.ID.At(i)), nd.SelfSize.At(i))
		if len(nd.Class) > 0 {
			t.p(" class=c%d", nd.Class[i])
		}
		if nd.ExternalSize.Len() > 0 {
			t.p(" external=%d", nd.ExternalSize.At(i))
		}
		for _, c := range nodeCols {
			t.p(" %s=%s", c.Decl.Name, t.value(c, i))
		}
		for vi < s.Values.Len() && int(s.Values.Node[vi]) == i {
			t.p(" value=%s", t.valueText(&s.Values, vi))
			vi++
		}
		t.p("\n")
		lo, hi := nd.EdgeRange(i)
		for e := lo; e < hi; e++ {
			k := int(s.Edges.Kind[e])
			name := t.str(s.Edges.Name[e])
			if k < len(s.EdgeKinds) && s.EdgeKinds[k].Indexed {
				name = "[" + strconv.FormatUint(uint64(s.Edges.Name[e]), 10) + "]"
			}
			t.p("    %s %s -> n%d", kind(kinds, k), name, s.Edges.Target[e])
			for _, c := range edgeCols {
				t.p(" %s=%s", c.Decl.Name, t.value(c, e))
			}
			t.p("\n")
		}
	}
	for _, b := range sections {
		t.tables("", b)
	}
}

// section writes a section's header: its name and version, its fields a
// line each, the optional columns it has, and for a section this program
// does not know its columns' declarations.
func (t *writer) section(indent string, x ir.Section, b *ir.Bindings) {
	t.p("%ssection %s v%d\n", indent, x.SectionName(), b.Version)
	for fi := range b.Fields() {
		fl := &b.Fields()[fi]
		t.p("%s  %s=%s\n", indent, fl.Name, t.field(fl))
	}
	var present []string
	for ci := range b.Columns() {
		c := &b.Columns()[ci]
		if c.Optional && c.Present() {
			present = append(present, c.Decl.Name)
		}
	}
	if len(present) > 0 {
		t.p("%s  present", indent)
		for _, n := range present {
			t.p(" %s", n)
		}
		t.p("\n")
	}
	if _, raw := x.(*ir.RawSection); raw {
		for ci := range b.Columns() {
			c := &b.Columns()[ci]
			d := c.Decl
			t.p("%s  column %s %s %s %s\n", indent, d.Name, d.Type, d.Table, strconv.Quote(d.Of))
		}
	}
}

func (t *writer) field(fl *ir.Field) string {
	switch fl.Kind {
	case ir.FieldUint:
		return strconv.FormatUint(fl.Uint(), 10)
	case ir.FieldInt:
		return strconv.FormatInt(fl.Int(), 10)
	case ir.FieldBool:
		return strconv.FormatBool(fl.Bool())
	case ir.FieldString:
		return strconv.Quote(fl.Str())
	case ir.FieldStringIndex:
		return t.str(fl.Index())
	case ir.FieldJSON:
		j := fl.JSON()
		return j.String()
	}
	return "msgpack:" + hex.EncodeToString(fl.Raw())
}

// tables writes a section's columns that are not on the node and edge
// lines, table by table: a table of one column as a list, bytes as hex,
// others a line per entry; an empty table not at all.
func (t *writer) tables(indent string, b *ir.Bindings) {
	var order []string
	byTable := map[string][]*ir.Column{}
	for ci := range b.Columns() {
		c := &b.Columns()[ci]
		tab := c.Decl.Table
		if !c.Present() || tab == ir.TableNode || tab == ir.TableEdge {
			continue
		}
		if byTable[tab] == nil {
			order = append(order, tab)
		}
		byTable[tab] = append(byTable[tab], c)
	}
	for _, tab := range order {
		cols := byTable[tab]
		n := 0
		for _, c := range cols {
			n = max(n, c.Len())
		}
		if n == 0 {
			continue // an empty table says nothing
		}
		if len(cols) == 1 {
			c := cols[0]
			if c.Decl.Type == ir.TypeBytes {
				t.p("%s  %s %d:%s\n", indent, c.Decl.Name, c.Len(), hex.EncodeToString(c.BytesOf()))
				continue
			}
			t.p("%s  %s [", indent, c.Decl.Name)
			for i := 0; i < c.Len(); i++ {
				if i > 0 {
					t.p(" ")
				}
				t.p("%s", t.value(c, i))
			}
			t.p("]\n")
			continue
		}
		// In the rows, a column named after the table goes by the rest
		// of its name.
		t.p("%s  table %s %d\n", indent, tab, n)
		for i := 0; i < n; i++ {
			t.p("%s    %d", indent, i)
			for _, c := range cols {
				if i < c.Len() {
					name, _ := strings.CutPrefix(c.Decl.Name, tab+".")
					t.p(" %s=%s", name, t.value(c, i))
				}
			}
			t.p("\n")
		}
	}
}

// value writes value i of a column by its type: a string reference, a node
// reference, a signed number, or a number.
func (t *writer) value(c *ir.Column, i int) string {
	v := c.At(i)
	switch {
	case c.Decl.Type == ir.TypeString:
		return t.str(uint32(v))
	case c.Decl.Type == ir.TypeIndex && c.Decl.Of == ir.TableNode:
		return "n" + strconv.FormatUint(v, 10)
	case c.Decl.Type == ir.TypeInt:
		return strconv.FormatInt(ir.Unzigzag(v), 10)
	case c.Hex:
		return "0x" + strconv.FormatUint(v, 16)
	}
	return strconv.FormatUint(v, 10)
}

// valueText writes a node's primitive value: a string reference (with the
// full length of a truncated one), an integer, a float (with a point, or
// its bits when it is a NaN), a bool, a length or null, and an aux that is
// not 0.
func (t *writer) valueText(v *ir.Values, j int) string {
	bits, aux := v.Bits[j], v.Aux[j]
	var s string
	switch v.Kind[j] {
	case ir.ValueString:
		s = t.str(uint32(bits))
		if bits > math.MaxUint32 {
			s = "string:" + strconv.FormatUint(bits, 10)
		}
	case ir.ValueInt:
		s = strconv.FormatInt(int64(bits), 10)
	case ir.ValueFloat:
		x := math.Float64frombits(bits)
		s = strconv.FormatFloat(x, 'g', -1, 64)
		switch {
		case math.IsNaN(x):
			s = fmt.Sprintf("float:%#x", bits)
		case !math.IsInf(x, 0) && !strings.ContainsAny(s, ".eE"):
			s += ".0"
		}
	case ir.ValueBool:
		s = strconv.FormatBool(bits != 0)
		if bits > 1 {
			s = "bool:" + strconv.FormatUint(bits, 10)
		}
	case ir.ValueLength:
		s = "len:" + strconv.FormatUint(bits, 10)
	case ir.ValueNull:
		s = "null"
		if bits != 0 {
			s = "null:" + strconv.FormatUint(bits, 10)
		}
	default:
		s = fmt.Sprintf("kind%d:%d", v.Kind[j], bits)
	}
	if aux != 0 {
		s += "(aux " + strconv.FormatUint(aux, 10) + ")"
	}
	return s
}
