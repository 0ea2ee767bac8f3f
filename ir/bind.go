package ir

import (
	"fmt"
	"math"
	"slices"
)

// Bindings is the declaration of one part of the stream: the fields and
// columns of the core's file and snapshot records, or of a section, each
// bound to the Go value that holds it. It is the one table the codec, the
// comparison (Diff), validation and the text form are driven by, as the
// event table of Go's internal/trace drives its parser and printer: a
// section declares itself once, in its Bind method, and everything else
// follows.
//
// Fields are scalars and small structured values (msgpack values in the
// section record). Columns are tables of numbers or bytes, one value per
// entry of a table (SPEC.md, Column declarations), in the order the stream
// declares and writes them: a table's first column is the first declared
// with it, and bounds the others as values arrive.
type Bindings struct {
	// Version is the version of the section being read or written, or,
	// for the core's records (FileBindings, SnapshotBindings), the
	// schema version.
	Version int
	fields  []Field
	columns []Column
	sizes   []TableSize
}

// TableSize is a field of a section record that declares the length of
// one of the section's own tables (Bindings.DeclareSize).
type TableSize struct {
	Field string // the key in the section record's fields
	Table string // the table whose length it holds
}

// DeclareSize says that the section record declares the length of its
// table in the field: the encoder writes the length of the table's first
// column there, and a reader takes it as the table's declared count
// (SPEC.md, Column declarations), which bounds the column while values
// arrive and lets it be allocated at once instead of grown by doubling.
// The field holds nothing of the section's Go value, which has the
// column itself: the codec alone reads and writes it, and a stream whose
// table is of another length is refused.
func (b *Bindings) DeclareSize(field, table string) {
	if table == "" || IsSnapshotTable(table) || table == TableClass || table == TableField {
		panic("ir: a section declares the sizes of its own tables, not of " + table)
	}
	b.sizes = append(b.sizes, TableSize{Field: field, Table: table})
}

// Sizes returns the table sizes the section record declares, in order.
func (b *Bindings) Sizes() []TableSize { return b.sizes }

// Size returns the field of the name declared with DeclareSize, or nil.
func (b *Bindings) Size(field string) *TableSize {
	for i := range b.sizes {
		if b.sizes[i].Field == field {
			return &b.sizes[i]
		}
	}
	return nil
}

// TableLen returns the length of a table of the declared columns: that of
// its first column (0 when none is declared).
func (b *Bindings) TableLen(table string) int {
	for i := range b.columns {
		if b.columns[i].Decl.Table == table {
			return b.columns[i].Len()
		}
	}
	return 0
}

// FieldNamed returns the declared field of the name, or nil.
func (b *Bindings) FieldNamed(name string) *Field {
	for i := range b.fields {
		if b.fields[i].Name == name {
			return &b.fields[i]
		}
	}
	return nil
}

// Fields returns the declared fields in order.
func (b *Bindings) Fields() []Field { return b.fields }

// Columns returns the declared columns in order.
func (b *Bindings) Columns() []Column { return b.columns }

// ColumnNamed returns the declared column of the name, or nil.
func (b *Bindings) ColumnNamed(name string) *Column {
	for i := range b.columns {
		if b.columns[i].Decl.Name == name {
			return &b.columns[i]
		}
	}
	return nil
}

// FieldKind is the type of a field.
type FieldKind uint8

// Field kinds.
const (
	FieldUint        FieldKind = iota + 1 // a uint64
	FieldInt                              // an int64
	FieldBool                             // a bool
	FieldString                           // a string value (a str)
	FieldStringIndex                      // a uint32 index into the string table
	FieldJSON                             // a structured value, as JSON
	FieldRaw                              // a field of a section this program does not know: msgpack bytes
)

// Field is one declared field, bound to where its value lives.
type Field struct {
	Name string
	Kind FieldKind
	p    any // *uint64, *int64, *bool, *string, *uint32, *JSON, jsonAccess, *[]byte
}

type jsonAccess struct {
	get func() JSON
	set func(JSON) error
}

func (b *Bindings) field(name string, k FieldKind, p any) {
	if b.fields == nil {
		b.fields = make([]Field, 0, 16)
	}
	b.fields = append(b.fields, Field{Name: name, Kind: k, p: p})
}

