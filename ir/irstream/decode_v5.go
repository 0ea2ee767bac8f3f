package irstream

import (
	"bytes"
	"slices"

	"github.com/heapconv/heapconv/ir"

	"github.com/vmihailenco/msgpack/v5"
)

// Streams of schema versions 1 to 5 are read here, turned while streaming
// into what a version 6 stream declares (the way Go's internal/trace converts
// its old formats): their file and snapshot records have no column
// declarations, and each format's section had a record type of its own,
// whose columns the old spec listed. This file is that list, frozen: the
// sections' version 1 declarations. The rest of the decoder, and the model,
// know nothing of old versions.

// oldSection is a section record type of versions 1 to 5.
type oldSection struct {
	since int // the version that brought it
	scope ir.Scope
	// cols are its columns, in the order they were written; optional
	// ones were listed in the record's "columns" when present.
	cols []oldColumn
}

type oldColumn struct {
	ir.ColumnDecl
	optional bool
}

// col and opt make the table below readable.
func col(name string, typ ir.ColumnType, table, of string) oldColumn {
	return oldColumn{ir.ColumnDecl{Name: name, Type: typ, Table: table, Of: of}, false}
}
func opt(name string, typ ir.ColumnType, table, of string) oldColumn {
	return oldColumn{ir.ColumnDecl{Name: name, Type: typ, Table: table, Of: of}, true}
}

