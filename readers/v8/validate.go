package v8

import (
	"io"
	"slices"

	"github.com/heapconv/heapconv/ir"
)

// Validate reads a V8 .heapsnapshot and reports every way it breaks what
// Chrome DevTools' loader relies on (docs/formats/v8.md): malformed JSON and
// arrays, wrong counts, edges that do not point at nodes, unknown types,
// string indices out of range, the key order, the root's position, numbers
// DevTools would wrap, and a strings section too long for one JS string.
// Each error names the byte offset it concerns (or -1 when it concerns the
// file as a whole). An empty result means DevTools will load the file.
func Validate(r io.Reader, opts Options) []error {
	var errs []error
	opts.Collect = func(err error) { errs = append(errs, err) }
	f, err := Read(r, opts)
	if err != nil {
		// With Collect, Read stops only on errors it cannot step over, or
		// when the graph is still inconsistent at the end.
		return append(errs, err)
	}
	v := f.Snapshots[0].V8
	var order []string
	for _, k := range v.Keys {
		if k.Value == nil {
			order = append(order, k.Name)
		}
	}
	want := []string{ir.V8KeySnapshot, ir.V8KeyNodes, ir.V8KeyEdges, ir.V8KeyTraceFunctionInfos,
		ir.V8KeyTraceTree, ir.V8KeySamples, ir.V8KeyLocations, ir.V8KeyStrings}
	pos := -1
	for _, k := range order {
		i := slices.Index(want, k)
		if i < pos {
			errs = append(errs, ir.Errorf(ir.FormatV8, -1, "key %q comes after %q; DevTools finds the sections in the order %v", k, want[pos], want))
		}
		pos = max(pos, i)
	}
	units := 2
	for _, s := range f.Strings {
		units += ir.UTF16Len(s) + 3
	}
	if units > 536_870_888 {
		errs = append(errs, ir.Errorf(ir.FormatV8, -1, "the strings section is about %d UTF-16 units; Chrome cannot hold more than 536870888 in one string", units))
	}
	return errs
}
