package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
	v8ir "github.com/heapconv/heapconv/ir/v8"

	"github.com/heapconv/heapconv"
	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/analysis"
	"github.com/heapconv/heapconv/ir/irtext"

	"github.com/spf13/pflag"
)

const convertUsage = `Usage: heapconv convert [--from F] [--to F|parquet] [--snapshot N|all] [--force]
                        [-q] [--loss-report FILE.json] [--contents DIR] [--scan-pointers]
                        [--no-gzip] [--out-contents DIR] [--level fast|default|best]
                        [--file-id ID] [--redact] IN OUT
       heapconv convert [--from F] [--force] [-q] [--level L] [--redact] IN IN... OUT.heapir[.zst]

Converts IN to OUT. IN and OUT may be "-" (standard input / output).
Several INs (files of one program, of one format: a series of snapshots,
a directory of daily ones) are written as one series into an IR OUT: the
strings and classes they share are stored once, and OUT#N (snapshot N)
reads back exactly as the N-th IN, for every command.
The input format is detected from the content (inside a gzip or zstd
wrapper too) unless --from is given; the output format comes from OUT's
extension unless --to is given:
  .heapsnapshot -> v8    .dartheap -> dart    .mvmheap -> moarvm
  .pb, .pb.gz -> fuchsia    .fidlstream -> fuchsia-fidl
  .heapir, .heapir.zst -> ir (.zst: compressed)
  *.parquet -> parquet (a directory of tables; below)
Any other OUT ending in .gz or .zst is written compressed with gzip or
zstd, in the format the name before it says (or --to): x.heapsnapshot.zst,
x.mvmheap.gz, x.dartheap.zst.
OUT is written to a temporary file and renamed at the end: a failed or
interrupted conversion leaves no OUT behind. An existing OUT needs --force;
one that is a device or pipe (/dev/null, /dev/stdout, a FIFO; a symlink is
followed) is written in place without it, never replaced; a directory is
refused.
What the output format cannot hold is listed on standard error as a
warning, one line per kind of loss.

Flags:
  --from F        input format (ir, v8, dart, moarvm, fuchsia, fuchsia-fidl)
  --to F          output format (ir, v8, dart, moarvm, fuchsia,
                  fuchsia-fidl), or parquet for a directory of tables
  --snapshot N    convert snapshot N only (0-based); "all" writes one file
                  per snapshot, numbered by the %d in OUT (%03d pads: 000)
  --force         replace an existing OUT (and --loss-report file)
  -q, --quiet     do not print the loss report, nor the progress bar
  --loss-report FILE.json
                  write the loss report as JSON (kind, count, what,
                  example of each loss); "-" for standard output
  --contents DIR  the block contents directory of a Fuchsia heapdump IN
                  (ffx profile heapdump snapshot --output-contents-dir)
  --scan-pointers with --contents, or for a fuchsia-fidl IN (whose stream
                  carries the contents): turn every aligned 64-bit word that
                  points into another live block into an edge (heuristic:
                  integers that look like addresses count too), so that the
                  heap has retainers and retained sizes in Chrome DevTools
  --no-gzip       write a Fuchsia profile uncompressed (older ffx's layout)
  --out-contents DIR  write the block contents of a Fuchsia OUT into DIR,
                  a file per block (DIR is created if needed; an existing
                  DIR that is not a directory is refused)
  --level L       how hard to compress an OUT ending in .zst or .gz: fast,
                  default or best. On a heap's .heapir.zst, default (zstd's
                  "better" level) is 30% smaller than fast for a fifth more
                  time in all; best is hardly smaller, twice as slow. A
                  Fuchsia profile's own gzip (.pb.gz) keeps ffx's level
  --file-id ID    with --to parquet: the file id every row carries (default:
                  IN's name without directory and extensions)
  --redact        replace what the program stored, so that OUT can be
                  shared: the contents of strings (and numbers, regexps,
                  bigints named by their value) become placeholders of as
                  many characters ("xxxx"), numbers and booleans zeros, a
                  Fuchsia heapdump's block contents zero bytes; the graph,
                  sizes, ids and every class, property, field and function
                  name are kept. What was replaced is listed on standard
                  error (and in --loss-report) before what OUT cannot hold

--to parquet (or an OUT named *.parquet) writes OUT as a directory of
Parquet tables for query engines (DuckDB, Spark, Trino, BigQuery): files,
snapshots, nodes, edges, classes, strings, roots, totals, values and,
where the heap has them, stacks, every row with a file id and a snapshot
number, so that the tables of many files union into one dataset
(read_parquet('*/nodes.parquet')). docs/tables.md gives the schema.

Examples:
  heapconv convert app.heapsnapshot app.heapir.zst
  heapconv convert --level best app.heapsnapshot app.heapir.zst
  heapconv convert app.heapir.zst copy.heapsnapshot
  heapconv convert day1.heapsnapshot day2.heapsnapshot day3.heapsnapshot days.heapir.zst
  heapconv convert --snapshot 2 days.heapir.zst day3.heapsnapshot
  heapconv convert rakudo.mvmheap.gz --snapshot 2 rakudo.heapsnapshot
  heapconv convert --to v8 - - < in.heapir > out.heapsnapshot
  heapconv convert --snapshot all prog.mvmheap 'prog-%03d.heapsnapshot.zst'
  heapconv convert -q --loss-report loss.json flutter.dartheap flutter.mvmheap
  heapconv convert --contents snap-contents --scan-pointers snap.pb.gz native.heapsnapshot
  heapconv convert --scan-pointers collector.fidlstream native.heapsnapshot
  heapconv convert --to parquet app.heapsnapshot tables/app
  heapconv convert --redact prod.heapsnapshot shareable.heapsnapshot
`