// The version 1 to 5 sections. The V8 section's node and edge fields are
// columns v8.node.<field> and v8.edge.<field> of the fields its record
// names.
var oldSections = map[string]oldSection{
	"v8": {1, ir.SnapshotScope, []oldColumn{
		col("v8.trace_function_infos", ir.TypeUint, "v8.trace_function_infos", ""),
		col("v8.trace_tree", ir.TypeUint, "v8.trace_tree", ""),
		col("v8.samples", ir.TypeUint, "v8.samples", ""),
		col("v8.locations", ir.TypeUint, "v8.locations", ""),
	}},
	"dart": {2, ir.SnapshotScope, []oldColumn{
		col("dart.class.flags", ir.TypeUint, ir.TableClass, ""),
		col("dart.class.uri", ir.TypeString, ir.TableClass, ""),
		col("dart.class.reserved", ir.TypeString, ir.TableClass, ""),
		col("dart.field.flags", ir.TypeUint, ir.TableField, ""),
		col("dart.field.index", ir.TypeUint, ir.TableField, ""),
		col("dart.field.reserved", ir.TypeString, ir.TableField, ""),
		col("dart.zero_ref.node", ir.TypeIndex, "dart.zero_ref", ir.TableNode),
		col("dart.zero_ref.slot", ir.TypeUint, "dart.zero_ref", ""),
		col("dart.external.node", ir.TypeIndex, "dart.external", ir.TableNode),
		col("dart.external.size", ir.TypeUint, "dart.external", ""),
		col("dart.external.name", ir.TypeString, "dart.external", ""),
	}},
	"moarvm": {3, ir.FileScope, []oldColumn{
		col("moarvm.frame.name", ir.TypeString, "moarvm.frame", ""),
		col("moarvm.frame.cuid", ir.TypeString, "moarvm.frame", ""),
		col("moarvm.frame.line", ir.TypeUint, "moarvm.frame", ""),
		col("moarvm.frame.file", ir.TypeString, "moarvm.frame", ""),
	}},
	"moarvm.snapshot": {3, ir.SnapshotScope, []oldColumn{
		col("moarvm.node.tofi", ir.TypeUint, ir.TableNode, ""),
		col("moarvm.node.ref_start", ir.TypeUint, ir.TableNode, ""),
		col("moarvm.top.ids", ir.TypeUint, "moarvm.top", ""),
		col("moarvm.top.scores", ir.TypeUint, "moarvm.top", ""),
	}},
	"fuchsia": {4, ir.FileScope, []oldColumn{
		col("fuchsia.mapping.id", ir.TypeUint, "fuchsia.mapping", ""),
		col("fuchsia.mapping.start", ir.TypeUint, "fuchsia.mapping", ""),
		col("fuchsia.mapping.limit", ir.TypeUint, "fuchsia.mapping", ""),
		col("fuchsia.mapping.offset", ir.TypeUint, "fuchsia.mapping", ""),
		col("fuchsia.mapping.file", ir.TypeString, "fuchsia.mapping", ""),
		col("fuchsia.mapping.build_id", ir.TypeString, "fuchsia.mapping", ""),
		col("fuchsia.mapping.flags", ir.TypeUint, "fuchsia.mapping", ""),
		col("fuchsia.function.id", ir.TypeUint, "fuchsia.function", ""),
		col("fuchsia.function.name", ir.TypeString, "fuchsia.function", ""),
		col("fuchsia.function.system_name", ir.TypeString, "fuchsia.function", ""),
		col("fuchsia.function.filename", ir.TypeString, "fuchsia.function", ""),
		col("fuchsia.function.start_line", ir.TypeInt, "fuchsia.function", ""),
		col("fuchsia.location.id", ir.TypeUint, "fuchsia.location", ""),
		col("fuchsia.location.mapping", ir.TypeIndex1, "fuchsia.location", "fuchsia.mapping"),
		col("fuchsia.location.address", ir.TypeUint, "fuchsia.location", ""),
		col("fuchsia.location.folded", ir.TypeUint, "fuchsia.location", ""),
		opt("fuchsia.location.line_count", ir.TypeCount, "fuchsia.location", "fuchsia.line"),
		col("fuchsia.line.function", ir.TypeIndex1, "fuchsia.line", "fuchsia.function"),
		col("fuchsia.line.line", ir.TypeInt, "fuchsia.line", ""),
		col("fuchsia.line.column", ir.TypeInt, "fuchsia.line", ""),
		col("fuchsia.sample.snapshot", ir.TypeUint, "fuchsia.sample", ""),
	}},
	"fuchsia.snapshot": {4, ir.SnapshotScope, []oldColumn{
		col("fuchsia.node.count", ir.TypeUint, ir.TableNode, ""),
		col("fuchsia.node.flags", ir.TypeUint, ir.TableNode, ""),
		opt("fuchsia.node.timestamp", ir.TypeInt, ir.TableNode, ""),
		opt("fuchsia.node.thread", ir.TypeIndex1, ir.TableNode, "fuchsia.thread"),
		col("fuchsia.node.stack", ir.TypeIndex, ir.TableNode, "fuchsia.stack"),
		opt("fuchsia.node.label_count", ir.TypeCount, ir.TableNode, "fuchsia.label"),
		opt("fuchsia.node.contents_size", ir.TypeCount, ir.TableNode, "fuchsia.contents"),
		col("fuchsia.extra.value", ir.TypeInt, "fuchsia.extra", ""),
		col("fuchsia.thread.name", ir.TypeString, "fuchsia.thread", ""),
		col("fuchsia.thread.koid", ir.TypeUint, "fuchsia.thread", ""),
		col("fuchsia.thread.bare", ir.TypeUint, "fuchsia.thread", ""),
		opt("fuchsia.stack.size", ir.TypeCount, "fuchsia.stack", "fuchsia.frame"),
		col("fuchsia.stack.location", ir.TypeIndex, "fuchsia.frame", "fuchsia.location"),
		col("fuchsia.label.key", ir.TypeString, "fuchsia.label", ""),
		col("fuchsia.label.numeric", ir.TypeUint, "fuchsia.label", ""),
		col("fuchsia.label.str", ir.TypeString, "fuchsia.label", ""),
		col("fuchsia.label.num", ir.TypeInt, "fuchsia.label", ""),
		col("fuchsia.label.unit", ir.TypeString, "fuchsia.label", ""),
		col("fuchsia.contents", ir.TypeBytes, "fuchsia.contents", ""),
	}},
}

