package fuchsia

import (
	"slices"

	"github.com/heapconv/heapconv/ir"
)

// What a redaction (ir.File.Redact) replaces in a Fuchsia heapdump: the
// blocks' contents (the --output-contents-dir files, a FIDL stream's
// BlockContents, orphan chunks among them), the memory the program wrote,
// zeroed, as many bytes; the payloads of FIDL fields this heapconv does
// not know (a newer collector's), zeroed, since what they hold cannot be
// told from memory; the string values of labels ffx does not write
// (another producer's), replaced by placeholders. The section's columns
// say so (ir.Data). Edges already derived from the contents (--scan-
// pointers) stay. Everything else is the profiler's: block addresses,
// sizes, timestamps, threads and processes (their names too), stacks,
// mappings, module names and build ids, functions and files; numeric
// labels are measurements with a unit, and are kept.

// The kinds of redaction of the Fuchsia sections (ir.IsRedaction holds for
// them; the blocks' contents are ir.LossRedactedContents).
const (
	// LossRedactedLabels: the string values of labels ffx does not write;
	// Count is labels.
	LossRedactedLabels = "redacted-fuchsia-labels"
	// LossRedactedUnknownFields: the payloads of a FIDL stream's fields
	// this heapconv does not know; Count is bytes.
	LossRedactedUnknownFields = "redacted-fidl-unknown-fields"
)

// How the redaction describes what it replaced.
const (
	redactedContents      = "bytes of the blocks' contents (memory the program wrote), zeroed"
	redactedLabels        = "string values of labels ffx does not write (another producer's), replaced by placeholders of as many characters"
	redactedUnknownFields = "bytes of FIDL fields this heapconv does not know (a newer collector's), zeroed: what they hold cannot be told from the program's data"
)

var _ ir.StringHolder = (*File)(nil)

// stringRefs calls at with every string index the profile's structured
// fields hold: the sample types', the period type's and the comments.
func (m *File) stringRefs(at func(*uint32)) {
	for i := range m.SampleTypes {
		at(&m.SampleTypes[i].Type)
		at(&m.SampleTypes[i].Unit)
	}
	at(&m.PeriodType.Type)
	at(&m.PeriodType.Unit)
	for i := range m.Comments {
		at(&m.Comments[i])
	}
}

// UsedStrings calls use with the strings of the sample types, the period
// type and the comments, which the section keeps in structured fields.
func (m *File) UsedStrings(use func(uint32)) { m.stringRefs(func(p *uint32) { use(*p) }) }

// RenumberStrings renumbers the strings of the sample types, the period
// type and the comments.
func (m *File) RenumberStrings(sm *ir.StringMap) {
	// Structured fields may share memory with the original's: the lists
	// are replaced, not changed in place.
	m.SampleTypes = slices.Clone(m.SampleTypes)
	m.Comments = slices.Clone(m.Comments)
	m.stringRefs(func(p *uint32) { *p = sm.Index(*p) })
}