func runConvert(e *env, args []string) error {
	fs := newFlags("convert")
	from := inputFlag(fs, "from")
	to := fs.String("to", "", "")
	snap := fs.String("snapshot", "", "")
	force := fs.Bool("force", false, "")
	quiet := fs.BoolP("quiet", "q", false, "")
	lossFile := fs.String("loss-report", "", "")
	contents := inputFlag(fs, "contents")
	scan := fs.Bool("scan-pointers", false, "")
	noGzip := fs.Bool("no-gzip", false, "")
	outContents := fs.String("out-contents", "", "")
	levelName := fs.String("level", "", "")
	fileID := fs.String("file-id", "", "")
	redact := fs.Bool("redact", false, "")
	if err := parse(e, fs, convertUsage, args); err != nil {
		return err
	}
	if fs.NArg() < 2 {
		return usagef("convert needs IN and OUT")
	}
	ins, outName := fs.Args()[:fs.NArg()-1], fs.Arg(fs.NArg()-1)
	inName := ins[0]
	level, err := parseLevel(fs, *levelName)
	if err != nil {
		return err
	}
	if *to != "" && *to != heapconv.FormatParquet && heapconv.FormatByName(*to) == nil {
		var names []string
		for _, f := range heapconv.Formats() {
			names = append(names, f.Name)
		}
		return usagef("--to: unknown format %q (formats: %s; or %s for a directory of tables)", *to, strings.Join(names, ", "), heapconv.FormatParquet)
	}
	if *to == heapconv.FormatParquet || *to == "" && strings.HasSuffix(strings.ToLower(outName), ".parquet") {
		if *noGzip || *outContents != "" || *lossFile == "-" || fs.Changed("level") {
			return usagef("--no-gzip, --out-contents, --level and --loss-report - are not for Parquet tables")
		}
		if len(ins) > 1 {
			return usagef("several inputs make one series, which only the IR holds: convert them to Parquet one by one")
		}
		return exportTables(e, inName, outName, *snap, *force, *quiet, *redact, *lossFile, *fileID,
			heapconv.ReadOptions{Format: *from, ContentsDir: *contents, ScanPointers: *scan})
	}
	if *fileID != "" {
		return usagef("--file-id is for Parquet tables (--to parquet)")
	}
	if outName == "-" && *to == "" {
		return usagef("writing to standard output needs --to")
	}
	if outName != "-" && *to == "" && heapconv.OutputFormat(outName) == nil {
		return usagef("cannot tell the output format from %q; give --to", outName)
	}
	if fs.Changed("level") {
		switch compressedOutput(outName, *to) {
		case notCompressed:
			return usagef("--level applies to compressed outputs: an OUT ending in .zst or .gz (app.heapir.zst, app.heapsnapshot.gz)")
		case profileGzip:
			return usagef("--level applies to what heapconv compresses, not to a Fuchsia profile's own gzip (.pb.gz)")
		}
	}
	sel, err := parseSnapshot(*snap)
	if err != nil {
		return err
	}
	if *lossFile == "-" && outName == "-" {
		return usagef("--loss-report - and OUT - would both write to standard output")
	}
	target := *to
	if target == "" {
		target = heapconv.OutputFormat(outName).Name
	}
	if len(ins) > 1 {
		switch {
		case target != ir.FormatIR:
			return usagef("several inputs make one series, which only the IR holds: OUT must be a .heapir or .heapir.zst (or --to ir), or convert them one by one")
		case sel != heapconv.WholeFile:
			return usagef("--snapshot picks from one input; several inputs are written whole, as one series")
		case slices.Contains(ins, "-"):
			return usagef("several inputs are files: standard input (-) cannot be one")
		}
	}
	if target == fuchsiair.FormatFIDL && (*noGzip || *outContents != "") {
		return errors.New("--no-gzip and --out-contents are for pprof profiles: a FIDL stream carries its block contents")
	}
	if *noGzip && strings.HasSuffix(strings.ToLower(outName), ".gz") {
		return usagef("--no-gzip writes an uncompressed profile: OUT cannot end in .gz")
	}
	progress := newProgress(e, "reading").update
	if *quiet {
		progress = nil // -q leaves standard error empty
	}
	opts := &heapconv.ConvertOptions{
		To:             *to,
		Snapshots:      sel,
		Overwrite:      *force,
		LossReportFile: *lossFile,
		Read: heapconv.ReadOptions{
			Format: *from, ContentsDir: *contents, ScanPointers: *scan,
			Progress: progress,
		},
		Write:  heapconv.WriteOptions{NoGzip: *noGzip, ContentsDir: *outContents, Level: level},
		Redact: *redact,
		Stdin:  e.stdin,
		Stdout: e.stdout,
	}
	r, err := heapconv.ConvertFiles(ins, outName, opts)
	clearProgress(e)
	if errors.Is(err, heapconv.ErrContentsDir) {
		return fmt.Errorf("%s: --contents is for pprof profiles: a FIDL stream carries its block contents", inName)
	}
	if err != nil {
		return convertError(err)
	}
	printLoss(e, r, *quiet, *redact)
	return nil
}

