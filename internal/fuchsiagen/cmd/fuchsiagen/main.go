// Command fuchsiagen writes Fuchsia heapdump snapshots as `ffx profile
// heapdump snapshot` would: a pprof profile in the layout of an ffx era
// and, optionally, the --output-contents-dir directory. See package
// heapconv/internal/fuchsiagen.
//
//	go run ./internal/fuchsiagen/cmd/fuchsiagen -seed 1 -allocs 5000 -contents \
//	    -era newest -o snap.pb.gz -contents-dir snap.contents
//	go run ./internal/fuchsiagen/cmd/fuchsiagen -fixture ffx-test -era current -o t.pb
//	go run ./internal/fuchsiagen/cmd/fuchsiagen -fixtures testdata/fuchsia
//
// A one-line summary goes to standard error.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/heapconv/heapconv/internal/fuchsiagen"
)

func main() {
	var (
		opt      fuchsiagen.Options
		programs string
		eraName  string
		compress string
		fixture  string
		fixtures string
		fidlFix  string
		out      string
		cdir     string
		wo       fuchsiagen.WriteOptions
	)
	flag.Int64Var(&opt.Seed, "seed", 1, "random seed (same seed, same files)")
	flag.IntVar(&opt.Allocations, "allocs", 2000, "approximate live blocks per user process")
	flag.IntVar(&opt.Processes, "procs", 1, "number of user processes")
	flag.StringVar(&programs, "programs", "", "comma-separated programs per process ("+strings.Join(fuchsiagen.ProgramNames(), ", ")+")")
	flag.BoolVar(&opt.Kernel, "kernel", false, "add the kernel collector's snapshot")
	flag.BoolVar(&opt.KernelOnly, "kernel-only", false, "only the kernel collector's snapshot")
	flag.IntVar(&opt.KernelEntries, "kernel-entries", 150, "distinct kernel backtraces")
	flag.BoolVar(&opt.Contents, "contents", false, "read block contents (needed for -contents-dir)")
	flag.IntVar(&opt.UnreadablePermille, "unreadable", 5, "blocks per 1000 whose contents cannot be read (-1: none)")
	flag.StringVar(&opt.Arch, "arch", "arm64", "arm64 or x64")
	flag.Uint64Var(&opt.MaxBlockSize, "max-block", 256<<10, "largest block size")
	flag.BoolVar(&opt.EdgeCases, "edge", false, "add edge-case allocations")
	flag.StringVar(&eraName, "era", "newest", "ffx era: 2023, withtags, current, newest")
	flag.BoolVar(&wo.WithTags, "with-tags", false, "--with-tags (per-block samples)")
	flag.BoolVar(&wo.Symbolize, "symbolize", false, "--symbolize")
	flag.BoolVar(&wo.MultiProcess, "multi", false, "--multi-process")
	flag.StringVar(&compress, "compress", "default", "default (the era's), none or gzip")
	flag.StringVar(&fixture, "fixture", "", "write an ffx unit-test snapshot instead: ffx-test, ffx-test-2023, ffx-test-withtags, ffx-test-aggregated, ffx-test-two")
	flag.StringVar(&fixtures, "fixtures", "", "write all committed fixtures and MANIFEST.txt into this directory")
	flag.StringVar(&fidlFix, "fidl-fixtures", "", "write all committed FIDL element stream fixtures and MANIFEST.txt into this directory")
	flag.StringVar(&out, "o", "", "output profile file")
	flag.StringVar(&cdir, "contents-dir", "", "--output-contents-dir (must be empty or absent; forces -with-tags)")
	flag.Parse()
	if flag.NArg() != 0 || (out == "" && fixtures == "" && fidlFix == "") {
		fmt.Fprintln(os.Stderr, "usage: fuchsiagen [flags] -o FILE [-contents-dir DIR] | -fixtures DIR | -fidl-fixtures DIR")
		flag.PrintDefaults()
		os.Exit(2)
	}
	start := time.Now()
	if fidlFix != "" {
		if err := fuchsiagen.WriteStreamFixtures(fidlFix); err != nil {
			fail(err)
		}
		fmt.Fprintf(os.Stderr, "%s: %d stream fixtures, %s\n", fidlFix, len(fuchsiagen.StreamFixtures()), time.Since(start).Round(time.Millisecond))
		return
	}
	if fixtures != "" {
		if err := fuchsiagen.WriteFixtures(fixtures); err != nil {
			fail(err)
		}
		fmt.Fprintf(os.Stderr, "%s: %d fixtures, %s\n", fixtures, len(fuchsiagen.Fixtures()), time.Since(start).Round(time.Millisecond))
		return
	}
	var err error
	if wo.Era, err = fuchsiagen.ParseEra(eraName); err != nil {
		fail(err)
	}
	switch compress {
	case "default":
	case "none":
		wo.Compression = fuchsiagen.CompressNone
	case "gzip":
		wo.Compression = fuchsiagen.CompressGzip
	default:
		fail(fmt.Errorf("bad -compress %q", compress))
	}
	if programs != "" {
		opt.Programs = strings.Split(programs, ",")
	}
	var snaps []*fuchsiagen.Snapshot
	switch fixture {
	case "":
		if cdir != "" && !opt.Contents {
			fail(fmt.Errorf("-contents-dir needs -contents"))
		}
		h, err := fuchsiagen.Generate(opt)
		if err != nil {
			fail(err)
		}
		snaps = h.Snapshots
		wo.Symbolizer = h.Symbols
	case "ffx-test":
		snaps = []*fuchsiagen.Snapshot{fuchsiagen.FFXTestSnapshot()}
	case "ffx-test-2023":
		snaps = []*fuchsiagen.Snapshot{fuchsiagen.FFXTestSnapshot2023()}
	case "ffx-test-withtags":
		snaps = []*fuchsiagen.Snapshot{fuchsiagen.FFXTestSnapshotWithTags()}
	case "ffx-test-aggregated":
		snaps = []*fuchsiagen.Snapshot{fuchsiagen.FFXTestAggregatedSnapshot()}
	case "ffx-test-two":
		snaps = fuchsiagen.FFXTestTwoSnapshots()
	default:
		fail(fmt.Errorf("unknown -fixture %q", fixture))
	}
	if wo.Symbolize && wo.Symbolizer == nil {
		wo.Symbolizer = fuchsiagen.NewSymbolTable()
	}
	if err := fuchsiagen.WriteSnapshotCommand(out, cdir, snaps, wo); err != nil {
		fail(err)
	}
	var n, files int
	var bytes uint64
	for _, s := range snaps {
		n += len(s.Allocations)
		for i := range s.Allocations {
			bytes += s.Allocations[i].Size
			if s.Allocations[i].Contents != nil {
				files++
			}
		}
	}
	st, _ := os.Stat(out)
	msg := fmt.Sprintf("%s: %d bytes, %d snapshots, %d allocations (%d heap bytes)", out, st.Size(), len(snaps), n, bytes)
	if cdir != "" {
		msg += fmt.Sprintf(", %d contents files in %s", files, cdir)
	}
	fmt.Fprintf(os.Stderr, "%s, %s\n", msg, time.Since(start).Round(time.Millisecond))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "fuchsiagen:", err)
	os.Exit(1)
}