// Uint declares a field holding an unsigned integer.
func (b *Bindings) Uint(name string, p *uint64) { b.field(name, FieldUint, p) }

// Int declares a field holding a signed integer.
func (b *Bindings) Int(name string, p *int64) { b.field(name, FieldInt, p) }

// Bool declares a boolean field.
func (b *Bindings) Bool(name string, p *bool) { b.field(name, FieldBool, p) }

// Str declares a field holding a string value (not an index).
func (b *Bindings) Str(name string, p *string) { b.field(name, FieldString, p) }

// StringIndex declares a field holding an index into the string table.
func (b *Bindings) StringIndex(name string, p *uint32) { b.field(name, FieldStringIndex, p) }

// JSON declares a field holding a structured value.
func (b *Bindings) JSON(name string, p *JSON) { b.field(name, FieldJSON, p) }

// Value declares a structured field kept in another Go form: get gives it
// as JSON for writing, set stores it when read (and checks its shape).
func (b *Bindings) Value(name string, get func() JSON, set func(JSON) error) {
	b.field(name, FieldJSON, jsonAccess{get, set})
}

// Uint returns a FieldUint's value.
func (f *Field) Uint() uint64 { return *f.p.(*uint64) }

// Int returns a FieldInt's value.
func (f *Field) Int() int64 { return *f.p.(*int64) }

// Bool returns a FieldBool's value.
func (f *Field) Bool() bool { return *f.p.(*bool) }

// Str returns a FieldString's value.
func (f *Field) Str() string { return *f.p.(*string) }

// Index returns a FieldStringIndex's value.
func (f *Field) Index() uint32 { return *f.p.(*uint32) }

// JSON returns a FieldJSON's value.
func (f *Field) JSON() JSON {
	if a, ok := f.p.(jsonAccess); ok {
		return a.get()
	}
	return *f.p.(*JSON)
}

// Raw returns a FieldRaw's msgpack bytes.
func (f *Field) Raw() []byte { return *f.p.(*[]byte) }

// SetUint sets a FieldUint.
func (f *Field) SetUint(v uint64) { *f.p.(*uint64) = v }

// SetInt sets a FieldInt.
func (f *Field) SetInt(v int64) { *f.p.(*int64) = v }

// SetBool sets a FieldBool.
func (f *Field) SetBool(v bool) { *f.p.(*bool) = v }

// SetStr sets a FieldString.
func (f *Field) SetStr(v string) { *f.p.(*string) = v }

// SetIndex sets a FieldStringIndex.
func (f *Field) SetIndex(v uint32) { *f.p.(*uint32) = v }

// SetJSON sets a FieldJSON, checking its shape.
func (f *Field) SetJSON(v JSON) error {
	if a, ok := f.p.(jsonAccess); ok {
		return a.set(v)
	}
	*f.p.(*JSON) = v
	return nil
}

// SetRaw sets a FieldRaw's msgpack bytes.
func (f *Field) SetRaw(b []byte) { *f.p.(*[]byte) = b }

// ColumnType says how a column's values are written and what they mean.
type ColumnType string

// Column types (SPEC.md, Columns). All but TypeInt and TypeBytes are
// unsigned numbers on the wire.
const (
	TypeUint   ColumnType = "uint"    // unsigned numbers
	TypeInt    ColumnType = "int"     // signed numbers, zigzag-encoded
	TypeBytes  ColumnType = "bytes"   // raw bytes
	TypeString ColumnType = "string"  // indices into the string table
	TypeIndex  ColumnType = "index"   // indices into the table Of
	TypeIndex1 ColumnType = "index+1" // 1 + an index into the table Of, 0 for none
	TypeCount  ColumnType = "count"   // how many consecutive entries of the table Of each entry has
)

// Known reports whether t is one of the types this version declares.
func (t ColumnType) Known() bool {
	switch t {
	case TypeUint, TypeInt, TypeBytes, TypeString, TypeIndex, TypeIndex1, TypeCount:
		return true
	}
	return false
}

// The core's tables. A section's own tables are named after the section
// ("fuchsia.mapping"); a snapshot's column may also be one value per entry
// of a table of the file (TableClass, a file section's).
const (
	TableClass = "class"
	TableField = "field" // the class table's field names
	TableNode  = "node"
	TableEdge  = "edge"
	TableRoot  = "root"
	TableValue = "value"
	// A snapshot of a series (Origin): the string and class tables of the
	// file it came from.
	TableOriginString = "origin.string"
	TableOriginClass  = "origin.class"
)