// convertError puts an error of ConvertFile in the command line's terms.
func convertError(err error) error {
	var se *heapconv.SnapshotError
	switch {
	case errors.Is(err, heapconv.ErrOutputName):
		return usagef("%v", err)
	case errors.As(err, &se) && se.Err == heapconv.ErrTooManySnapshots:
		var b strings.Builder
		fmt.Fprintf(&b, "%s holds %d snapshots and %s files hold one; choose with --snapshot N (or --snapshot all with %%d in OUT):", se.Name, len(se.Snapshots), se.Format)
		for i, l := range se.Snapshots {
			fmt.Fprintf(&b, "\n  %d: %s", i, l)
		}
		return errors.New(b.String())
	case errors.Is(err, heapconv.ErrExists):
		return fmt.Errorf("%w (use --force to replace it)", err)
	}
	return inputError(err)
}

// parseLevel parses --level; not given, it is the default level.
func parseLevel(fs *pflag.FlagSet, v string) (heapconv.Level, error) {
	if !fs.Changed("level") {
		return heapconv.LevelDefault, nil
	}
	l, err := heapconv.ParseLevel(v)
	if err != nil {
		return 0, usagef("--level: %v", err)
	}
	return l, nil
}

// How an output is compressed, as far as --level is concerned.
const (
	compressed    = iota // by heapconv, at the level asked for
	notCompressed        // not at all
	profileGzip          // by the Fuchsia writer, as ffx compresses a profile
)