// oldStreamColumns are the columns of the stream details that a version 5
// fuchsia.snapshot record declares with "stream": true.
var oldStreamColumns = []oldColumn{
	col("fuchsia.stream.records", ir.TypeUint, "fuchsia.stream.record", ""),
	col("fuchsia.stream.alloc_fields", ir.TypeUint, ir.TableNode, ""),
	col("fuchsia.stream.stack_key", ir.TypeUint, "fuchsia.stack", ""),
	col("fuchsia.stream.stack_chunk_stack", ir.TypeIndex, "fuchsia.stream.stack_chunk", "fuchsia.stack"),
	col("fuchsia.stream.stack_chunk_size", ir.TypeUint, "fuchsia.stream.stack_chunk", ""),
	col("fuchsia.stream.thread_key", ir.TypeUint, "fuchsia.thread", ""),
	col("fuchsia.stream.region_mapping", ir.TypeIndex, "fuchsia.stream.region", "fuchsia.mapping"),
	col("fuchsia.stream.region_fields", ir.TypeUint, "fuchsia.stream.region", ""),
	col("fuchsia.stream.region_vaddr", ir.TypeUint, "fuchsia.stream.region", ""),
	col("fuchsia.stream.contents_chunk_node", ir.TypeUint, "fuchsia.stream.contents_chunk", ""),
	col("fuchsia.stream.contents_chunk_size", ir.TypeUint, "fuchsia.stream.contents_chunk", ""),
	col("fuchsia.stream.orphan_address", ir.TypeUint, "fuchsia.stream.orphan", ""),
	col("fuchsia.stream.orphan_contents", ir.TypeBytes, "fuchsia.stream.orphan_contents", ""),
	col("fuchsia.stream.unknown_record", ir.TypeUint, "fuchsia.stream.unknown", ""),
	col("fuchsia.stream.unknown_ordinal", ir.TypeUint, "fuchsia.stream.unknown", ""),
	opt("fuchsia.stream.unknown_size", ir.TypeCount, "fuchsia.stream.unknown", "fuchsia.stream.unknown_bytes"),
	col("fuchsia.stream.unknown_bytes", ir.TypeBytes, "fuchsia.stream.unknown_bytes", ""),
}

// oldRecord reads a record of a version 1 to 5 stream.
func (d *decoder) oldRecord(kind string, n int) error {
	switch kind {
	case "file":
		if n != 2 {
			return d.errorf("file record of %d elements", n)
		}
		if err := d.fileFields(); err != nil {
			return err
		}
		b := ir.FileBindings(d.f)
		return d.bindDecls(d.file, "file", b, declsOf(b.Columns(), nil))
	case "strings":
		return d.stringsRecord(n)
	case "snapshot":
		if n != 2 {
			return d.errorf("snapshot record of %d elements", n)
		}
		var listed []string
		s, err := d.snapshotFields(func(k string) (err error) {
			if k != "columns" {
				return d.skip()
			}
			listed, err = d.nameList("columns")
			return err
		})
		if err != nil {
			return err
		}
		b := ir.SnapshotBindings(s)
		return d.bindDecls(d.snap, "snapshot", b, declsOf(b.Columns(), listed))
	case "col", "zeros":
		return d.colRecord(n, kind == "zeros")
	case "end":
		return d.endRecord(n)
	}
	old, ok := oldSections[kind]
	if !ok {
		return d.errorf("unknown record %q", kind)
	}
	if d.version < old.since {
		return d.errorf("%s record in a version %d stream (it arrived in version %d)", kind, d.version, old.since)
	}
	if n != 2 {
		return d.errorf("%s record of %d elements", kind, n)
	}
	switch {
	case kind == "moarvm" && d.prev != "file",
		kind == "fuchsia" && d.prev != "file" && d.prev != "moarvm":
		return d.errorf("%s record must come right after the file record", kind)
	}
	return d.oldSection(kind, old)
}

// declsOf returns the declarations of the columns that are not optional,
// and of the optional ones listed.
func declsOf(cols []ir.Column, listed []string) []ir.ColumnDecl {
	var out []ir.ColumnDecl
	for _, c := range cols {
		if !c.Optional || slices.Contains(listed, c.Decl.Name) {
			out = append(out, c.Decl)
		}
	}
	return out
}

