package conformance

import (
	"bytes"
	"encoding/binary"
	"path/filepath"
	"testing"

	dartir "github.com/heapconv/heapconv/ir/dart"
	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
	moarvmir "github.com/heapconv/heapconv/ir/moarvm"
	v8ir "github.com/heapconv/heapconv/ir/v8"
)

// TestCraftedCounts gives readers small files whose headers claim 2^40
// (or 2^64-1) of something: each must be an error naming an offset (for
// MoarVM, a recovery report will do), after allocating no more than the
// damage sweep allows (64 × the input + 128 MiB), whether the reader can
// see the input's size or reads it as a stream. The readers' own hostile
// tests have more (readers/moarvm, readers/fuchsia, internal/fidl, ir).
func TestCraftedCounts(t *testing.T) {
	fixture := func(parts ...string) func(t *testing.T) []byte {
		return func(t *testing.T) []byte {
			return loadFixture(t, filepath.Join(append([]string{moduleRoot, "testdata"}, parts...)...))
		}
	}
	v8 := fixture("v8", "small", "compact.heapsnapshot")
	dart := fixture("dart", "synthetic_vm_layout.dartheap")
	moarvm := fixture("moarvm", "nqp-1snap.mvmheap")
	moarvm2 := fixture("moarvm", "nqp-1snap-v002.mvmheap.gz")
	pprof := fixture("fuchsia", "gen-current-tags.pb")
	replace := func(b []byte, old, new string) []byte {
		if !bytes.Contains(b, []byte(old)) {
			panic("no " + old)
		}
		return bytes.Replace(b, []byte(old), []byte(new), 1)
	}
	// splice replaces the n bytes at off by the given ones.
	splice := func(b []byte, off, n int, with ...byte) []byte {
		return append(append(append([]byte{}, b[:off]...), with...), b[off+n:]...)
	}
	uleb40 := []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x20} // 2^40
	// set40 sets the u64 at where in a fixture to 2^40.
	set40 := func(load func(*testing.T) []byte, where func([]byte) int) func(*testing.T) []byte {
		return func(t *testing.T) []byte {
			b := load(t)
			binary.LittleEndian.PutUint64(b[where(b):], 1<<40)
			return b
		}
	}
	// A MoarVM v3 file ends with its outer table of contents' offset; a
	// table of contents is "toc" padded to 8 bytes, an entry count, then
	// (name, start, end) entries of 8 bytes each.
	outerTOC := func(b []byte) int { return int(binary.LittleEndian.Uint64(b[len(b)-8:])) }
	innerTOC := func(b []byte) int {
		o := outerTOC(b)
		for i := range int(binary.LittleEndian.Uint64(b[o+8:])) {
			e := o + 16 + 24*i
			if string(bytes.TrimRight(b[e:e+8], "\x00")) == "toc" {
				return int(binary.LittleEndian.Uint64(b[e+8:]))
			}
		}
		panic("no inner table of contents")
	}
	// tag finds the first v2 block of that name, block the first v3 one.
	tag := func(b []byte, name string) int {
		i := bytes.Index(b[16:], []byte(name))
		if i < 0 {
			panic("no " + name)
		}
		return 16 + i
	}
	block := func(b []byte, name string) int {
		var key [8]byte
		copy(key[:], name)
		return tag(b, string(key[:]))
	}
	cases := []struct {
		format string
		name   string
		input  func(t *testing.T) []byte
	}{
		{v8ir.Format, "node_count 2^40", func(t *testing.T) []byte {
			return replace(v8(t), `"node_count":3`, `"node_count":1099511627776`)
		}},
		{v8ir.Format, "edge_count 2^40", func(t *testing.T) []byte {
			return replace(v8(t), `"edge_count":2`, `"edge_count":1099511627776`)
		}},
		{v8ir.Format, "node_count 2^64-1", func(t *testing.T) []byte {
			return replace(v8(t), `"node_count":3`, `"node_count":18446744073709551615`)
		}},
		{v8ir.Format, "trace_function_count 2^40", func(t *testing.T) []byte {
			return replace(v8(t), `"trace_function_count":2`, `"trace_function_count":1099511627776`)
		}},
		// The Dart sample's header: the isolate name's length at 9, the
		// class count at 20, the first class name's length at 22, the
		// referenceCount at 0x125 and the objectCount at 0x126. A longer
		// uleb shifts the rest, which the error must come before anyway.
		{dartir.Format, "isolate name of 2^40 bytes", func(t *testing.T) []byte { return splice(dart(t), 9, 1, uleb40...) }},
		{dartir.Format, "class count 2^40", func(t *testing.T) []byte { return splice(dart(t), 20, 1, uleb40...) }},
		{dartir.Format, "class name of 2^40 bytes", func(t *testing.T) []byte { return splice(dart(t), 22, 1, uleb40...) }},
		{dartir.Format, "referenceCount 2^40", func(t *testing.T) []byte { return splice(dart(t), 0x125, 1, uleb40...) }},
		{dartir.Format, "objectCount 2^40", func(t *testing.T) []byte { return splice(dart(t), 0x126, 1, uleb40...) }},
		{moarvmir.Format, "outer table of contents of 2^40 entries", set40(moarvm, func(b []byte) int { return outerTOC(b) + 8 })},
		{moarvmir.Format, "inner table of contents of 2^40 entries", set40(moarvm, func(b []byte) int { return innerTOC(b) + 8 })},
		{moarvmir.Format, "file metadata of 2^40 bytes", set40(moarvm, func(b []byte) int { return block(b, "filemeta") + 8 })},
		// Version 2 (Debian's): tagged blocks "coll", "refs", "strs" of a
		// u64 count each, a trailer ending in the snapshot count.
		{moarvmir.Format, "v2 collectables 2^40", set40(moarvm2, func(b []byte) int { return tag(b, "coll") + 4 })},
		{moarvmir.Format, "v2 references 2^40", set40(moarvm2, func(b []byte) int { return tag(b, "refs") + 4 })},
		{moarvmir.Format, "v2 string of 2^40 bytes", set40(moarvm2, func(b []byte) int { return tag(b, "strs") + 12 })},
		{moarvmir.Format, "v2 snapshot count 2^40", set40(moarvm2, func(b []byte) int { return len(b) - 8 })},
		// pprof is protobuf: a field's length is all there is to claim.
		{fuchsiair.Format, "string table entry of 2^40 bytes", func(t *testing.T) []byte {
			return append(pprof(t), 0x32, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20) // field 6, length 2^40
		}},
		{fuchsiair.Format, "sample of 2^40 bytes", func(t *testing.T) []byte {
			return append(pprof(t), 0x12, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20) // field 2
		}},
		{fuchsiair.Format, "a packed stack of 2^40 bytes", func(t *testing.T) []byte {
			// field 2 (a sample) of 7 bytes: field 1 (location ids), length 2^40
			return append(pprof(t), 0x12, 0x07, 0x0a, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20)
		}},
	}
	for _, tc := range cases {
		for _, stream := range []bool{false, true} {
			name := tc.format + "/" + tc.name
			if stream {
				name += "/stream"
			}
			t.Run(name, func(t *testing.T) {
				fm := formatByName(tc.format)
				data := tc.input(t)
				r := sweepRead(fm, data, stream)
				// As the sweep checks a cut file (no panic, bounded
				// allocation, an offset in the input), and never accepted
				// unless recovered.
				sweepCheck(t, fm, tc.name, data, nil, r, true)
				switch {
				case r.err != nil:
					t.Logf("%v (%d bytes allocated)", r.err, r.alloc)
				case moarvmir.FileOf(r.f) != nil && moarvmir.FileOf(r.f).Recovery != nil:
					rc := moarvmir.FileOf(r.f).Recovery
					t.Logf("recovered %d snapshot(s) after damage at %d: %s (%d bytes allocated)", len(r.f.Snapshots), rc.DamageAt, rc.Reason, r.alloc)
				default:
					t.Fatalf("accepted")
				}
			})
		}
	}
}
