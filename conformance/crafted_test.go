package conformance

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"heapconv/ir"
)

// TestCraftedCounts gives readers small files whose headers claim 2^40
// (or 2^64-1) of something: each must be an error naming an offset, after
// allocating no more than the damage sweep allows (64 × the input +
// 128 MiB). The other readers' crafted counts are in their own hostile
// tests (readers/moarvm, readers/fuchsia, internal/fidl, ir).
func TestCraftedCounts(t *testing.T) {
	v8 := func(t *testing.T) []byte {
		b, err := os.ReadFile(filepath.Join(moduleRoot, "testdata", "v8", "small", "compact.heapsnapshot"))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	dart := func(t *testing.T) []byte {
		b, err := os.ReadFile(filepath.Join(moduleRoot, "testdata", "dart", "synthetic_vm_layout.dartheap"))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	replace := func(b []byte, old, new string) []byte {
		if !bytes.Contains(b, []byte(old)) {
			panic("no " + old)
		}
		return bytes.Replace(b, []byte(old), []byte(new), 1)
	}
	cases := []struct {
		format string
		name   string
		input  func(t *testing.T) []byte
	}{
		{ir.FormatV8, "node_count 2^40", func(t *testing.T) []byte {
			return replace(v8(t), `"node_count":3`, `"node_count":1099511627776`)
		}},
		{ir.FormatV8, "edge_count 2^40", func(t *testing.T) []byte {
			return replace(v8(t), `"edge_count":2`, `"edge_count":1099511627776`)
		}},
		{ir.FormatV8, "node_count 2^64-1", func(t *testing.T) []byte {
			return replace(v8(t), `"node_count":3`, `"node_count":18446744073709551615`)
		}},
		{ir.FormatV8, "trace_function_count 2^40", func(t *testing.T) []byte {
			return replace(v8(t), `"trace_function_count":2`, `"trace_function_count":1099511627776`)
		}},
		{ir.FormatDart, "class count 2^40", func(t *testing.T) []byte {
			// The class count follows the header's reserved, name and
			// three sizes; replacing its uleb by a longer one shifts the
			// rest, which the error must come before anyway.
			b := dart(t)
			return append(append(append([]byte{}, b[:20]...), 0x80, 0x80, 0x80, 0x80, 0x80, 0x20), b[21:]...)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.format+"/"+tc.name, func(t *testing.T) {
			var fm format
			for _, f := range table {
				if f.name == tc.format {
					fm = f
				}
			}
			data := tc.input(t)
			r := sweepRead(fm, data)
			// As the sweep checks a cut file (no panic, bounded
			// allocation, an offset in the input), and never accepted.
			sweepCheck(t, fm, tc.name, data, nil, r, true)
			if r.err == nil {
				t.Fatalf("accepted")
			}
			t.Logf("%v (%d bytes allocated)", r.err, r.alloc)
		})
	}
}