// ColumnDecl is a column as the stream declares it.
type ColumnDecl struct {
	Name  string
	Type  ColumnType
	Table string // the table the column has one value per entry of
	Of    string // the table TypeIndex, TypeIndex1 and TypeCount refer to
}

// Check reports what is wrong with the declaration by itself (SPEC.md,
// Column declarations): a column has a name and a table, a type of this
// version, and names a table it refers to exactly when its type needs
// one. What depends on the other declarations (a name declared twice,
// whose table a name is, counts) the readers check as they go.
func (d ColumnDecl) Check() error {
	needsOf := d.Type == TypeIndex || d.Type == TypeIndex1 || d.Type == TypeCount
	switch {
	case d.Name == "" || d.Table == "":
		return fmt.Errorf("column %q of table %q: a column has a name and a table", d.Name, d.Table)
	case !d.Type.Known():
		return fmt.Errorf("column %s: unknown type %q", d.Name, d.Type)
	case needsOf != (d.Of != ""):
		return fmt.Errorf("column %s: a %s column refers to table %q", d.Name, d.Type, d.Of)
	}
	return nil
}

// IsSnapshotTable reports whether a table is one of the core's tables of a
// snapshot (node, edge, value, root), to which no column of the file may
// belong or refer.
func IsSnapshotTable(name string) bool {
	return name == TableNode || name == TableEdge || name == TableValue || name == TableRoot
}

// String gives the declaration as the text form and errors print it.
func (d ColumnDecl) String() string {
	s := fmt.Sprintf("%s (%s of %s", d.Name, d.Type, d.Table)
	if d.Of != "" {
		s += " -> " + d.Of
	}
	return s + ")"
}

// Column is one declared column, bound to where its values live.
type Column struct {
	Decl ColumnDecl
	// Optional columns are written only when present (non-empty), so that
	// an absent column and an empty one stay apart (SPEC.md).
	Optional bool
	// Hex columns hold addresses, which the text form (package irtext)
	// writes in hex; the stream does not say.
	Hex bool
	// Data, when set, says the column holds what the program stored (or
	// what cannot be told from it): File.Redact replaces its values and
	// reports them as Data says. The stream does not say.
	Data   *RedactAs
	data   columnData
	expect int // the length the column is expected to reach (0: unknown)
}

// RedactAs says how File.Redact reports the values of a data column
// (Column.Data) it replaces: under Kind (for which IsRedaction holds),
// described by What; Count is values, or bytes for a bytes column.
type RedactAs struct {
	Kind, What string
}

// ColumnOption refines a column declaration.
type ColumnOption func(*Column)

// Strings says the column holds string indices.
func Strings() ColumnOption { return func(c *Column) { c.Decl.Type = TypeString } }

// IndexInto says the column holds indices into table.
func IndexInto(table string) ColumnOption {
	return func(c *Column) { c.Decl.Type, c.Decl.Of = TypeIndex, table }
}

// IndexPlusOne says the column holds 1 + an index into table, 0 for none.
func IndexPlusOne(table string) ColumnOption {
	return func(c *Column) { c.Decl.Type, c.Decl.Of = TypeIndex1, table }
}

// Counts says the column counts the consecutive entries of table each of
// its entries has; the Go value holds them as offsets (one more than the
// entries: entry i has [off[i], off[i+1])), the stream as counts.
func Counts(table string) ColumnOption {
	return func(c *Column) {
		c.Decl.Type, c.Decl.Of = TypeCount, table
		switch p := c.data.(type) {
		case u32Column:
			c.data = &offsets32{p: p.p}
		case u64Column:
			c.data = &offsets64{p: p.p}
		default:
			panic(fmt.Sprintf("ir: count column %s must be bound to a []uint32 or []uint64 of offsets", c.Decl.Name))
		}
	}
}

// Optional says the column may be absent: it is declared only when it has
// entries (a count column: offsets).
func Optional() ColumnOption { return func(c *Column) { c.Optional = true } }

// Hex says the column holds addresses, which people read in hex: the text
// form writes them so (0x1000). It changes nothing in the stream.
func Hex() ColumnOption { return func(c *Column) { c.Hex = true } }