// rawStrings reads a msgpack array of strings.
func rawStrings(v []byte) ([]string, error) {
	dec := msgpack.NewDecoder(bytes.NewReader(v))
	n, err := dec.DecodeArrayLen()
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, max(n, 0))
	for range n {
		s, err := dec.DecodeString()
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// nameList reads a list of column names (at most 256 bytes each).
func (d *decoder) nameList(what string) ([]string, error) {
	c, err := d.arrayLen(maxTableLen, what)
	if err != nil {
		return nil, err
	}
	var out []string
	for i := 0; i < c; i++ {
		s, err := d.shortString(256)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// oldSection reads an old section record ["name", {fields}]: the fields go
// to the section (keys it does not have are skipped, as they were), and
// the columns it declares follow from the frozen list, the record's
// "columns" (optional ones present), "stream" (the stream details, columns
// of fuchsia.snapshot) and, for V8, the node and edge fields it names.
func (d *decoder) oldSection(kind string, old oldSection) error {
	idx := int64(-1)
	if old.scope == ir.SnapshotScope {
		if len(d.f.Snapshots) == 0 {
			return d.errorf("%s record before any snapshot record", kind)
		}
		idx = int64(len(d.f.Snapshots) - 1)
	}
	x, sc, err := d.openSection(idx, kind, 1)
	if err != nil {
		return err
	}
	var fields *ir.Bindings
	raw, isRaw := x.(*ir.RawSection)
	if !isRaw {
		fields = &ir.Bindings{Version: 1}
		x.Bind(fields)
	}
	var listed []string
	stream := false
	var nodeExtra, edgeExtra []string
	err = d.mapFields(kind, func(k string) (err error) {
		switch {
		case k == "columns" && (kind == "fuchsia" || kind == "fuchsia.snapshot"):
			listed, err = d.nameList(k)
			if err == nil && d.version < 5 && slices.Contains(listed, "fuchsia.stream.unknown_size") {
				err = d.errorf("column fuchsia.stream.unknown_size listed in a version %d stream (stream details arrived in version 5)", d.version)
			}
			return err
		case k == "stream" && kind == "fuchsia.snapshot":
			if stream, err = d.dec.DecodeBool(); err != nil {
				return err
			}
			if stream && d.version < 5 {
				return d.errorf("fuchsia.snapshot stream details in a version %d stream (they arrived in version 5)", d.version)
			}
			v := ir.JSON{Kind: ir.JSONBool, Bool: stream}
			if isRaw {
				raw.Fields = append(raw.Fields, ir.RawField{Key: k, Value: []byte{0xc2 + boolByte(stream)}})
				return nil
			}
			return fields.FieldNamed(k).SetJSON(v)
		case isRaw:
			var v []byte
			v, err = d.capture()
			raw.Fields = append(raw.Fields, ir.RawField{Key: k, Value: v})
			if err == nil && (k == "node_extra" || k == "edge_extra") && kind == "v8" {
				names, perr := rawStrings(v)
				if perr != nil {
					return d.errorf("v8.%s: %v", k, perr)
				}
				if k == "node_extra" {
					nodeExtra = names
				} else {
					edgeExtra = names
				}
			}
			return err
		}
		if fl := fields.FieldNamed(k); fl != nil {
			return d.fieldValue(fl)
		}
		return d.skip()
	})
	if err != nil {
		return err
	}
	if !stream && slices.Contains(listed, "fuchsia.stream.unknown_size") {
		return d.errorf("fuchsia.snapshot: column fuchsia.stream.unknown_size declared without stream details")
	}
	var decls []ir.ColumnDecl
	if isRaw {
		// No package knows the section: the frozen list declares it.
		if kind == "v8" {
			for _, f := range nodeExtra {
				decls = append(decls, ir.ColumnDecl{Name: "v8.node." + f, Type: ir.TypeUint, Table: ir.TableNode})
			}
			for _, f := range edgeExtra {
				decls = append(decls, ir.ColumnDecl{Name: "v8.edge." + f, Type: ir.TypeUint, Table: ir.TableEdge})
			}
		}
		cols := old.cols
		if stream {
			cols = append(slices.Clone(cols), oldStreamColumns...)
		}
		for _, c := range cols {
			if !c.optional || slices.Contains(listed, c.Name) {
				decls = append(decls, c.ColumnDecl)
			}
		}
	} else {
		b := &ir.Bindings{Version: 1}
		x.Bind(b)
		decls = declsOf(b.Columns(), listed)
	}
	return d.closeSection(sc, x, 1, decls, nil)
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}