// compressedOutput tells how the output named so (in the format to, when
// not "") is compressed: a name ending in .zst or .gz is compressed by
// heapconv, except a Fuchsia profile's .pb.gz, whose gzip is the
// profile's own.
func compressedOutput(name, to string) int {
	lower := strings.ToLower(name)
	switch {
	case strings.HasSuffix(lower, ".zst"):
		return compressed
	case !strings.HasSuffix(lower, ".gz"):
		return notCompressed
	}
	if to == "" {
		if fm := heapconv.OutputFormat(name); fm != nil {
			to = fm.Name
		}
	}
	if to == fuchsiair.Format {
		return profileGzip
	}
	return compressed
}

// parseSnapshot parses --snapshot: "" (the whole file), a number, or
// "all" (each snapshot to a file of its own).
func parseSnapshot(v string) (heapconv.Selection, error) {
	switch {
	case v == "":
		return heapconv.WholeFile, nil
	case v == "all":
		return heapconv.EachSnapshot, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, usagef("--snapshot takes a snapshot number (0, 1, ...) or \"all\", not %q", v)
	}
	return heapconv.Snapshot(n), nil
}

const infoUsage = `Usage: heapconv info [--json | --csv] [--top N] [--by self|count|retained] [--as F]
                     [--snapshot N|all] [--from F] [--contents DIR] [--scan-pointers] IN[#N]

Summarizes IN: its format and variant, and per snapshot the node and edge
counts, total self and external size, the number of classes and roots, and
the top classes by self size, instance count or retained size. A V8
snapshot's classes are the rows of Chrome DevTools' Summary view: plain
objects named by their shape ("{id, label, tags}"), detached DOM nodes as
"Detached <div>", a class split by allocation location ("Foo at script 3
line 12 column 5"), and the objects DevTools shows a size for, with the
size it shows. With --as, the figures are those of IN converted to another
format: --as v8 shows what DevTools will show for a Dart, MoarVM or Fuchsia
heap, which it groups and sizes its own way, and what the conversion loses.
IN#N (or --snapshot N) shows snapshot N alone; of an archive of several
files (a .heapir.zst series), it reads that snapshot from the archive's
index.

Flags:
  --json    print one JSON object:
            {"format": ..., "format_version": ..., "snapshots": [{"index": i,
             "nodes": n, "edges": e, "self_size": s, "external_size": x,
             "classes": c, "roots": r, "top_classes": [{"name": ...,
             "count": n, "self_size": s, "retained_size": r,
             "location": {"script_id": i, "line": l, "column": c}}]}]}
            (an IR input adds "via": "ir", a compressed one "compression":
            "gzip" or "zstd"; retained_size only with --by retained;
            location only for a V8 class DevTools splits by location, its
            line and column counted from 0; --as adds "as": F and per
            snapshot "loss": the conversion's loss report, as convert's
            --loss-report writes it; converting a whole file, its report
            is the first snapshot's)
  --csv     print the class table as CSV, every class of every snapshot
            (unless --top), with a header line: snapshot, class, count,
            self_size, retained_size, script_id, line, column (the last
            three for a V8 class DevTools splits by allocation location,
            counted from 0; empty otherwise); for spreadsheets and tools
            that read what DevTools' Summary shows
  --as F    summarize IN as it will be once converted to format F: the
            whole file, or with --snapshot N or for a format that holds one
            snapshot, each snapshot on its own, as convert --snapshot N
            converts it
  --top N   how many classes to list (default 10; 0 for all)
  --by K    order classes by self (size, the default), count, or retained:
            the memory a class keeps alive, from the dominator tree (weak
            references do not retain; external memory counts for its owner;
            a class's objects held by others of the class count once, as in
            Chrome DevTools' Summary view)
  --snapshot N  summarize snapshot N only (0-based); all is the default
  --from F  the input format, when it cannot be detected
  --contents DIR, --scan-pointers  as for convert (Fuchsia heapdumps)

Examples:
  heapconv info app.heapsnapshot
  heapconv info --top 20 --by retained flutter.dartheap
  heapconv info --as v8 --by retained flutter.dartheap
  heapconv info --snapshot 2 rakudo.mvmheap.gz
  heapconv info --json app.heapir.zst | jq '.snapshots[0].nodes'
  heapconv info --csv flutter.dartheap > classes.csv
`