// Data says the column holds what the program stored: File.Redact
// replaces its strings by placeholders of as many characters and zeroes
// its numbers and bytes, and reports them under kind (which begins with
// "redacted-": IsRedaction), described by what. It changes nothing in the
// stream.
func Data(kind, what string) ColumnOption {
	if !IsRedaction(kind) {
		panic("ir: a data column's kind of loss " + kind + " does not begin with " + redactedPrefix)
	}
	return func(c *Column) { c.Data = &RedactAs{Kind: kind, What: what} }
}

// Column declares a column of table bound to p: a *[]uint8, *[]uint32,
// *[]uint64, *[]bool or *Uints (unsigned), or a *[]int64 (signed).
func (b *Bindings) Column(name, table string, p any, opts ...ColumnOption) {
	var data columnData
	typ := TypeUint
	switch p := p.(type) {
	case *[]uint8:
		data = u8Column{p}
	case *[]uint32:
		data = u32Column{p}
	case *[]uint64:
		data = u64Column{p}
	case *[]int64:
		data, typ = i64Column{p}, TypeInt
	case *[]bool:
		data = boolColumn{p}
	case *Uints:
		data = uintsColumn{p}
	case columnData:
		data = p
	default:
		panic(fmt.Sprintf("ir: column %s bound to a %T", name, p))
	}
	if b.columns == nil {
		b.columns = make([]Column, 0, 32)
	}
	// Options refine the column in place: a column of a local variable
	// would escape to the heap, and a file of many snapshots declares
	// many.
	b.columns = append(b.columns, Column{Decl: ColumnDecl{Name: name, Type: typ, Table: table}, data: data})
	c := &b.columns[len(b.columns)-1]
	for _, o := range opts {
		o(c)
	}
}

// Bytes declares a column of raw bytes, one per entry of table.
func (b *Bindings) Bytes(name, table string, p *[]byte, opts ...ColumnOption) {
	b.Column(name, table, bytesColumn{p}, opts...)
	b.columns[len(b.columns)-1].Decl.Type = TypeBytes
}

// Len returns the number of values.
func (c *Column) Len() int { return c.data.len() }

// At returns value i as the stream holds it: a signed value zigzag-encoded,
// a count column's count.
func (c *Column) At(i int) uint64 { return c.data.at(i) }

// Values fills dst with the values from index from on, as At gives them,
// faster than one by one for the columns that hold many.
func (c *Column) Values(dst []uint64, from int) {
	if b, ok := c.data.(bulkColumn); ok {
		b.values(dst, from)
		return
	}
	for j := range dst {
		dst[j] = c.data.at(from + j)
	}
}

// bulkColumn is a column that gives a run of values without a call for
// each.
type bulkColumn interface{ values(dst []uint64, from int) }

// Present reports whether the column is written: always, unless Optional
// and empty.
func (c *Column) Present() bool { return !c.Optional || c.data.present() }

// Append adds values as the stream holds them; it fails on a value out of
// the Go type's range.
func (c *Column) Append(vals []uint64) error {
	if !c.data.add(vals, c.expect) {
		return fmt.Errorf("column %s: a value out of range", c.Decl.Name)
	}
	return nil
}

// Expect says how many values the column will hold once complete, so that
// the next append that needs room allocates them all at once: growing by
// doubling instead leaves copies behind and, in memory the copies
// fragment, can cost twice the column. The caller vouches that n is
// justified by its input.
func (c *Column) Expect(n int) { c.expect = max(n, 0) }

// AppendZeros adds n zeros.
func (c *Column) AppendZeros(n int) { c.data.addZeros(n) }

// BytesOf returns a bytes column's bytes.
func (c *Column) BytesOf() []byte {
	if b, ok := c.data.(bytesColumn); ok {
		return *b.p
	}
	return nil
}

// AppendBytes adds bytes to a bytes column.
func (c *Column) AppendBytes(b []byte) {
	p := c.data.(bytesColumn).p
	*p = append(*p, b...)
}

// Storage returns the column's memory when it is a kind the stream encoder
// writes without going value by value: a []byte (byte and bytes columns),
// a []uint32, a []uint64 or a *Uints. Otherwise it returns nil.
func (c *Column) Storage() any {
	switch d := c.data.(type) {
	case bytesColumn:
		return *d.p
	case u8Column:
		return *d.p
	case u32Column:
		return *d.p
	case u64Column:
		return *d.p
	case uintsColumn:
		return d.p
	}
	return nil
}

