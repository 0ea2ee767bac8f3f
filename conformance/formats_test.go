package conformance

import (
	"io"
	"testing"

	dartir "github.com/heapconv/heapconv/ir/dart"
	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
	moarvmir "github.com/heapconv/heapconv/ir/moarvm"
	v8ir "github.com/heapconv/heapconv/ir/v8"

	"github.com/heapconv/heapconv"
	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/irtest"
)

// format is one row of the conformance table: everything the harness needs
// to know about a format. Adding a format (dart, moarvm, fuchsia) is one
// entry here.
type format struct {
	// name is the format's name in heapconv.Formats.
	name string
	// fixtures is a glob below the module root; "" when the format has
	// none. Files ending in .zst are decompressed in memory.
	fixtures string
	// damage is a glob of more inputs for the damage sweep (TestSweep),
	// which also damages the fixtures.
	damage string
	// judge, when set, is the format's own consumer: every damaged input
	// the reader accepts must satisfy it too (heapconv validate says a file
	// is valid exactly when the reader accepts it).
	judge func(data []byte) error
	// read and write are the format's reader and writer; write is nil for a
	// read-only format.
	read  func(io.Reader) (*ir.File, error)
	write func(io.Writer, *ir.File) (ir.LossReport, error)
	// byteExact: writing what was read reproduces the input byte for byte.
	byteExact bool
	// lossless: writing any valid IR file and reading it back gives an
	// ir.Diff-equal file (only the IR itself).
	lossless bool
	// oneSnapshot: a file holds exactly one snapshot.
	oneSnapshot bool
	// holds lists random graphs the format holds exactly: written and read
	// back, every snapshot is ir.GraphDiff-equal (and, with a V8 section,
	// the section too). The harness sets the node count range.
	holds []genCase
	// v8Output: write produces V8 .heapsnapshot files (and the fixtures are
	// V8 files), so DevTools' loader checks them.
	v8Output bool
	// sameFile, when set, requires a file written from what was read to be
	// the same as the original in the format's own terms (block by block,
	// or as pprof prints it), where the bytes may differ.
	sameFile func(t *testing.T, got, want []byte)
	// pprofOutput: write produces pprof profiles, so `go tool pprof` checks
	// every one.
	pprofOutput bool
	// derives: the reader derives part of the IR from what the file stores
	// (Fuchsia: names from stacks, roots, the gzip flag), so random graphs
	// are compared from their first round trip on: that one is the
	// format's form of the graph, and every later one must give it back.
	derives bool
}

// genCase is a named set of irtest options.
type genCase struct {
	name string
	opts irtest.Options
}