// infoJSON is the --json output; its field names are a contract.
type infoJSON struct {
	Format        string         `json:"format"`
	FormatVersion string         `json:"format_version"`
	Via           string         `json:"via,omitempty"`
	Compression   string         `json:"compression,omitempty"`
	As            string         `json:"as,omitempty"`
	Snapshots     []snapshotJSON `json:"snapshots"`
}

// snapshotJSON is one snapshot's summary, with its number in the file.
type snapshotJSON struct {
	Index int `json:"index"`
	analysis.SnapshotSummary
	// Loss is what converting the snapshot (--as) loses.
	Loss ir.LossReport `json:"loss,omitempty"`
}

func runInfo(e *env, args []string) error {
	fs := newFlags("info")
	asJSON := fs.Bool("json", false, "")
	asCSV := fs.Bool("csv", false, "")
	top := fs.Int("top", 10, "")
	by := fs.String("by", analysis.BySelf, "")
	snap := fs.String("snapshot", "all", "")
	from := inputFlag(fs, "from")
	contents := inputFlag(fs, "contents")
	scan := fs.Bool("scan-pointers", false, "")
	as := fs.String("as", "", "")
	if err := parse(e, fs, infoUsage, args); err != nil {
		return err
	}
	var asFormat *heapconv.Format
	if *as != "" {
		if asFormat = heapconv.FormatByName(*as); asFormat == nil {
			return usagef("--as: heapconv does not write %q (heapconv formats lists the formats)", *as)
		}
	}
	switch *by {
	case analysis.BySelf, analysis.ByCount, analysis.ByRetained:
	default:
		return usagef("--by must be self, count or retained, not %q", *by)
	}
	if *top < 0 {
		return usagef("--top must be 0 or more")
	}
	if *asJSON && *asCSV {
		return usagef("--json and --csv are two ways to print; choose one")
	}
	order := *by
	if *top == 0 {
		*top = -1 // every class, as for diff
	}
	if *asCSV {
		// Every class, with its retained size, unless --top says otherwise.
		if !fs.Changed("top") {
			*top = -1
		}
		order = analysis.ByRetained
		if fs.Changed("by") {
			order = *by
		}
	}
	sel, err := parseSnapshot(*snap)
	if err != nil {
		return err
	}
	if err := oneIN(fs, "info"); err != nil {
		return err
	}
	name, k := heapconv.ParseHeapName(fs.Arg(0))
	if k >= 0 {
		if fs.Changed("snapshot") {
			return usagef("--snapshot and IN#N both pick a snapshot: give one")
		}
		sel = heapconv.Snapshot(k)
	}
	in, err := openInput(e, name, heapconv.ReadOptions{Format: *from, ContentsDir: *contents, ScanPointers: *scan})
	if err != nil {
		return err
	}
	out := infoJSON{Snapshots: []snapshotJSON{}}
	if in.Format.Name == ir.FormatIR {
		out.Via = ir.FormatIR
	}
	out.Compression = in.Compression
	index := sel.Index() // the one snapshot to show, or -1 for all
	if list := in.Index(); index >= len(list) && list != nil {
		in.Close()
		return &heapconv.SnapshotError{Err: heapconv.ErrNoSnapshot, Name: in.Name, Snapshot: index, Snapshots: list}
	}
	// The snapshots to show, each in the file it is read as: one snapshot
	// of an archive with an index is read alone, and a snapshot of a
	// series is the file it came from.
	type pick struct {
		i     int      // the snapshot's number in IN
		f     *ir.File // the file it is shown as
		local int      // its number there
	}
	var picks []pick
	var f *ir.File
	total := -1
	if n := in.SnapshotCount(); index >= 0 && n > index {
		g, err := in.ReadSnapshot(index)
		clearProgress(e)
		if err != nil {
			return err
		}
		f, total = g, n
		picks = append(picks, pick{index, g, 0})
	} else {
		if f, err = read(e, in); err != nil {
			return err
		}
		total = len(f.Snapshots)
		if index >= total {
			return &heapconv.SnapshotError{Err: heapconv.ErrNoSnapshot, Name: in.Name, Snapshot: index, Snapshots: make([]string, total)}
		}
		for i := range f.Snapshots {
			switch {
			case index >= 0 && i != index:
			case f.IsSeries():
				g, err := f.Select(i)
				if err != nil {
					return err
				}
				picks = append(picks, pick{i, g, 0})
			default:
				picks = append(picks, pick{i, f, i})
			}
		}
	}
	out.Format, out.FormatVersion = f.Format, f.FormatVersion
	if asFormat != nil {
		out.As = asFormat.Name
	}
	var converted *ir.File // f converted, for a format that holds every snapshot
	var convertedLoss ir.LossReport
	for _, p := range picks {
		i := p.i
		g, gs := p.f, p.f.Snapshots[p.local]
		var loss ir.LossReport
		if asFormat != nil {
			// A format that holds every snapshot converts the file once,
			// unless one snapshot is asked for.
			whole := asFormat.MultiSnapshot && index < 0 && len(p.f.Snapshots) > 1
			switch {
			case whole && converted != nil:
				g, loss = converted, convertedLoss
			default:
				if g, loss, err = convertedTo(asFormat, p.f, p.local, !whole); err != nil {
					return fmt.Errorf("%s: snapshot %d as %s: %w", in.Name, i, asFormat.Name, err)
				}
				converted, convertedLoss = g, loss
			}
			gs = g.Snapshots[0]
			if whole {
				if i >= len(g.Snapshots) {
					return fmt.Errorf("%s: as %s, snapshot %d is not in the converted file (%d snapshots)", in.Name, asFormat.Name, i, len(g.Snapshots))
				}
				gs = g.Snapshots[i]
				if i > 0 {
					loss = nil // the file's, shown with its first snapshot
				}
			}
		}
		var sum analysis.SnapshotSummary
		if *asCSV && order != analysis.ByRetained {
			// The table has retained sizes in any order.
			sum, err = summarizeWithRetained(g, gs, *top, order)
		} else {
			sum, err = analysis.SummarizeBy(g, gs, *top, order)
		}
		if err != nil {
			return fmt.Errorf("snapshot %d: %w", i, err)
		}
		if sum.TopClasses == nil {
			sum.TopClasses = []analysis.ClassStat{}
		}
		out.Snapshots = append(out.Snapshots, snapshotJSON{i, sum, loss})
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetEscapeHTML(false)
		return enc.Encode(out)
	}
	if *asCSV {
		return writeClassCSV(e.stdout, out.Snapshots)
	}
	w := e.stdout
	fmt.Fprintf(w, "format:   %s\nvariant:  %s\n", out.Format, out.FormatVersion)
	if out.Via != "" {
		fmt.Fprintf(w, "via:      %s\n", out.Via)
	}
	if out.Compression != "" {
		fmt.Fprintf(w, "compressed: %s\n", out.Compression)
	}
	if out.As != "" {
		fmt.Fprintf(w, "as:       %s (the figures of IN converted to %s)\n", out.As, out.As)
	}
	if index >= 0 {
		fmt.Fprintf(w, "snapshots: %d (showing snapshot %d)\n", total, index)
	} else {
		fmt.Fprintf(w, "snapshots: %d\n", total)
	}
	for _, s := range out.Snapshots {
		objects := "" // a profile's samples stand for as many objects as they count allocations
		if s.Objects != s.Nodes {
			objects = fmt.Sprintf("  objects %d", s.Objects)
		}
		fmt.Fprintf(w, "\nsnapshot %d\n  nodes %d%s  edges %d  classes %d  roots %d\n  self size %d  external size %d\n",
			s.Index, s.Nodes, objects, s.Edges, s.Classes, s.Roots, s.SelfSize, s.ExternalSize)
		if len(s.TopClasses) > 0 && *by == analysis.ByRetained {
			fmt.Fprintf(w, "  %12s %14s %16s  %s\n", "count", "self size", "retained size", "class")
			for _, c := range s.TopClasses {
				fmt.Fprintf(w, "  %12d %14d %16d  %s\n", c.Count, c.SelfSize, *c.Retained, classLabel(c))
			}
		} else if len(s.TopClasses) > 0 {
			fmt.Fprintf(w, "  %12s %14s  %s\n", "count", "self size", "class")
			for _, c := range s.TopClasses {
				fmt.Fprintf(w, "  %12d %14d  %s\n", c.Count, c.SelfSize, classLabel(c))
			}
		}
		if len(s.Loss) > 0 {
			fmt.Fprintf(w, "  converting to %s loses or changes:\n", out.As)
			for _, l := range s.Loss {
				fmt.Fprintf(w, "    %s: %s\n", l.Kind, l)
			}
		}
	}
	if out.As == "" && f.Format != v8ir.Format && f.Format != ir.FormatIR {
		fmt.Fprintf(w, "\nChrome DevTools groups and sizes objects its own way: heapconv info --as v8 shows\nthe figures it will show for this heap converted to V8.\n")
	}
	return nil
}