// Finish completes a column read from a stream: a count column that was
// declared but got no values holds the offsets of no entries.
func (c *Column) Finish() { c.data.finish() }

// columnData adapts a Go value to a column.
type columnData interface {
	len() int
	at(i int) uint64
	add(vals []uint64, expect int) bool // expect: see Column.Expect
	addZeros(n int)
	present() bool
	finish()
}

type u8Column struct{ p *[]uint8 }

func (c u8Column) len() int        { return len(*c.p) }
func (c u8Column) at(i int) uint64 { return uint64((*c.p)[i]) }
func (c u8Column) addZeros(n int)  { *c.p = append(*c.p, make([]uint8, n)...) }
func (c u8Column) present() bool   { return len(*c.p) > 0 }
func (c u8Column) finish()         {}
func (c u8Column) add(v []uint64, expect int) bool {
	return appendConv(c.p, v, expect, math.MaxUint8, func(x uint64) uint8 { return uint8(x) })
}

type bytesColumn struct{ p *[]byte }

func (c bytesColumn) len() int        { return len(*c.p) }
func (c bytesColumn) at(i int) uint64 { return uint64((*c.p)[i]) }
func (c bytesColumn) addZeros(n int)  { *c.p = append(*c.p, make([]byte, n)...) }
func (c bytesColumn) present() bool   { return len(*c.p) > 0 }
func (c bytesColumn) finish()         {}
func (c bytesColumn) add(v []uint64, expect int) bool {
	return appendConv(c.p, v, expect, math.MaxUint8, func(x uint64) byte { return byte(x) })
}

type u32Column struct{ p *[]uint32 }

func (c u32Column) len() int        { return len(*c.p) }
func (c u32Column) at(i int) uint64 { return uint64((*c.p)[i]) }
func (c u32Column) addZeros(n int)  { *c.p = append(roomFor(*c.p, n), make([]uint32, n)...) }
func (c u32Column) present() bool   { return len(*c.p) > 0 }
func (c u32Column) finish()         {}
func (c u32Column) add(v []uint64, expect int) bool {
	return appendConv(c.p, v, expect, math.MaxUint32, func(x uint64) uint32 { return uint32(x) })
}

type u64Column struct{ p *[]uint64 }

func (c u64Column) len() int        { return len(*c.p) }
func (c u64Column) at(i int) uint64 { return (*c.p)[i] }
func (c u64Column) addZeros(n int)  { *c.p = append(*c.p, make([]uint64, n)...) }
func (c u64Column) present() bool   { return len(*c.p) > 0 }
func (c u64Column) finish()         {}
func (c u64Column) add(v []uint64, expect int) bool {
	*c.p = append(roomUpTo(*c.p, len(v), expect), v...)
	return true
}
func (c u64Column) values(dst []uint64, from int) { copy(dst, (*c.p)[from:from+len(dst)]) }

type i64Column struct{ p *[]int64 }

func (c i64Column) len() int        { return len(*c.p) }
func (c i64Column) at(i int) uint64 { return Zigzag((*c.p)[i]) }
func (c i64Column) addZeros(n int)  { *c.p = append(*c.p, make([]int64, n)...) }
func (c i64Column) present() bool   { return len(*c.p) > 0 }
func (c i64Column) finish()         {}
func (c i64Column) add(v []uint64, expect int) bool {
	return appendConv(c.p, v, expect, math.MaxUint64, Unzigzag)
}
func (c i64Column) values(dst []uint64, from int) {
	for j, x := range (*c.p)[from : from+len(dst)] {
		dst[j] = Zigzag(x)
	}
}

type boolColumn struct{ p *[]bool }

func (c boolColumn) len() int { return len(*c.p) }
func (c boolColumn) at(i int) uint64 {
	if (*c.p)[i] {
		return 1
	}
	return 0
}
func (c boolColumn) addZeros(n int) { *c.p = append(*c.p, make([]bool, n)...) }
func (c boolColumn) present() bool  { return len(*c.p) > 0 }
func (c boolColumn) finish()        {}
func (c boolColumn) add(v []uint64, expect int) bool {
	return appendConv(c.p, v, expect, 1, func(x uint64) bool { return x == 1 })
}
func (c boolColumn) values(dst []uint64, from int) {
	for j, x := range (*c.p)[from : from+len(dst)] {
		dst[j] = 0
		if x {
			dst[j] = 1
		}
	}
}

