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

// Read reads a file in the text form and validates it. A string written
// quoted that the string table does not hold is added to it, so that a
// hand-written file may leave the table out.
func Read(r io.Reader) (*ir.File, error) {
	p := &parser{f: &ir.File{}, first: map[string]uint32{}, file: newScope()}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<30)
	for sc.Scan() {
		p.line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		if err := p.parse(text); err != nil {
			return nil, fmt.Errorf("irtext: line %d: %v", p.line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("irtext: %v", err)
	}
	if err := p.finish(); err != nil {
		return nil, fmt.Errorf("irtext: %v", err)
	}
	if err := p.f.Validate(); err != nil {
		return nil, fmt.Errorf("irtext: invalid: %v", err)
	}
	return p.f, nil
}

type parser struct {
	f     *ir.File
	line  int
	first map[string]uint32
	file  *scope
	snap  *scope
	s     *ir.Snapshot
	// counts declared by a snapshot's "nodes" line: nodes, edges, values
	declared [3]int
	edges    []uint32 // per node of the current snapshot, its edge count
	// sec is the section whose header is being read, fields its fields.
	sec     ir.Section
	fields  *ir.Bindings
	present []string
	// table is the table whose rows follow ("table" lines).
	table string
	snaps []*scope
}

// scope holds the columns of the file's or a snapshot's sections by name.
type scope struct {
	cols    map[string]*ir.Column
	order   []*ir.Column
	present map[string]bool
}

func newScope() *scope {
	return &scope{cols: map[string]*ir.Column{}, present: map[string]bool{}}
}

func (p *parser) scope() *scope {
	if p.snap != nil {
		return p.snap
	}
	return p.file
}

// ref parses a string reference: a quoted string (its first index, added
// to the table when it has none) or s<index>.
func (p *parser) ref(tok string) (uint32, error) {
	if strings.HasPrefix(tok, `"`) {
		s, err := strconv.Unquote(tok)
		if err != nil {
			return 0, fmt.Errorf("bad string %s", tok)
		}
		if i, ok := p.first[s]; ok {
			return i, nil
		}
		return p.addString(s), nil
	}
	return prefixed(tok, "s")
}

func (p *parser) addString(s string) uint32 {
	i := uint32(len(p.f.Strings))
	p.f.Strings = append(p.f.Strings, s)
	if _, ok := p.first[s]; !ok {
		p.first[s] = i
	}
	return i
}

// prefixed parses <prefix><number>.
func prefixed(tok, prefix string) (uint32, error) {
	n, ok := strings.CutPrefix(tok, prefix)
	v, err := strconv.ParseUint(n, 10, 32)
	if !ok || err != nil {
		return 0, fmt.Errorf("%q is not %s<number>", tok, prefix)
	}
	return uint32(v), nil
}

// kindRef parses a kind: a quoted name (its first place in names) or
// k<index>.
func kindRef(tok string, names []string) (uint8, error) {
	if strings.HasPrefix(tok, `"`) {
		s, err := strconv.Unquote(tok)
		k := slices.Index(names, s)
		if err != nil || k < 0 || k > 255 {
			return 0, fmt.Errorf("kind %s is not in the kind table", tok)
		}
		return uint8(k), nil
	}
	k, err := prefixed(tok, "k")
	if err == nil && k > 255 {
		err = fmt.Errorf("kind %d", k)
	}
	return uint8(k), err
}

// tokens splits a line at spaces outside quotes and brackets.
func tokens(line string) ([]string, error) {
	var out []string
	depth, start := 0, -1
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '"':
			q, err := strconv.QuotedPrefix(line[i:])
			if err != nil {
				return nil, fmt.Errorf("unterminated string at column %d", i+1)
			}
			if start < 0 {
				start = i
			}
			i += len(q) - 1
			continue
		case c == '[' || c == '{' || c == '(':
			depth++
		case c == ']' || c == '}' || c == ')':
			depth--
		case c == ' ' && depth == 0:
			if start >= 0 {
				out = append(out, line[start:i])
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		out = append(out, line[start:])
	}
	return out, nil
}

// keyed splits key=value.
func keyed(tok, key string) (string, bool) { return strings.CutPrefix(tok, key+"=") }

func (p *parser) parse(text string) error {
	toks, err := tokens(text)
	if err != nil {
		return err
	}
	head := toks[0]
	// A section's header: its field lines, "present" and "column".
	if p.sec != nil {
		if k, v, ok := strings.Cut(text, "="); ok && !strings.Contains(k, " ") {
			return p.setField(k, v)
		}
		switch head {
		case "present":
			p.present = append(p.present, toks[1:]...)
			return nil
		case "column":
			return p.rawColumn(toks)
		}
		if err := p.closeSection(); err != nil {
			return err
		}
	}
	if p.table != "" && isNumber(head) {
		return p.row(toks)
	}
	p.table = ""
	switch head {
	case "heapir":
		if len(toks) != 2 || toks[1] != strconv.Itoa(ir.Version) {
			return fmt.Errorf("the text form of version %d begins \"heapir %d\"", ir.Version, ir.Version)
		}
		return nil
	case "format", "format_version", "producer":
		if len(toks) != 2 {
			return fmt.Errorf("%s takes a quoted string", head)
		}
		v, err := strconv.Unquote(toks[1])
		switch head {
		case "format":
			p.f.Format = v
		case "format_version":
			p.f.FormatVersion = v
		default:
			p.f.Producer = v
		}
		return err
	case "strings", "classes":
		return nil // the entries follow; their count is theirs
	case "section":
		return p.openSection(toks)
	case "snapshot":
		return p.snapshot(toks)
	case "table":
		if len(toks) != 3 {
			return fmt.Errorf("table takes a name and a row count")
		}
		p.table = toks[1]
		return nil
	}
	switch {
	case strings.HasPrefix(head, "s") && isNumber(head[1:]):
		return p.stringEntry(toks)
	case strings.HasPrefix(head, "c") && isNumber(head[1:]) && p.snap == nil:
		return p.class(toks)
	}
	if p.s != nil {
		if done, err := p.snapshotLine(toks); done {
			return err
		}
	}
	if len(toks) == 2 {
		return p.columnLine(toks)
	}
	return fmt.Errorf("cannot read %q", text)
}

func isNumber(s string) bool {
	_, err := strconv.ParseUint(s, 10, 64)
	return err == nil
}

func (p *parser) stringEntry(toks []string) error {
	i, err := prefixed(toks[0], "s")
	if err != nil || len(toks) != 2 {
		return fmt.Errorf("a string entry is s<index> \"string\"")
	}
	if int(i) != len(p.f.Strings) {
		return fmt.Errorf("string s%d where s%d comes next", i, len(p.f.Strings))
	}
	s, err := strconv.Unquote(toks[1])
	if err != nil {
		return fmt.Errorf("bad string %s", toks[1])
	}
	p.addString(s)
	return nil
}

// class reads c<k> NAME library=REF fields=[REF ...].
func (p *parser) class(toks []string) error {
	k, err := prefixed(toks[0], "c")
	c := &p.f.Classes
	if err != nil || int(k) != c.Len()+1 || len(toks) != 4 {
		return fmt.Errorf("a class entry is c<%d> NAME library=LIB fields=[...]", c.Len()+1)
	}
	name, err := p.ref(toks[1])
	if err != nil {
		return err
	}
	lib, ok := keyed(toks[2], "library")
	fields, ok2 := keyed(toks[3], "fields")
	if !ok || !ok2 {
		return fmt.Errorf("a class entry is c<k> NAME library=LIB fields=[...]")
	}
	l, err := p.ref(lib)
	if err != nil {
		return err
	}
	list, err := listItems(fields)
	if err != nil {
		return err
	}
	if len(c.FirstField) == 0 {
		c.FirstField = []uint32{0}
	}
	for _, x := range list {
		v, err := p.ref(x)
		if err != nil {
			return err
		}
		c.FieldName = append(c.FieldName, v)
	}
	c.Name = append(c.Name, name)
	c.Library = append(c.Library, l)
	c.FirstField = append(c.FirstField, uint32(len(c.FieldName)))
	return nil
}

// listItems splits [a b c].
func listItems(tok string) ([]string, error) {
	if !strings.HasPrefix(tok, "[") || !strings.HasSuffix(tok, "]") {
		return nil, fmt.Errorf("%q is not a [list]", tok)
	}
	inner := strings.TrimSpace(tok[1 : len(tok)-1])
	if inner == "" {
		return nil, nil
	}
	return tokens(inner)
}

func (p *parser) openSection(toks []string) error {
	if len(toks) != 3 || !strings.HasPrefix(toks[2], "v") {
		return fmt.Errorf("a section begins: section NAME v<version>")
	}
	v, err := strconv.Atoi(toks[2][1:])
	if err != nil || v < 1 {
		return fmt.Errorf("bad section version %q", toks[2])
	}
	scope := ir.FileScope
	if p.s != nil {
		scope = ir.SnapshotScope
		if p.s.Nodes.Len() > 0 {
			return fmt.Errorf("a snapshot's sections come before its nodes")
		}
	}
	p.sec = ir.NewSection(toks[1], scope, v)
	p.fields = &ir.Bindings{Version: v}
	p.sec.Bind(p.fields)
	p.present = nil
	return nil
}

func (p *parser) setField(name, text string) error {
	if r, ok := p.sec.(*ir.RawSection); ok {
		h, found := strings.CutPrefix(text, "msgpack:")
		b, err := hex.DecodeString(h)
		if !found || err != nil {
			return fmt.Errorf("a field of a section this program does not know is msgpack:<hex>")
		}
		r.Fields = append(r.Fields, ir.RawField{Key: name, Value: b})
		return nil
	}
	fl := p.fields.FieldNamed(name)
	if fl == nil {
		return fmt.Errorf("section %s has no field %q", p.sec.SectionName(), name)
	}
	switch fl.Kind {
	case ir.FieldUint:
		v, err := strconv.ParseUint(text, 10, 64)
		fl.SetUint(v)
		return err
	case ir.FieldInt:
		v, err := strconv.ParseInt(text, 10, 64)
		fl.SetInt(v)
		return err
	case ir.FieldBool:
		v, err := strconv.ParseBool(text)
		fl.SetBool(v)
		return err
	case ir.FieldString:
		v, err := strconv.Unquote(text)
		fl.SetStr(v)
		return err
	case ir.FieldStringIndex:
		v, err := p.ref(text)
		fl.SetIndex(v)
		return err
	}
	j, rest, err := parseJSON(text)
	if err == nil && strings.TrimSpace(rest) != "" {
		err = fmt.Errorf("%q after the value", rest)
	}
	if err != nil {
		return fmt.Errorf("field %s: %v", name, err)
	}
	return fl.SetJSON(j)
}

// rawColumn reads a column declaration of a section this program does not
// know: column NAME TYPE TABLE "OF".
func (p *parser) rawColumn(toks []string) error {
	r, ok := p.sec.(*ir.RawSection)
	if !ok || len(toks) != 5 {
		return fmt.Errorf("column NAME TYPE TABLE \"OF\" declares a column of a section this program does not know")
	}
	of, err := strconv.Unquote(toks[4])
	if err != nil {
		return err
	}
	r.Columns = append(r.Columns, ir.RawColumn{Decl: ir.ColumnDecl{Name: toks[1], Type: ir.ColumnType(toks[2]), Table: toks[3], Of: of}})
	return nil
}

// closeSection adds the section whose header has been read, and its
// columns to its scope.
func (p *parser) closeSection() error {
	x := p.sec
	p.sec = nil
	sc := p.scope()
	b := &ir.Bindings{Version: p.fields.Version}
	x.Bind(b)
	for ci := range b.Columns() {
		c := &b.Columns()[ci]
		if sc.cols[c.Decl.Name] != nil {
			return fmt.Errorf("column %s twice", c.Decl.Name)
		}
		sc.cols[c.Decl.Name] = c
		sc.order = append(sc.order, c)
	}
	for _, name := range p.present {
		if sc.cols[name] == nil {
			return fmt.Errorf("present: section %s has no column %s", x.SectionName(), name)
		}
		sc.present[name] = true
	}
	if p.s != nil {
		p.s.Sections = append(p.s.Sections, x)
	} else {
		p.f.Sections = append(p.f.Sections, x)
	}
	return nil
}

// value parses a column's value by its type.
func (p *parser) value(c *ir.Column, tok string) (uint64, error) {
	switch {
	case c.Decl.Type == ir.TypeString:
		v, err := p.ref(tok)
		return uint64(v), err
	case c.Decl.Type == ir.TypeIndex && c.Decl.Of == ir.TableNode:
		v, err := prefixed(tok, "n")
		return uint64(v), err
	case c.Decl.Type == ir.TypeInt:
		v, err := strconv.ParseInt(tok, 10, 64)
		return ir.Zigzag(v), err
	}
	return parseUint(tok)
}

// parseUint reads an unsigned number in decimal, or in hex after 0x (as
// addresses are written: Hex columns, Fuchsia node ids).
func parseUint(tok string) (uint64, error) {
	if h, ok := strings.CutPrefix(tok, "0x"); ok {
		return strconv.ParseUint(h, 16, 64)
	}
	return strconv.ParseUint(tok, 10, 64)
}

// appendValue adds a value to a column.
func (p *parser) appendValue(c *ir.Column, tok string) error {
	v, err := p.value(c, tok)
	if err != nil {
		return fmt.Errorf("column %s: %v", c.Decl.Name, err)
	}
	if c.Decl.Type == ir.TypeBytes {
		if v > 255 {
			return fmt.Errorf("column %s: %d is not a byte", c.Decl.Name, v)
		}
		c.AppendBytes([]byte{byte(v)})
		return nil
	}
	return c.Append([]uint64{v})
}

// columnLine reads a table of one column: COLUMN [v v ...], or for bytes
// COLUMN <count>:<hex>.
func (p *parser) columnLine(toks []string) error {
	c := p.scope().cols[toks[0]]
	if c == nil {
		return fmt.Errorf("no column %s", toks[0])
	}
	if c.Decl.Type == ir.TypeBytes {
		n, h, ok := strings.Cut(toks[1], ":")
		b, err := hex.DecodeString(h)
		if !ok || err != nil || n != strconv.Itoa(len(b)) {
			return fmt.Errorf("bytes are written <count>:<hex>")
		}
		c.AppendBytes(b)
		return nil
	}
	list, err := listItems(toks[1])
	if err != nil {
		return err
	}
	for _, x := range list {
		if err := p.appendValue(c, x); err != nil {
			return err
		}
	}
	return nil
}

// row reads one entry of a table: <index> col=v ...
func (p *parser) row(toks []string) error {
	sc := p.scope()
	for _, t := range toks[1:] {
		name, v, ok := strings.Cut(t, "=")
		c := sc.cols[p.table+"."+name]
		if c == nil {
			c = sc.cols[name]
		}
		if !ok || c == nil {
			return fmt.Errorf("%q is not column=value of a column of table %s", t, p.table)
		}
		if c.Decl.Table != p.table {
			return fmt.Errorf("column %s is not of table %s", name, p.table)
		}
		if err := p.appendValue(c, v); err != nil {
			return err
		}
	}
	return nil
}

// snapshot begins a snapshot: snapshot <index> name=REF capture_time=N.
func (p *parser) snapshot(toks []string) error {
	if err := p.endSnapshot(); err != nil {
		return err
	}
	if len(toks) != 4 || toks[1] != strconv.Itoa(len(p.f.Snapshots)) {
		return fmt.Errorf("snapshot %d name=NAME capture_time=T comes next", len(p.f.Snapshots))
	}
	s := &ir.Snapshot{Root: ir.NoNode}
	name, ok := keyed(toks[2], "name")
	ct, ok2 := keyed(toks[3], "capture_time")
	if !ok || !ok2 {
		return fmt.Errorf("snapshot %d name=NAME capture_time=T", len(p.f.Snapshots))
	}
	var err error
	if s.Name, err = p.ref(name); err != nil {
		return err
	}
	if s.CaptureTime, err = strconv.ParseInt(ct, 10, 64); err != nil {
		return err
	}
	p.f.Snapshots = append(p.f.Snapshots, s)
	p.s, p.snap = s, newScope()
	p.snaps = append(p.snaps, p.snap)
	p.declared = [3]int{-1, -1, -1}
	p.edges = nil
	return nil
}

// snapshotLine reads a line of a snapshot's own: its totals, kinds, roots,
// counts, nodes and edges.
func (p *parser) snapshotLine(toks []string) (bool, error) {
	s := p.s
	head := toks[0]
	switch head {
	case "total":
		if len(toks) != 3 {
			return true, fmt.Errorf("total \"NAME\" VALUE")
		}
		name, err := strconv.Unquote(toks[1])
		if err != nil {
			return true, err
		}
		v, err := strconv.ParseUint(toks[2], 10, 64)
		s.Totals = append(s.Totals, ir.Total{Name: name, Value: v})
		return true, err
	case "node_kinds":
		for _, t := range toks[1:] {
			k, err := strconv.Unquote(t)
			if err != nil {
				return true, err
			}
			s.NodeKinds = append(s.NodeKinds, k)
		}
		return true, nil
	case "edge_kinds":
		for _, t := range toks[1:] {
			q, indexed := strings.CutSuffix(t, "[i]")
			k, err := strconv.Unquote(q)
			if err != nil {
				return true, err
			}
			s.EdgeKinds = append(s.EdgeKinds, ir.EdgeKind{Name: k, Indexed: indexed})
		}
		return true, nil
	case "root":
		if len(toks) != 2 {
			return true, fmt.Errorf("root n<index> or root none")
		}
		if toks[1] == "none" {
			s.Root = ir.NoNode
			return true, nil
		}
		v, err := prefixed(toks[1], "n")
		s.Root = v
		return true, err
	case "gcroot":
		if len(toks) != 3 {
			return true, fmt.Errorf("gcroot n<index> CATEGORY")
		}
		n, err := prefixed(toks[1], "n")
		if err != nil {
			return true, err
		}
		c, err := p.ref(toks[2])
		s.Roots = append(s.Roots, ir.RootRef{Node: n, Category: c})
		return true, err
	case "origin":
		k := slices.Index(toks, "classes")
		if len(toks) < 3 || toks[1] != "strings" || k < 0 || s.Origin != nil {
			return true, fmt.Errorf("origin strings s<index>... classes c<index>... (once)")
		}
		o := &ir.Origin{Strings: []uint32{}, Classes: []uint32{}}
		for _, t := range toks[2:k] {
			v, err := prefixed(t, "s")
			if err != nil {
				return true, err
			}
			o.Strings = append(o.Strings, v)
		}
		for _, t := range toks[k+1:] {
			v, err := prefixed(t, "c")
			if err != nil {
				return true, err
			}
			if v == 0 {
				return true, fmt.Errorf("origin: c0 is no class")
			}
			o.Classes = append(o.Classes, v-1)
		}
		s.Origin = o
		return true, nil
	case "nodes":
		if len(toks) != 6 || toks[2] != "edges" || toks[4] != "values" {
			return true, fmt.Errorf("nodes N edges N values N")
		}
		for k, t := range []string{toks[1], toks[3], toks[5]} {
			v, err := strconv.Atoi(t)
			if err != nil {
				return true, err
			}
			p.declared[k] = v
		}
		return true, nil
	}
	if strings.HasPrefix(head, "n") && isNumber(head[1:]) {
		return true, p.node(toks)
	}
	if slices.Contains(toks, "->") {
		return true, p.edge(toks)
	}
	return false, nil
}

// node reads n<i> KIND NAME id=N self=N [class=c<k>] [external=N]
// [column=v ...] [value=V ...].
func (p *parser) node(toks []string) error {
	s, sc := p.s, p.snap
	nd := &s.Nodes
	i := nd.Len()
	if toks[0] != "n"+strconv.Itoa(i) || len(toks) < 5 {
		return fmt.Errorf("node n%d KIND NAME id=N self=N comes next", i)
	}
	k, err := kindRef(toks[1], s.NodeKinds)
	if err != nil {
		return err
	}
	name, err := p.ref(toks[2])
	if err != nil {
		return err
	}
	nd.Kind = append(nd.Kind, k)
	nd.Name = append(nd.Name, name)
	p.edges = append(p.edges, 0)
	for _, t := range toks[3:] {
		key, v, ok := strings.Cut(t, "=")
		if !ok {
			return fmt.Errorf("%q is not key=value", t)
		}
		switch key {
		case "id", "self", "external":
			n, err := parseUint(v)
			if err != nil {
				return err
			}
			map[string]*ir.Uints{"id": &nd.ID, "self": &nd.SelfSize, "external": &nd.ExternalSize}[key].Append(n)
		case "class":
			c, err := prefixed(v, "c")
			if err != nil {
				return err
			}
			nd.Class = append(nd.Class, c)
		case "value":
			if err := p.primitive(i, v); err != nil {
				return err
			}
		default:
			c := sc.cols[key]
			if c == nil || c.Decl.Table != ir.TableNode {
				return fmt.Errorf("no node column %s", key)
			}
			if err := p.appendValue(c, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// edge reads KIND NAME -> n<t> [column=v ...], an edge of the last node.
func (p *parser) edge(toks []string) error {
	s := p.s
	if len(p.edges) == 0 || len(toks) < 4 || toks[2] != "->" {
		return fmt.Errorf("an edge is KIND NAME -> n<target>, after its node")
	}
	kinds := make([]string, len(s.EdgeKinds))
	for k, ek := range s.EdgeKinds {
		kinds[k] = ek.Name
	}
	k, err := kindRef(toks[0], kinds)
	if err != nil {
		return err
	}
	var name uint32
	if idx, ok := strings.CutPrefix(toks[1], "["); ok {
		v, err := strconv.ParseUint(strings.TrimSuffix(idx, "]"), 10, 32)
		if err != nil {
			return err
		}
		name = uint32(v)
	} else if name, err = p.ref(toks[1]); err != nil {
		return err
	}
	target, err := prefixed(toks[3], "n")
	if err != nil {
		return err
	}
	s.Edges.Kind = append(s.Edges.Kind, k)
	s.Edges.Name = append(s.Edges.Name, name)
	s.Edges.Target = append(s.Edges.Target, target)
	p.edges[len(p.edges)-1]++
	for _, t := range toks[4:] {
		key, v, ok := strings.Cut(t, "=")
		c := p.snap.cols[key]
		if !ok || c == nil || c.Decl.Table != ir.TableEdge {
			return fmt.Errorf("%q is not column=value of an edge column", t)
		}
		if err := p.appendValue(c, v); err != nil {
			return err
		}
	}
	return nil
}

// primitive reads a node's value (see writer.valueText).
func (p *parser) primitive(node int, text string) error {
	v := &p.s.Values
	var aux uint64
	if i := strings.LastIndex(text, "(aux "); i >= 0 && strings.HasSuffix(text, ")") {
		n, err := strconv.ParseUint(text[i+5:len(text)-1], 10, 64)
		if err != nil {
			return err
		}
		text, aux = text[:i], n
	}
	kind, bits, err := p.primitiveValue(text)
	if err != nil {
		return fmt.Errorf("value %s: %v", text, err)
	}
	v.Node = append(v.Node, uint32(node))
	v.Kind = append(v.Kind, kind)
	v.Bits = append(v.Bits, bits)
	v.Aux = append(v.Aux, aux)
	return nil
}

func (p *parser) primitiveValue(text string) (ir.ValueKind, uint64, error) {
	if k, n, ok := strings.Cut(text, ":"); ok && !strings.HasPrefix(text, `"`) {
		var v uint64
		var err error
		if k == "float" {
			v, err = strconv.ParseUint(strings.TrimPrefix(n, "0x"), 16, 64)
		} else {
			v, err = strconv.ParseUint(n, 10, 64)
		}
		kinds := map[string]ir.ValueKind{"string": ir.ValueString, "float": ir.ValueFloat, "bool": ir.ValueBool, "len": ir.ValueLength, "null": ir.ValueNull}
		kind, known := kinds[k]
		if !known {
			kn, kerr := prefixed(k, "kind")
			if kerr != nil || kn > 255 {
				return 0, 0, fmt.Errorf("unknown value kind %s", k)
			}
			kind = ir.ValueKind(kn)
		}
		return kind, v, err
	}
	switch {
	case strings.HasPrefix(text, `"`) || strings.HasPrefix(text, "s"):
		i, err := p.ref(text)
		return ir.ValueString, uint64(i), err
	case text == "true" || text == "false":
		if text == "true" {
			return ir.ValueBool, 1, nil
		}
		return ir.ValueBool, 0, nil
	case text == "null":
		return ir.ValueNull, 0, nil
	}
	if i, err := strconv.ParseInt(text, 10, 64); err == nil {
		return ir.ValueInt, uint64(i), nil
	}
	x, err := strconv.ParseFloat(text, 64)
	return ir.ValueFloat, math.Float64bits(x), err
}

// endSnapshot completes the snapshot being read: its edge offsets, and
// its declared counts.
func (p *parser) endSnapshot() error {
	s := p.s
	if s == nil {
		return nil
	}
	nd := &s.Nodes
	nd.FirstEdge = make([]uint32, 1, len(p.edges)+1)
	for _, c := range p.edges {
		nd.FirstEdge = append(nd.FirstEdge, nd.FirstEdge[len(nd.FirstEdge)-1]+c)
	}
	got := [3]int{nd.Len(), s.Edges.Len(), s.Values.Len()}
	for k, what := range []string{"nodes", "edges", "values"} {
		if p.declared[k] >= 0 && p.declared[k] != got[k] {
			return fmt.Errorf("snapshot %d: %d %s where its nodes line says %d", len(p.f.Snapshots)-1, got[k], what, p.declared[k])
		}
	}
	return nil
}

func (p *parser) finish() error {
	if p.sec != nil {
		if err := p.closeSection(); err != nil {
			return err
		}
	}
	if err := p.endSnapshot(); err != nil {
		return err
	}
	// Count columns declared (not optional, or present) but given no
	// counts hold the offsets of no entries.
	for _, sc := range append([]*scope{p.file}, p.snaps...) {
		for _, c := range sc.order {
			if !c.Optional || sc.present[c.Decl.Name] {
				c.Finish()
			}
		}
	}
	return nil
}
