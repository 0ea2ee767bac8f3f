package v8

import (
	"io"
	"slices"

	"github.com/heapconv/heapconv/ir"
	v8ir "github.com/heapconv/heapconv/ir/v8"
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
	v := v8ir.Of(f.Snapshots[0])
	var order []string
	for _, k := range v.Keys {
		if k.Value == nil {
			order = append(order, k.Name)
		}
	}
	want := v8ir.Keys
	pos := -1
	for _, k := range order {
		i := slices.Index(want, k)
		if i < pos {
			errs = append(errs, ir.Errorf(v8ir.Format, -1, "key %q comes after %q; DevTools finds the sections in the order %v", k, want[pos], want))
		}
		pos = max(pos, i)
	}
	if units := v8ir.StringsUnits(f.Strings, v.Layout, v.Escape); units > v8ir.MaxStringsUnits {
		errs = append(errs, ir.Errorf(v8ir.Format, -1, "the strings section is %d UTF-16 units; Chrome cannot hold more than %d in one string", units, v8ir.MaxStringsUnits))
	}
	return errs
}