type uintsColumn struct{ p *Uints }

func (c uintsColumn) len() int        { return c.p.Len() }
func (c uintsColumn) at(i int) uint64 { return c.p.At(i) }
func (c uintsColumn) addZeros(n int)  { c.p.AppendZeros(n) }
func (c uintsColumn) present() bool   { return c.p.Len() > 0 }
func (c uintsColumn) finish()         {}
func (c uintsColumn) add(v []uint64, expect int) bool {
	c.p.appendUpTo(v, expect)
	return true
}
func (c uintsColumn) values(dst []uint64, from int) { c.p.Values(dst, from) }

// appendConv appends every value of v converted, unless one exceeds limit.
func appendConv[T any](p *[]T, v []uint64, expect int, limit uint64, conv func(uint64) T) bool {
	s := roomUpTo(*p, len(v), expect)
	for _, x := range v {
		if x > limit {
			return false
		}
		s = append(s, conv(x))
	}
	*p = s
	return true
}

// offsets32 holds a count column as CSR offsets: entry i counts
// off[i+1]-off[i]. Offsets of no entries are [0]; nil is an absent column.
type offsets32 struct{ p *[]uint32 }

func (c *offsets32) len() int        { return max(len(*c.p)-1, 0) }
func (c *offsets32) at(i int) uint64 { return uint64((*c.p)[i+1] - (*c.p)[i]) }
func (c *offsets32) present() bool   { return len(*c.p) > 0 }
func (c *offsets32) values(dst []uint64, from int) {
	off := (*c.p)[from : from+len(dst)+1]
	for j := range dst {
		dst[j] = uint64(off[j+1] - off[j])
	}
}
func (c *offsets32) finish() {
	if len(*c.p) == 0 {
		*c.p = []uint32{0}
	}
}
func (c *offsets32) addZeros(n int) {
	c.finish()
	last := (*c.p)[len(*c.p)-1]
	for range n {
		*c.p = append(*c.p, last)
	}
}
func (c *offsets32) add(v []uint64, expect int) bool {
	c.finish()
	s := roomUpTo(*c.p, len(v), expect+1)
	last := uint64(s[len(s)-1])
	for _, x := range v {
		if last += x; x > math.MaxUint32 || last > math.MaxUint32 {
			return false
		}
		s = append(s, uint32(last))
	}
	*c.p = s
	return true
}

// offsets64 is offsets32 for 64-bit offsets.
type offsets64 struct{ p *[]uint64 }

func (c *offsets64) len() int        { return max(len(*c.p)-1, 0) }
func (c *offsets64) at(i int) uint64 { return (*c.p)[i+1] - (*c.p)[i] }
func (c *offsets64) present() bool   { return len(*c.p) > 0 }
func (c *offsets64) values(dst []uint64, from int) {
	off := (*c.p)[from : from+len(dst)+1]
	for j := range dst {
		dst[j] = off[j+1] - off[j]
	}
}
func (c *offsets64) finish() {
	if len(*c.p) == 0 {
		*c.p = []uint64{0}
	}
}
func (c *offsets64) addZeros(n int) {
	c.finish()
	last := (*c.p)[len(*c.p)-1]
	for range n {
		*c.p = append(*c.p, last)
	}
}
func (c *offsets64) add(v []uint64, expect int) bool {
	c.finish()
	s := roomUpTo(*c.p, len(v), expect+1)
	last := s[len(s)-1]
	for _, x := range v {
		if last+x < last {
			return false
		}
		last += x
		s = append(s, last)
	}
	*c.p = s
	return true
}

// Zigzag maps a signed value to an unsigned one, small magnitudes to small
// values: 0, -1, 1, -2, 2, ... become 0, 1, 2, 3, 4, ...
func Zigzag(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

// Unzigzag inverts Zigzag.
func Unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// GrowBytes extends a bytes column by n bytes and returns them, for the
// decoder to read into.
func (c *Column) GrowBytes(n int) []byte {
	p := c.data.(bytesColumn).p
	at := len(*p)
	*p = slices.Grow(*p, n)[:at+n]
	return (*p)[at:]
}