// convertedTo converts f to format fm in memory: the file a conversion
// would make, with what it loses. With alone, or for a format that holds
// one snapshot, it converts snapshot i alone (as convert --snapshot i
// does), which is the result's snapshot 0.
func convertedTo(fm *heapconv.Format, f *ir.File, i int, alone bool) (*ir.File, ir.LossReport, error) {
	g := f
	if len(f.Snapshots) > 1 && (alone || !fm.MultiSnapshot) {
		var err error
		if g, err = f.Select(i); err != nil {
			return nil, nil, err
		}
	}
	return heapconv.Convert(g, fm.Name, nil)
}

// oneIN checks that the command got exactly one IN.
func oneIN(fs *pflag.FlagSet, cmd string) error {
	switch fs.NArg() {
	case 0:
		return usagef("%s needs IN", cmd)
	case 1:
		return nil
	}
	return usagef("%s takes one IN, not %d (%s)", cmd, fs.NArg(), strings.Join(fs.Args(), " "))
}

const validateUsage = `Usage: heapconv validate [--from F] IN

Checks IN against what the format's own consumers require (for V8, every
rule Chrome DevTools' loader relies on; for MoarVM, what MoarVM's readers
assume, and a damaged file that heapconv can only partly recover is a
violation) and prints one line per violation naming its byte offset (in a
gzip- or zstd-compressed IN, the offset in the decompressed data).
Exits 0 when IN is valid, 1 otherwise.

Flags:
  --from F  the input format, when it cannot be detected

Examples:
  heapconv validate app.heapsnapshot
  heapconv validate prog.mvmheap.gz
`

