package heapconv_test

import (
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/heapconv/heapconv"
	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/analysis"
)

// Convert a Dart VM heap snapshot into a file Chrome DevTools opens
// (Memory panel, Load profile), and see what the V8 format could not hold.
func ExampleConvertFile() {
	dir, err := os.MkdirTemp("", "heapconv-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "flutter-counter.heapsnapshot")

	report, err := heapconv.ConvertFile("testdata/samples/flutter-counter.dartheap.zst", out, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(report.From, "->", report.To)
	for _, loss := range report.Losses {
		fmt.Println(loss.Kind)
	}
	// Output:
	// dart -> v8
	// dart-truncated-strings
	// dart-zero-refs
	// totals
	// classes
	// node-names
	// node-ids
	// values
	// dart-section
}

// Archive a heap snapshot of any format in heapconv's own format, the
// zstd-compressed IR, which keeps everything every format holds; it
// converts back to the original format exactly.
func ExampleWriteFile() {
	f, err := heapconv.ReadFile("testdata/moarvm/nqp-1snap.mvmheap", nil)
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "heapconv-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	archive := filepath.Join(dir, "nqp.heapir.zst")
	loss, err := heapconv.WriteFile(archive, f, nil)
	if err != nil {
		log.Fatal(err)
	}
	back, err := heapconv.ReadFile(archive, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("losses:", len(loss))
	fmt.Println("read back:", back.Format, len(back.Snapshots), "snapshot")
	fmt.Println("differences:", len(ir.Diff(f, back, 1)))
	// Output:
	// losses: 0
	// read back: moarvm 1 snapshot
	// differences: 0
}

// Archive a heap at the level a command line names (ParseLevel): "fast"
// when writing must be quick, "best" for the smallest file. Every level
// reads back the same.
func ExampleWriteOptions_level() {
	f, err := heapconv.ReadFile("testdata/moarvm/nqp-1snap.mvmheap", nil)
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "heapconv-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	size := map[string]int64{}
	for _, name := range []string{"fast", "best"} {
		level, err := heapconv.ParseLevel(name)
		if err != nil {
			log.Fatal(err)
		}
		archive := filepath.Join(dir, name+".heapir.zst")
		if _, err := heapconv.WriteFile(archive, f, &heapconv.WriteOptions{Level: level}); err != nil {
			log.Fatal(err)
		}
		st, err := os.Stat(archive)
		if err != nil {
			log.Fatal(err)
		}
		size[name] = st.Size()
		back, err := heapconv.ReadFile(archive, nil)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %d differences\n", level, len(ir.Diff(f, back, 1)))
	}
	fmt.Println("best is smaller:", size["best"] < size["fast"])
	_, err = heapconv.ParseLevel("max")
	fmt.Println(err)
	// Output:
	// fast: 0 differences
	// best: 0 differences
	// best is smaller: true
	// unknown compression level "max" (levels: fast, default, best)
}

// Read a MoarVM file, which holds one snapshot per garbage collection it
// was asked to record, and look at each.
func ExampleReadFile() {
	f, err := heapconv.ReadFile("testdata/moarvm/nqp-3snap.mvmheap", nil)
	if err != nil {
		log.Fatal(err)
	}
	for i, s := range f.Snapshots {
		sum := analysis.Summarize(f, s, 1)
		fmt.Printf("snapshot %d: %d nodes, %d edges, most memory in %s\n",
			i, s.Nodes.Len(), s.Edges.Len(), sum.TopClasses[0].Name)
	}
	// Output:
	// snapshot 0: 86481 nodes, 317913 edges, most memory in VMString
	// snapshot 1: 127190 nodes, 374608 edges, most memory in VMString
	// snapshot 2: 144538 nodes, 440461 edges, most memory in VMString
}

// Check a heap-snapshot writer of your own: read its file, write it again
// in its own format and compare, at the level the format promises.
func ExampleRoundTrip() {
	verdicts, err := heapconv.RoundTrip("testdata/v8/small/rows.heapsnapshot", nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, v := range verdicts {
		fmt.Println(v.Same, v.Text)
	}
	// Output:
	// true v8 -> IR -> v8: byte-exact (1181 bytes)
	// true IR msgpack+zstd round trip: identical
}

// Tell what a file is, and list a MoarVM file's snapshots from its index
// without reading them.
func ExampleOpenFile() {
	in, err := heapconv.OpenFile("testdata/moarvm/nqp-3snap.mvmheap", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer in.Close()
	fmt.Println(in.Format.Name, "-", in.Format.Description)
	for i, s := range in.Index() {
		fmt.Println(i, s)
	}
	// Output:
	// moarvm - MoarVM heap snapshot (several snapshots per file)
	// 0 GC run 1: 86470 collectables, 317913 references, heap 9712036 bytes
	// 1 GC run 2: 127179 collectables, 374608 references, heap 11213792 bytes
	// 2 GC run 3: 144526 collectables, 440461 references, heap 12801448 bytes
}

// See what Chrome DevTools will show for a Dart heap: convert it in memory
// and summarize the result as DevTools' Summary view does, here its
// largest classes by object count.
func ExampleConvert() {
	f, err := heapconv.ReadFile("testdata/samples/flutter-counter.dartheap.zst", nil)
	if err != nil {
		log.Fatal(err)
	}
	v8, _, err := heapconv.Convert(f, "v8", nil)
	if err != nil {
		log.Fatal(err)
	}
	sum, err := analysis.SummarizeBy(v8, v8.Snapshots[0], 3, analysis.ByCount)
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range sum.TopClasses {
		fmt.Println(c.Name, c.Count)
	}
	// Output:
	// (string) 2670
	// (compiled code) 2563
	// (system) 1990
}

// Conditions a caller acts on are sentinel errors; damage to the input is
// an *ir.FormatError with the byte offset.
func ExampleReadFile_errors() {
	_, err := heapconv.ReadFile("testdata/moarvm/nqp-1snap.expected.json", nil)
	fmt.Println(errors.Is(err, heapconv.ErrUnrecognized))

	// A V8 file holds one snapshot; this MoarVM file has three.
	_, err = heapconv.ConvertFile("testdata/moarvm/nqp-3snap.mvmheap", "nqp.heapsnapshot", nil)
	var se *heapconv.SnapshotError
	if errors.As(err, &se) {
		fmt.Println(errors.Is(err, heapconv.ErrTooManySnapshots), len(se.Snapshots))
	}

	_, err = heapconv.ReadFile("testdata/dart/synthetic_vm_layout.dartheap", &heapconv.ReadOptions{Format: "moarvm"})
	var fe *ir.FormatError
	if errors.As(err, &fe) {
		fmt.Println(fe.Format, fe.Offset)
	}
	// Output:
	// true
	// true 3
	// moarvm 0
}

// Compare two snapshots of one program, here the first and the last GC
// run of a MoarVM file ("#N" names a snapshot of a file that holds
// several): the classes that grew most.
func ExampleReadHeap() {
	var heaps []analysis.Heap
	for _, name := range []string{"testdata/moarvm/nqp-3snap.mvmheap#0", "testdata/moarvm/nqp-3snap.mvmheap#2"} {
		h, err := heapconv.ReadHeap(name, nil)
		if err != nil {
			log.Fatal(err)
		}
		heaps = append(heaps, h)
	}
	c, err := analysis.Compare(heaps, analysis.CompareOptions{By: analysis.ByCount})
	if err != nil {
		log.Fatal(err)
	}
	for _, row := range c.Classes[:3] {
		fmt.Printf("%s: %d -> %d objects\n", row.Name, row.Count[0], row.Count[1])
	}
	fmt.Printf("matched by identity: %q\n", c.Identity)
	// Output:
	// VMString: 36918 -> 70101 objects
	// BOOTStr: 8821 -> 17116 objects
	// BOOTInt: 11868 -> 20162 objects
	// matched by identity: ""
}

// Find the leak in the snapshots of a program: the suspects, each a holder
// and what it accumulates. MoarVM objects have no identity from one
// snapshot to the next, so the suspects are found by growth.
func ExampleReadHeap_suspects() {
	var heaps []analysis.Heap
	for k := 0; k < 3; k++ {
		h, err := heapconv.ReadHeap(fmt.Sprintf("testdata/moarvm/nqp-3snap.mvmheap#%d", k), nil)
		if err != nil {
			log.Fatal(err)
		}
		heaps = append(heaps, h)
	}
	c, err := analysis.Compare(heaps, analysis.CompareOptions{Suspects: 1})
	if err != nil {
		log.Fatal(err)
	}
	s := c.Suspects[0]
	fmt.Printf("by %s: %s holds +%d objects (%.0f%% of the growth)\n", c.SuspectsBy, s.Holder, s.Count, 100*s.Share)
	for _, g := range s.Classes[:2] {
		fmt.Printf("  +%d %s\n", g.Count, g.Class)
	}
	// Output:
	// by growth: BOOTHash @161 holds +104311 objects (89% of the growth)
	//   +59523 VMString
	//   +14999 NQPArray
}

// Find what keeps the largest arrays of a heap alive: the shortest path
// from the GC roots, and the objects whose loss would free them.
func ExampleReadHeap_paths() {
	h, err := heapconv.ReadHeap("testdata/moarvm/nqp-3snap.mvmheap#2", nil)
	if err != nil {
		log.Fatal(err)
	}
	nv, err := analysis.NewNavigator(h)
	if err != nil {
		log.Fatal(err)
	}
	for _, i := range nv.ClassNodes("NQPArray", 1) {
		for _, st := range nv.ShortestPath(i) {
			fmt.Printf("%s %s", st.Class, st.Ref) // Ref: what paths --id takes
			if st.Edge != nil {
				fmt.Printf(" -> %s %s", st.Edge.Kind, st.Edge.Name)
			}
			fmt.Println()
		}
		fmt.Println("dominators:", len(nv.DominatorChain(i)))
	}
	// Output:
	// (thread roots) @8 -> string Flattened callstack entry register value
	// NQP::Compiler @96950 -> unknown 0
	// NQP::Grammar @35463 -> string <STable>
	// NQP::Grammar @35519 -> string HOW
	// NQPClassHOW @35522 -> unknown 0
	// BOOTHash @35540 -> unknown 0
	// QRegex::NFA @50440 -> unknown 0
	// NQPArray @51674
	// dominators: 7
}

// Export a heap as Parquet tables for a query engine: a directory with a
// file per table, every row with the file id.
func ExampleExportTables() {
	dir, err := os.MkdirTemp("", "heapconv-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "nqp")
	report, err := heapconv.ExportTables("testdata/moarvm/nqp-3snap.mvmheap", out, &heapconv.ExportOptions{
		Snapshots: heapconv.Snapshot(2),
	})
	if err != nil {
		log.Fatal(err)
	}
	names, _ := filepath.Glob(filepath.Join(out, "*.parquet"))
	fmt.Println(len(names), "tables of", report.From, "snapshot 2")
	for _, l := range report.Losses {
		fmt.Println("not in the tables:", l.Kind)
	}
	// Output:
	// 9 tables of moarvm snapshot 2
	// not in the tables: moarvm-static-frames
	// not in the tables: moarvm-metadata
	// not in the tables: moarvm-highscores
}

// Archive several snapshots of one program in one file, which stores what
// they share once, and read one of them back as the file it came from.
func ExampleConvertFiles() {
	dir, err := os.MkdirTemp("", "heapconv-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	archive := filepath.Join(dir, "flutter.heapir.zst")

	snapshots := []string{
		"testdata/dart/flutter-vm-3k.dartheap.zst",
		"testdata/samples/flutter-counter.dartheap.zst",
	}
	if _, err := heapconv.ConvertFiles(snapshots, archive, nil); err != nil {
		log.Fatal(err)
	}
	series, err := heapconv.ReadFile(archive, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(series.Snapshots), "snapshots; a series:", series.IsSeries())

	// Snapshot 1 alone, read from the archive's index: the second file.
	h, err := heapconv.ReadHeap(archive+"#1", nil)
	if err != nil {
		log.Fatal(err)
	}
	alone, err := heapconv.ReadFile(snapshots[1], nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("the same file:", len(ir.Diff(alone, h.File, 1)) == 0)
	// Output:
	// 2 snapshots; a series: true
	// the same file: true
}
