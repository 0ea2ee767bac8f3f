package ir

import (
	"fmt"
	"slices"
	"sync"
)

// A Section is what a format has beyond the common model: in a file (what
// its snapshots share) or in a snapshot. Each format's package under ir
// (ir/v8, ir/dart, ir/moarvm, ir/fuchsia) defines its sections and
// registers them with RegisterSection, as image decoders register with
// package image, so that this package codes, compares, validates and prints
// them without knowing any format.
type Section interface {
	// SectionName is the section's name in the stream ("v8",
	// "moarvm.snapshot").
	SectionName() string
	// Bind declares the section's fields and columns: the one description
	// of its part of the stream (Bindings). b.Version is the version of
	// the section being read or written.
	Bind(b *Bindings)
	// Validate checks what the declarations do not say: the format's own
	// rules. The generic rules (every column as long as its table, indices
	// in range, counts adding up) have been checked. s is nil for a file's
	// section.
	Validate(f *File, s *Snapshot) error
}

// Scope says whether a section belongs to a file or to a snapshot.
type Scope uint8

// Scopes.
const (
	FileScope Scope = iota
	SnapshotScope
)

// String gives "file" or "snapshot".
func (s Scope) String() string {
	if s == FileScope {
		return "file"
	}
	return "snapshot"
}

type sectionType struct {
	scope   Scope
	version int
	new     func() Section
}

var (
	sectionMu    sync.RWMutex
	sectionTypes = map[string]sectionType{}
)

// RegisterSection makes a section known: newSection returns an empty one,
// which reads the section's records of any version up to version (the one
// it writes). A format package registers its sections from its init
// function. Registering a name twice panics.
func RegisterSection(name string, scope Scope, version int, newSection func() Section) {
	sectionMu.Lock()
	defer sectionMu.Unlock()
	if _, dup := sectionTypes[name]; dup {
		panic("ir: section " + name + " registered twice")
	}
	if version < 1 {
		panic(fmt.Sprintf("ir: section %s of version %d", name, version))
	}
	sectionTypes[name] = sectionType{scope, version, newSection}
}

// NewSection returns an empty section of the name for reading a record of
// the version in the scope: the registered one, or a RawSection when no
// package registered it there or it is of a newer version than the
// registered one reads.
func NewSection(name string, scope Scope, version int) Section {
	sectionMu.RLock()
	t, ok := sectionTypes[name]
	sectionMu.RUnlock()
	if !ok || t.scope != scope || version > t.version || version < 1 {
		return &RawSection{Name: name, Version: version}
	}
	return t.new()
}