func runValidate(e *env, args []string) error {
	fs := newFlags("validate")
	from := inputFlag(fs, "from")
	if err := parse(e, fs, validateUsage, args); err != nil {
		return err
	}
	if err := oneIN(fs, "validate"); err != nil {
		return err
	}
	in, err := openInput(e, fs.Arg(0), heapconv.ReadOptions{Format: *from})
	var fe *ir.FormatError
	switch {
	case errors.As(err, &fe):
		// Compressed data damaged at its start: a violation like others.
		name := fs.Arg(0)
		if name == "-" {
			name = "standard input"
		}
		return violations(e, name, []error{fe})
	case err != nil:
		return err
	}
	errs := in.Validate()
	clearProgress(e)
	if len(errs) > 0 {
		return violations(e, in.Name, errs)
	}
	fmt.Fprintf(e.stdout, "%s: valid %s file\n", in.Name, what(in))
	return nil
}

// violations prints validate's verdict on an invalid file.
func violations(e *env, name string, errs []error) error {
	for _, err := range errs {
		fmt.Fprintf(e.stderr, "%s: %v\n", name, err)
	}
	fmt.Fprintf(e.stderr, "%s: %s\n", name, plural(len(errs), "violation"))
	return errReported
}

const roundtripUsage = `Usage: heapconv roundtrip [--from F] IN

The conformance round trip on your own file: reads IN, writes it again in
its own format and compares the two at the level the format promises, then
passes the data through the IR's msgpack+zstd encoding and compares again.
A gzip- or zstd-compressed IN is compared by what it holds. The levels:
  v8, dart, fuchsia-fidl  byte for byte
  moarvm                  the same blocks with the same decompressed
                          contents (a version 2 file, written as version 3:
                          the same graphs)
  fuchsia                 the same profile as pprof reads it (pprof -raw)
  ir                      the same IR after decoding
Prints one verdict line per comparison, with the first difference when
there is one. Exits 0 when everything came back the same, 1 otherwise.

Flags:
  --from F  the input format, when it cannot be detected

Examples:
  heapconv roundtrip Heap-20260101-120000-1234-0.heapsnapshot
  heapconv roundtrip rakudo.mvmheap.gz && echo same
`

