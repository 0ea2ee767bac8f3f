package ir

// The class identity and external memory every format's heap shares:
// how classes of one name are told apart, and what counts as memory
// outside the managed heap.

// IsExternalTotal reports whether a snapshot total counts memory outside the
// managed heap (V8's extra_native_bytes, a format's external size).
func IsExternalTotal(name string) bool {
	return name == "extra_native_bytes" || name == "external_size"
}

// ExternalTotals counts a snapshot's external totals (IsExternalTotal) that
// are not 0, and adds up their bytes: what a target that has no such total
// loses (a total of 0 bytes counts no memory).
func ExternalTotals(totals []Total) (n int, bytes uint64) {
	for _, t := range totals {
		if IsExternalTotal(t.Name) && t.Value > 0 {
			n++
			bytes = SatAdd(bytes, t.Value)
		}
	}
	return n, bytes
}

// ExternalSize returns a snapshot's memory outside the managed heap: the
// per-node external sizes plus the external totals, saturating at 2^64-1.
func ExternalSize(s *Snapshot) uint64 {
	ext := s.Nodes.ExternalSize.Sum()
	for _, t := range s.Totals {
		if IsExternalTotal(t.Name) {
			ext = SatAdd(ext, t.Value)
		}
	}
	return ext
}

// ClassLabels names every class of the table, qualified by its library
// (ClassLibrary) where two libraries define a class of the same name (Dart
// apps have several "Node"s), so that their objects are not counted as one
// class: "Node (package:app/tree.dart)".
func ClassLabels(f *File) []string {
	c := &f.Classes
	libs := map[string]map[string]bool{}
	for k := 0; k < c.Len(); k++ {
		name := f.String(c.Name[k])
		if libs[name] == nil {
			libs[name] = map[string]bool{}
		}
		libs[name][ClassLibrary(f, k)] = true
	}
	out := make([]string, c.Len())
	for k := range out {
		name := f.String(c.Name[k])
		out[k] = name
		if l := ClassLibrary(f, k); len(libs[name]) > 1 && l != "" {
			out[k] = name + " (" + l + ")"
		}
	}
	return out
}

// ClassLibrary returns the library that tells apart classes of one name:
// what a section of the first snapshot says (ClassLibraries: a Dart file's
// library URI), else the class's library (a MoarVM type's REPR name, a
// Fuchsia module).
func ClassLibrary(f *File, k int) string {
	if l := classMark(f, func(x Section) string {
		if c, ok := x.(ClassLibraries); ok {
			return c.ClassLibrary(f, k)
		}
		return ""
	}); l != "" {
		return l
	}
	if k < len(f.Classes.Library) {
		return f.String(f.Classes.Library[k])
	}
	return ""
}

// classMark returns the first answer, not empty, that a section of the
// file's first snapshot gives to ask: the sections that say more of the
// file's classes are a snapshot's, and every snapshot's says the same.
func classMark(f *File, ask func(Section) string) string {
	if len(f.Snapshots) == 0 {
		return ""
	}
	for _, x := range f.Snapshots[0].Sections {
		if a := ask(x); a != "" {
			return a
		}
	}
	return ""
}