// table lists every format the suite checks.
var table = []format{
	{
		name: ir.FormatIR, read: registryRead(ir.FormatIR), write: registryWrite(ir.FormatIR),
		byteExact: true, lossless: true,
		// A sample of every schema version (their rewrites are the
		// current version, so they are not fixtures).
		damage: "ir/irstream/testdata/versions/*.heapir",
		holds: []genCase{
			{"everything", irtest.Everything(0, 0)},
			{"v8-section", withV8(irtest.Options{Kinds: irtest.KindsMixed, IDs: irtest.IDsAny, BigSizes: true,
				Values: true, Classes: true, Strings: irtest.AllStrings, Snapshots: 2}, v8Everything)},
		},
	},
	{
		name: v8ir.Format, fixtures: "testdata/v8/*.heapsnapshot.zst",
		read: registryRead(v8ir.Format), write: registryWrite(v8ir.Format),
		byteExact: true, oneSnapshot: true, v8Output: true,
		holds: []genCase{
			// Through devtools.Convert (no V8 section).
			{"v8-shaped", irtest.V8Shaped(1, 0)},
			// Through the byte path, in each style V8 writes.
			{"section-node26", withV8(irtest.V8Shaped(1, 0), &irtest.V8Options{Layout: v8ir.LayoutCompact,
				Escape: v8ir.EscapeV8, Detachedness: true, ExtraNativeBytes: true})},
			{"section-node20", withV8(irtest.V8Shaped(1, 0), &irtest.V8Options{Layout: v8ir.LayoutRows,
				Escape: v8ir.EscapeV8, TraceNodeID: true, Detachedness: true})},
			{"section-tracking", withV8(irtest.V8Shaped(1, 0), &irtest.V8Options{Layout: v8ir.LayoutCompact,
				Escape: v8ir.EscapeV8, TraceNodeID: true, Detachedness: true, Trace: true, Locations: true,
				ExtraNativeBytes: true})},
			// Other producers: raw UTF-8, extra keys and columns, fields in
			// another order, made-up kinds, 64-bit numbers.
			{"section-other", withV8(irtest.Options{RootFirst: true, Kinds: irtest.KindsMixed, IDs: irtest.IDsAny,
				BigSizes: true, Strings: irtest.AllStrings}, v8Everything)},
		},
	},
	{
		name: dartir.Format, fixtures: "testdata/dart/*.dartheap*",
		read: registryRead(dartir.Format), write: registryWrite(dartir.Format),
		byteExact: true, oneSnapshot: true,
		holds: []genCase{
			{"vm-current", irtest.Options{Dart: &irtest.DartOptions{Hashes: true, ZeroRefs: true, External: true, Data: true}}},
			{"vm-2020", irtest.Options{Dart: &irtest.DartOptions{OldRoot: true, ZeroRefs: true, Data: true}}},
			{"devtools-export", irtest.Options{Dart: &irtest.DartOptions{Hashes: true, Padding: true}}},
			{"everything", irtest.Options{Strings: irtest.AllStrings, MaxOutDegree: 12, Dart: &irtest.DartOptions{
				Hashes: true, Padding: true, ZeroRefs: true, External: true, Data: true}}},
		},
	},

	{
		name: moarvmir.Format, fixtures: "testdata/moarvm/*.mvmheap*",
		read: registryRead(moarvmir.Format), write: registryWrite(moarvmir.Format),
		sameFile: registrySame(moarvmir.Format),
		holds: []genCase{
			{"v3", irtest.Options{Snapshots: 3, MoarVM: &irtest.MoarVMOptions{}}},
			{"bad-refs-no-pid", irtest.Options{Snapshots: 2, MoarVM: &irtest.MoarVMOptions{BadRefs: true, NoPID: true}}},
			{"one-snapshot", irtest.Options{Snapshots: 1, MoarVM: &irtest.MoarVMOptions{}}},
		},
	},
	{
		name: fuchsiair.Format, fixtures: "testdata/fuchsia/*.pb*",
		read: registryRead(fuchsiair.Format), write: registryWrite(fuchsiair.Format),
		sameFile: samePprof, pprofOutput: true, derives: true, judge: pprofJudge,
		holds: []genCase{
			{"per-block", irtest.Options{Fuchsia: &irtest.FuchsiaOptions{Tags: true}}},
			{"symbolized-multi", irtest.Options{Snapshots: 3, Fuchsia: &irtest.FuchsiaOptions{Tags: true, Symbolized: true, MultiProcess: true}}},
			{"merged-labels", irtest.Options{Snapshots: 2, Fuchsia: &irtest.FuchsiaOptions{MultiProcess: true, Labels: true, ExtraSampleTypes: true, Interleaved: true}}},
		},
	},
	{
		name: fuchsiair.FormatFIDL, fixtures: "testdata/fuchsia-fidl/*.fidlstream",
		read: registryRead(fuchsiair.FormatFIDL), write: registryWrite(fuchsiair.FormatFIDL),
		byteExact: true, derives: true,
		holds: []genCase{
			// Profile-shaped IR is sent as the collector would; what is
			// read back from that must then come back exactly.
			{"from-profile", irtest.Options{Fuchsia: &irtest.FuchsiaOptions{Tags: true, Contents: true}}},
			{"from-profile-multi", irtest.Options{Snapshots: 3, Fuchsia: &irtest.FuchsiaOptions{Tags: true, MultiProcess: true, Contents: true}}},
			{"from-merged-symbolized", irtest.Options{Snapshots: 2, Fuchsia: &irtest.FuchsiaOptions{MultiProcess: true, Symbolized: true, Labels: true, ExtraSampleTypes: true}}},
			// Stream-shaped IR (every chunking, batching and field set a
			// stream may have) is written element for element.
			{"stream-single", irtest.Options{Fuchsia: &irtest.FuchsiaOptions{Stream: true, Tags: true, Contents: true}}},
			{"stream-multi", irtest.Options{Snapshots: 3, Fuchsia: &irtest.FuchsiaOptions{Stream: true, Tags: true, MultiProcess: true, Contents: true}}},
		},
	},
}

var v8Everything = &irtest.V8Options{Layout: v8ir.LayoutRows, Escape: v8ir.EscapeRaw, TraceNodeID: true,
	Detachedness: true, EdgeExtra: true, Trace: true, Locations: true, ExtraNativeBytes: true, ExtraKeys: true,
	ShuffleFields: true}

func withV8(o irtest.Options, v *irtest.V8Options) irtest.Options {
	o.V8 = v
	return o
}

// registryRead and registryWrite take a format's reader and writer from
// package heapconv, so the suite checks what the command line runs.
func registryRead(name string) func(io.Reader) (*ir.File, error) {
	return func(r io.Reader) (*ir.File, error) { return heapconv.FormatByName(name).Read(r, nil) }
}

func registryWrite(name string) func(io.Writer, *ir.File) (ir.LossReport, error) {
	return func(w io.Writer, f *ir.File) (ir.LossReport, error) {
		return heapconv.FormatByName(name).Write(w, f, nil)
	}
}