func runRoundtrip(e *env, args []string) error {
	fs := newFlags("roundtrip")
	from := inputFlag(fs, "from")
	if err := parse(e, fs, roundtripUsage, args); err != nil {
		return err
	}
	if err := oneIN(fs, "roundtrip"); err != nil {
		return err
	}
	name := fs.Arg(0)
	if name == "-" {
		// The original is read twice: once into the IR, once to compare.
		return usagef("roundtrip needs a file IN (it reads it twice), not standard input")
	}
	verdicts, err := heapconv.RoundTrip(name, &heapconv.ReadOptions{Format: *from, Progress: newProgress(e, "reading").update})
	clearProgress(e)
	if err != nil {
		return inputError(err)
	}
	failed := false
	for _, v := range verdicts {
		failed = failed || !v.Same
		fmt.Fprintf(e.stdout, "%s: %s\n", name, v.Text)
	}
	if failed {
		return errReported
	}
	return nil
}

const dumpUsage = `Usage: heapconv dump [--from F] IN

Prints IN's intermediate representation as text: the string and class
tables, then every snapshot with one line per node followed by its edges.
Golden tests use this form; it is also the way to see what a conversion
carried.

Flags:
  --from F  the input format, when it cannot be detected

Examples:
  heapconv dump small.heapsnapshot | less
`

func runDump(e *env, args []string) error {
	fs := newFlags("dump")
	from := inputFlag(fs, "from")
	if err := parse(e, fs, dumpUsage, args); err != nil {
		return err
	}
	if err := oneIN(fs, "dump"); err != nil {
		return err
	}
	in, err := openInput(e, fs.Arg(0), heapconv.ReadOptions{Format: *from})
	if err != nil {
		return err
	}
	f, err := read(e, in)
	if err != nil {
		return err
	}
	return irtext.Write(e.stdout, f)
}

const formatsUsage = `Usage: heapconv formats

Lists the formats heapconv knows, their file extensions, whether it reads
and writes each, and which versions it reads.

Examples:
  heapconv formats
  heapconv formats | grep v8
`

func runFormats(e *env, args []string) error {
	fs := newFlags("formats")
	if err := parse(e, fs, formatsUsage, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usagef("formats takes no arguments")
	}
	w := e.stdout
	fmt.Fprintf(w, "%-13s %-5s %-5s %-26s %s\n", "FORMAT", "READ", "WRITE", "EXTENSIONS", "DESCRIPTION / VERSIONS READ")
	for _, f := range heapconv.Formats() {
		desc := f.Description
		if f.Versions != "" {
			desc += "; reads " + f.Versions
		}
		exts := strings.Join(f.Extensions, " ")
		if exts == "" {
			exts = "-"
		}
		fmt.Fprintf(w, "%-13s %-5s %-5s %-26s %s\n", f.Name, "yes", "yes", exts, desc)
	}
	var wrappers []string
	for _, c := range heapconv.Compressions() {
		wrappers = append(wrappers, fmt.Sprintf("%s (%s)", c.Name, c.Extension))
	}
	fmt.Fprintf(w, "\nAny format may come compressed with %s: heapconv reads what is inside,\nand writes an OUT whose name ends so compressed.\n", strings.Join(wrappers, " or "))
	return nil
}