// SectionNames returns the names of the registered sections, sorted.
func SectionNames() []string {
	sectionMu.RLock()
	defer sectionMu.RUnlock()
	names := make([]string, 0, len(sectionTypes))
	for n := range sectionTypes {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// SectionVersion returns the version a registered section writes, and
// whether it is registered.
func SectionVersion(name string) (int, bool) {
	sectionMu.RLock()
	defer sectionMu.RUnlock()
	t, ok := sectionTypes[name]
	return t.version, ok
}

// sectionVersion is the version a section is written in.
func sectionVersion(x Section) int {
	if r, ok := x.(*RawSection); ok {
		return r.Version
	}
	v, _ := SectionVersion(x.SectionName())
	return max(v, 1)
}

// SectionBindings returns a section's declaration for writing it.
func SectionBindings(x Section) *Bindings {
	b := &Bindings{Version: sectionVersion(x)}
	x.Bind(b)
	return b
}

// RawSection is a section this program does not know (no package
// registered it, or it is newer than the registered one reads), kept as
// the stream held it: its fields as msgpack values, its columns as their
// declarations and values. It is written back as it was read, and a
// conversion to another format names it as lost.
type RawSection struct {
	Name    string
	Version int
	Fields  []RawField
	Columns []RawColumn
}

// RawField is one field of a RawSection: its key and its msgpack value.
type RawField struct {
	Key   string
	Value []byte
}

// RawColumn is one column of a RawSection: values as the stream holds
// them (signed ones zigzag-encoded, counts as counts), or bytes.
type RawColumn struct {
	Decl   ColumnDecl
	Values Uints
	Bytes  []byte
}

// SectionName returns the section's name.
func (r *RawSection) SectionName() string { return r.Name }

// Bind declares the fields and columns as they were read.
func (r *RawSection) Bind(b *Bindings) {
	for i := range r.Fields {
		b.field(r.Fields[i].Key, FieldRaw, &r.Fields[i].Value)
	}
	for i := range r.Columns {
		c := &r.Columns[i]
		var data columnData = uintsColumn{&c.Values}
		if c.Decl.Type == TypeBytes {
			data = bytesColumn{&c.Bytes}
		}
		b.columns = append(b.columns, Column{Decl: c.Decl, data: data})
	}
}

// Validate accepts what the declarations allow: nothing more is known.
func (r *RawSection) Validate(*File, *Snapshot) error { return nil }

// Loss names the section: no format but the IR holds what it does not know.
func (r *RawSection) Loss(_ *File, _ *Snapshot, t Target) LossReport {
	var l LossReport
	l.Addf(LossUnknownSections, 1, "sections of a version or format this heapconv does not know have no place in %s", t.Name).
		WithExample(fmt.Sprintf("%s version %d", r.Name, r.Version))
	return l
}

// Section returns the file's section of the name, or nil.
func (f *File) Section(name string) Section { return findSection(f.Sections, name) }

// Section returns the snapshot's section of the name, or nil.
func (s *Snapshot) Section(name string) Section { return findSection(s.Sections, name) }

// SetSection replaces the file's section of x's name with x, or adds it.
func (f *File) SetSection(x Section) { f.Sections = setSection(f.Sections, x) }

// SetSection replaces the snapshot's section of x's name with x, or adds it.
func (s *Snapshot) SetSection(x Section) { s.Sections = setSection(s.Sections, x) }

func findSection(l []Section, name string) Section {
	for _, x := range l {
		if x.SectionName() == name {
			return x
		}
	}
	return nil
}

// setSection returns l with x in place of the section of its name (in a
// new slice, so that a copy of a file or snapshot sharing l is not
// changed), or added.
func setSection(l []Section, x Section) []Section {
	if x == nil {
		panic("ir: SetSection(nil): set Sections to drop sections")
	}
	l = slices.Clone(l)
	for i := range l {
		if l[i].SectionName() == x.SectionName() {
			l[i] = x
			return l
		}
	}
	return append(l, x)
}

// Selecter is implemented by a file's section that changes when the file
// is cut down to one snapshot (File.Select): g is the result being made, a
// copy of f holding snapshot n; Select puts the section's own part in g
// (SetSection), and may give g a changed copy of the snapshot and another
// class table.
type Selecter interface {
	Select(f *File, n int, g *File)
}

// Target describes the format a file is converted to, for the loss report
// of what its sections hold (SectionLoss).
type Target struct {
	// Format is the target's format name; a section loses nothing to its
	// own format.
	Format string
	// Name is how a report names a file of the format ("a Dart file").
	Name string
	// What the target keeps of what other formats' sections hold: objects'
	// allocation stacks, code locations that hold no objects (static
	// frames), and the source's class table for converting back.
	KeepsStacks, KeepsFrames, KeepsClasses bool
}

// LossReporter is implemented by sections that hold what other formats
// cannot: Loss names it for a conversion to t (s is nil for a file's
// section).
type LossReporter interface {
	Loss(f *File, s *Snapshot, t Target) LossReport
}

// SectionLoss names what the sections of snapshot s of f (with s nil, of
// f itself) hold that a file of format t cannot.
func SectionLoss(f *File, s *Snapshot, t Target) LossReport {
	l := f.Sections
	if s != nil {
		l = s.Sections
	}
	var loss LossReport
	for _, x := range l {
		if r, ok := x.(LossReporter); ok {
			loss.Merge(r.Loss(f, s, t))
		}
	}
	return loss
}
