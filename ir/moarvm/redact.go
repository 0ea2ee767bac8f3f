package moarvm

import "github.com/heapconv/heapconv/ir"

// What a redaction (ir.File.Redact) replaces in a MoarVM file: nothing. A
// MoarVM heap snapshot holds no object's contents: its strings are the
// names of types, REPRs and static frames (with their compilation units
// and files) and the descriptions of references, which are attribute
// names and the VM's fixed words ("<STable>", "Code refs array entry");
// the elements of arrays and hashes are references without a description
// (the NQP fixture that fills a hash with 15,000 keys and values holds
// none of them). Its numbers are sizes, indices, times and counts. The
// file section renumbers the string heap when the redaction drops strings
// nothing uses (ir.StringHolder): the heap's size and what each inner TOC
// added.

var _ ir.StringHolder = (*File)(nil)

// UsedStrings uses no string: the static frames' strings are declared
// columns, and the string heap's size is a count.
func (m *File) UsedStrings(func(uint32)) {}

// RenumberStrings makes the string heap's size and what each TOC added
// count the strings of the new table: those kept, which keep their order,
// so that each TOC adds a range again.
func (m *File) RenumberStrings(sm *ir.StringMap) {
	kept := func(lo, hi int) int {
		n := 0
		for i := lo; i < hi; i++ {
			if sm.Kept(uint32(i)) {
				n++
			}
		}
		return n
	}
	at := 0
	tocs := make([]TOC, len(m.TOCs))
	for k, t := range m.TOCs {
		tocs[k] = t
		tocs[k].NewStrings = uint32(kept(at, at+int(t.NewStrings)))
		at += int(t.NewStrings)
	}
	m.TOCs = tocs
	m.StringCount = kept(0, m.StringCount)
}
