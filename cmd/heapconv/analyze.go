package main

import (
	"cmp"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/heapconv/heapconv"
	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/analysis"
	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
	moarvmir "github.com/heapconv/heapconv/ir/moarvm"
	"github.com/heapconv/heapconv/report"
)

// heapArg is one heap a command reads: a file, or one snapshot of it.
type heapArg struct {
	name     string // as given
	file     string
	snapshot int // -1: the file's only one
}

// heapArgs reads the command's heap operands: each IN or IN#N, or one IN
// with --snapshot A,B,... naming several of its snapshots.
func heapArgs(names []string, snapshots string) ([]heapArg, error) {
	var out []heapArg
	stdin := map[int]bool{} // the snapshots of standard input named
	names, err := expandRanges(names)
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		file, k := heapconv.ParseHeapName(n)
		if file == "-" {
			if stdin[k] {
				return nil, usagef("standard input (-) is named twice: it is one stream, read once, so both would be the same heap; give files, or name different snapshots of it (-#0 -#2)")
			}
			stdin[k] = true
		}
		out = append(out, heapArg{name: n, file: file, snapshot: k})
	}
	if snapshots == "" {
		return out, nil
	}
	if len(out) != 1 || out[0].snapshot >= 0 {
		return nil, usagef("--snapshot takes one IN (without #N)")
	}
	var sel []heapArg
	for _, v := range strings.Split(snapshots, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || k < 0 {
			return nil, usagef("--snapshot takes snapshot numbers separated by commas (0,2), not %q", snapshots)
		}
		a := out[0]
		a.snapshot = k
		a.name = fmt.Sprintf("%s#%d", a.file, k)
		sel = append(sel, a)
	}
	return sel, nil
}

// heapRange is IN#A..#B (or IN#A..B): snapshots A to B of IN.
var heapRange = regexp.MustCompile(`^(.*)#(\d+)\.\.#?(\d+)$`)

// expandRanges replaces each IN#A..#B by IN#A, IN#A+1, ... IN#B.
func expandRanges(names []string) ([]string, error) {
	var out []string
	for _, n := range names {
		m := heapRange.FindStringSubmatch(n)
		if m == nil {
			out = append(out, n)
			continue
		}
		if _, err := os.Stat(n); err == nil {
			out = append(out, n) // a file of that name
			continue
		}
		a, errA := strconv.Atoi(m[2])
		b, errB := strconv.Atoi(m[3])
		if errA != nil || errB != nil || b < a || b-a > 10000 {
			return nil, usagef("%s: a range of snapshots is IN#A..#B with A ≤ B (at most 10,000 snapshots)", n)
		}
		for k := a; k <= b; k++ {
			out = append(out, fmt.Sprintf("%s#%d", m[1], k))
		}
	}
	return out, nil
}

// readHeaps reads each operand's heap, every file once; "-" (standard
// input) may be one of them. A file of several snapshots needs #N.
func readHeaps(e *env, args []heapArg, opts heapconv.ReadOptions) ([]analysis.Heap, error) {
	heaps, _, err := readAllHeaps(e, args, opts, false)
	return heaps, err
}

// noIdentity says why the heaps' objects cannot be matched one by one.
func noIdentity(heaps []analysis.Heap) string {
	formats := []string{}
	for _, h := range heaps {
		if !slices.Contains(formats, h.File.Format) {
			formats = append(formats, h.File.Format)
		}
	}
	var kinds []string
	for _, h := range heaps {
		if ids := ir.Identities(h.Snapshot); ids != nil && !slices.Contains(kinds, ids.IdentityKind()) {
			kinds = append(kinds, ids.IdentityKind())
		}
	}
	switch {
	case len(formats) > 1:
		return fmt.Sprintf("The snapshots are of different formats (%s), whose objects cannot be matched", strings.Join(formats, ", "))
	case len(kinds) > 1:
		return fmt.Sprintf("The snapshots identify their objects differently (%s)", strings.Join(kinds, "; "))
	case formats[0] == moarvmir.Format:
		return "MoarVM objects have no identity that persists from one snapshot to the next"
	}
	return fmt.Sprintf("These %s snapshots' objects have no identity that persists from one to the next (a heap converted from another format, a Dart file without identity hash codes, a profile of merged samples)", formats[0])
}

// snapshotNumber returns the number of the operand's snapshot in its file:
// the one it names, else the heap's in the file read.
func snapshotNumber(a heapArg, h analysis.Heap) int {
	if a.snapshot >= 0 {
		return a.snapshot
	}
	return heapIndex(h)
}

// heapIndex returns the heap's snapshot's number in its file.
func heapIndex(h analysis.Heap) int {
	for i, s := range h.File.Snapshots {
		if s == h.Snapshot {
			return i
		}
	}
	return -1
}

// lineWidth is the width, in columns, that paths and diff fit a step of a
// path in, cutting long names (analysis.Abbreviate).
const lineWidth = 100

// printPath prints a retainer path or dominator chain, a step a line, the
// root side first. A step reads as a row of DevTools' Retainers view: the
// reference by which the holder holds the next step's object, "in", the
// holder (its class, the name it is shown by, its reference), then the
// reference's kind, and the holder's sizes and distance:
//
//	sessions in global @6047 (property)  self 8656  retained 2415179  distance 1
//
// Names are cut to keep the line within lineWidth columns (a very deep
// indent aside).
func printPath(w io.Writer, path []analysis.PathStep, indent string) {
	for _, st := range path {
		if st.Node < 0 {
			fmt.Fprintf(w, "%s%s\n", indent, st.Class) // steps left out (elidePath)
			continue
		}
		fmt.Fprintf(w, "%s%s\n", indent, stepText(st, lineWidth-len(indent)))
	}
}

// stepText is a step's line (printPath) in width columns or so: the edge's
// label and the holder share what the figures leave, at least 36 columns.
func stepText(st analysis.PathStep, width int) string {
	figures := fmt.Sprintf("  self %d  retained %d  distance %s", st.SelfSize, st.Retained, distanceText(st.Distance))
	if st.Edge == nil {
		return st.Holder(max(width-len(figures), 36)) + figures
	}
	kind := " (" + st.Edge.Kind + ")"
	room := max(width-len(figures)-utf8.RuneCountInString(kind), 36) - len(" in ")
	label := edgeText(st.Edge, math.MaxInt)
	edge, holder := utf8.RuneCountInString(label), utf8.RuneCountInString(st.Holder(math.MaxInt))
	if edge+holder > room {
		holder = min(holder, max(room-edge, room*2/3))
		edge = room - holder
	}
	return edgeText(st.Edge, edge) + " in " + st.Holder(holder) + kind + figures
}

// edgeText is an edge's label as the Retainers view shows it (its name,
// "[3]" for an element), cut to width characters.
func edgeText(r *analysis.Reference, width int) string {
	return analysis.Abbreviate(r.Label(), width)
}

func distanceText(d int) string {
	switch {
	case d == analysis.NoDistance:
		return "-"
	case d >= analysis.SystemDistance:
		return fmt.Sprintf("%d (system)", d-analysis.SystemDistance)
	}
	return strconv.Itoa(d)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func checkBy(by string) error {
	switch by {
	case analysis.BySelf, analysis.ByCount, analysis.ByRetained:
		return nil
	}
	return usagef("--by must be self, count or retained, not %q", by)
}

const pathsUsage = `Usage: heapconv paths (--class NAME | --id REF | --suspects) [--max N] [--json]
                      [--snapshot N] [--from F] [--contents DIR] [--scan-pointers] IN

Shows what keeps objects alive: for the object REF names, for the
objects of class NAME that retain the most (at most N of them), or for
the heap's biggest holders (--suspects), the shortest path of references
from the GC roots to it, and its dominators (the objects whose loss would
free it). A step reads as a row of Chrome
DevTools' Retainers view: the reference by which the holder holds the
next object (its name, or [index]), "in", the holder's class, the name it
is shown by and its reference, then the reference's kind, the holder's
self and retained size and its distance from the roots:

  sessions in global @6047 (property)  self 8656  retained 2415179  distance 1
  context in Function onChange() @5058 (internal)  self 64  retained 784  distance 2

A function is shown by its name and "()", a string by its text in quotes,
a plain object by its properties ({a, b}), as DevTools shows them; long
names are cut (…) to keep a line within 100 columns. An unreachable
object (no path from the roots) has no path; the dominator tree hangs it
from the root, as Chrome DevTools does.

Every object paths, diff and report print has a reference --id takes: "@"
and its id where no other object has that id (@123457; a Fuchsia block's
address in hex, @0x2d378d3424), else "#" and its index in the snapshot
(#1234: a Dart object without an identity hash code, whose id is 0).

A V8 heap is walked as Chrome DevTools walks it: distances from the
JavaScript globals first, the edges DevTools skips skipped, and each
object's retainers in the order of DevTools' Retainers view, so that the
path is the one the Retainers view expands first. Classes are named as
heapconv info names them.

Flags:
  --class NAME   the objects of this class (as heapconv info lists it: a
                 V8 class split by allocation location by its name alone,
                 or one location as "Foo at script 3 line 11 column 5")
  --id REF       the object of this reference (@123457 or #1234, as
                 printed), or of this node id (V8 and MoarVM ids, Dart
                 identity hash codes, Fuchsia block addresses: 123457, or
                 in hex 0x2d378d3424); where an id is not unique (Dart),
                 the first --max objects with it
  --suspects     the objects that alone keep a tenth of the heap or more
                 alive, the most specific of them (an object that holds
                 such an object stands aside for it), as Eclipse MAT's
                 Leak Suspects finds them in one heap, each with its share
                 and the classes of what it keeps alive ("suspect" in
                 --json); heapconv diff finds what grows between snapshots
  --max N        how many objects, largest retained size first (default 5)
  --json         print one JSON object: {"heap": {"name": ...,
                 "snapshot": i}, "objects": [{"object": step, "path":
                 [step, ...], "dominators": [step, ...], "suspect": {...}}]},
                 where a suspect is as diff --json writes one and a step is
                 {"node": i, "id": n, "ref": ..., "class": ...,
                 "name": ..., "shown": ..., "self_size": s,
                 "retained_size": r, "distance": d, "edge": {"edge": e,
                 "from": i, "to": j, "kind": ..., "name": ...,
                 "indexed": b}} (node: the index in the snapshot; ref:
                 what --id takes; name: its name in the snapshot; shown:
                 the name it is shown by, uncut: for V8 the text of
                 DevTools' Retainers view, "onChange()", "\"text\"",
                 "{a, b}"; no edge on the last step; distance -1 for an
                 unreachable object; a V8 object only V8's own roots
                 reach has 100000000 added)
  --snapshot N   the snapshot of an IN that holds several (or IN#N)
  --from F, --contents DIR, --scan-pointers  as for info

Examples:
  heapconv paths --class LeakedThing app.heapsnapshot
  heapconv paths --id 123457 --json app.heapsnapshot | jq '.objects[0].path'
  heapconv paths --id '#1234' flutter.dartheap
  heapconv paths --class BOOTHash --max 1 rakudo.mvmheap#2
  heapconv paths --suspects --max 3 app.heapsnapshot
`

// pathsJSON is paths' --json output; its field names are a contract.
type pathsJSON struct {
	Heap    heapJSON     `json:"heap"`
	Objects []objectJSON `json:"objects"`
}

type objectJSON struct {
	Object     analysis.PathStep   `json:"object"`
	Path       []analysis.PathStep `json:"path"`
	Dominators []analysis.PathStep `json:"dominators"`
	// Suspect is, with --suspects, what the object keeps alive.
	Suspect *analysis.Suspect `json:"suspect,omitempty"`
}

func runPaths(e *env, args []string) error {
	fs := newFlags("paths")
	class := fs.String("class", "", "")
	id := fs.String("id", "", "")
	max := fs.Int("max", 5, "")
	asJSON := fs.Bool("json", false, "")
	snap := fs.String("snapshot", "", "")
	from := inputFlag(fs, "from")
	contents := inputFlag(fs, "contents")
	scan := fs.Bool("scan-pointers", false, "")
	suspects := fs.Bool("suspects", false, "")
	if err := parse(e, fs, pathsUsage, args); err != nil {
		return err
	}
	if n := btoi(fs.Changed("class")) + btoi(fs.Changed("id")) + btoi(*suspects); n != 1 {
		return usagef("paths needs one of --class NAME, --id ID and --suspects")
	}
	if *max < 1 {
		return usagef("--max must be 1 or more")
	}
	if fs.Changed("id") {
		if _, _, err := analysis.ParseRef(*id); err != nil {
			return usagef("--id takes an object as paths, diff and report show it: its id (123457; 0x2d378d3424 in hex, as Fuchsia block addresses are shown; the @ before it may stay) or # and its index in the snapshot (#1234), not %q", *id)
		}
	}
	if err := oneIN(fs, "paths"); err != nil {
		return err
	}
	if *snap != "" {
		if _, err := strconv.Atoi(*snap); err != nil {
			return usagef("--snapshot takes one snapshot number, not %q", *snap)
		}
	}
	operands, err := heapArgs(fs.Args(), *snap)
	if err != nil {
		return err
	}
	heaps, err := readHeaps(e, operands, heapconv.ReadOptions{Format: *from, ContentsDir: *contents, ScanPointers: *scan})
	if err != nil {
		return inputError(err)
	}
	nv, err := analysis.NewNavigator(heaps[0])
	if err != nil {
		return err
	}
	var nodes []int
	var found []analysis.Suspect
	if fs.Changed("id") {
		if nodes, err = nv.NodesByRef(*id); err != nil {
			return err
		}
		if len(nodes) == 0 {
			if strings.HasPrefix(*id, "#") {
				return fmt.Errorf("%s: no object %s: the snapshot's objects are #0 to #%d", operands[0].name, *id, heaps[0].Snapshot.Nodes.Len()-1)
			}
			return fmt.Errorf("%s: no object has id %s", operands[0].name, *id)
		}
		if len(nodes) > *max {
			fmt.Fprintf(e.stderr, "heapconv paths: %d objects have id %s (this format's ids are not unique); showing the first %d (--max); name one by its index, as #N\n", len(nodes), *id, *max)
			nodes = nodes[:*max]
		}
	} else if *suspects {
		found = nv.HeapSuspects(0.1, *max, 5)
		for _, s := range found {
			nodes = append(nodes, s.Holder.Node)
		}
		if len(nodes) == 0 {
			fmt.Fprintf(e.stderr, "heapconv paths: no object keeps a tenth of %s alive on its own\n", operands[0].name)
		}
	} else {
		nodes = nv.ClassNodes(*class, *max)
		if len(nodes) == 0 {
			return fmt.Errorf("%s: no object of class %q (heapconv info --csv lists the classes)", operands[0].name, *class)
		}
	}
	out := pathsJSON{Heap: heapJSON{Name: operands[0].file, Snapshot: snapshotNumber(operands[0], heaps[0])}, Objects: []objectJSON{}}
	for k, i := range nodes {
		o := objectJSON{Path: nv.ShortestPath(i), Dominators: nv.DominatorChain(i)}
		if found != nil {
			o.Suspect = &found[k]
		}
		o.Object = nv.Step(i)
		if o.Path == nil {
			o.Path = []analysis.PathStep{}
		}
		if o.Dominators == nil {
			o.Dominators = []analysis.PathStep{}
		}
		out.Objects = append(out.Objects, o)
	}
	if *asJSON {
		return writeJSON(e.stdout, out)
	}
	w := e.stdout
	for k, o := range out.Objects {
		if k > 0 {
			fmt.Fprintln(w)
		}
		st := o.Object
		fmt.Fprintln(w, stepText(st, lineWidth))
		if sus := o.Suspect; sus != nil {
			fmt.Fprintf(w, "  keeps %.0f%% of the heap alive: %s objects, %s\n", 100*sus.Share, commas(sus.Count), sizeText(sus.Retained))
			printWrapped(w, suspectClasses(sus.Classes, ""), "  ", lineWidth)
		}
		unreachable := len(o.Path) == 0
		if unreachable {
			fmt.Fprintf(w, "  unreachable: no path of references leads to it from the roots (nothing holds it,\n  or only weak references and other unreachable objects do)\n")
		} else {
			fmt.Fprintf(w, "  shortest retainer path, from the roots:\n")
			printPath(w, o.Path, "    ")
		}
		switch {
		case len(o.Dominators) > 0 && unreachable:
			fmt.Fprintf(w, "  dominators, from the root, which adopts what is unreachable as Chrome DevTools does (an\n  unreachable object nothing else holds hangs from the root, what only it holds below it):\n")
			printPath(w, o.Dominators, "    ")
		case len(o.Dominators) > 0:
			fmt.Fprintf(w, "  dominators, from the root:\n")
			printPath(w, o.Dominators, "    ")
		}
	}
	return nil
}

// summarizeWithRetained is SummarizeBy in the given order with every
// class's retained size.
func summarizeWithRetained(f *ir.File, s *ir.Snapshot, top int, by string) (analysis.SnapshotSummary, error) {
	sum, err := analysis.SummarizeBy(f, s, -1, analysis.ByRetained)
	if err != nil {
		return sum, err
	}
	rows := sum.TopClasses
	slices.SortStableFunc(rows, func(a, b analysis.ClassStat) int {
		if by == analysis.ByCount && a.Count != b.Count {
			return cmp.Compare(b.Count, a.Count)
		}
		if a.SelfSize != b.SelfSize {
			return cmp.Compare(b.SelfSize, a.SelfSize)
		}
		return cmp.Compare(b.Count, a.Count)
	})
	if top >= 0 && len(rows) > top {
		rows = rows[:top]
	}
	sum.TopClasses = rows
	return sum, nil
}

// writeClassCSV writes info's class tables as CSV (RFC 4180).
func writeClassCSV(w io.Writer, snaps []snapshotJSON) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"snapshot", "class", "count", "self_size", "retained_size", "script_id", "line", "column"})
	for _, s := range snaps {
		for _, c := range s.TopClasses {
			// CSV is text: a lone surrogate (V8) becomes U+FFFD.
			row := []string{strconv.Itoa(s.Index), strings.ToValidUTF8(c.Name, "\uFFFD"), strconv.FormatUint(c.Count, 10), strconv.FormatUint(c.SelfSize, 10), "", "", "", ""}
			if c.Retained != nil {
				row[4] = strconv.FormatUint(*c.Retained, 10)
			}
			if l := c.Location; l != nil {
				row[5], row[6], row[7] = strconv.FormatUint(uint64(l.ScriptID), 10), strconv.FormatUint(uint64(l.Line), 10), strconv.FormatUint(uint64(l.Column), 10)
			}
			cw.Write(row)
		}
	}
	cw.Flush()
	return cw.Error()
}

// exportTables is convert --to parquet.
func exportTables(e *env, in, out, snap string, force, quiet, redact bool, lossFile, fileID string, read heapconv.ReadOptions) error {
	if out == "-" {
		return usagef("the Parquet tables are a directory: OUT cannot be -")
	}
	sel, err := parseSnapshot(snap)
	if err != nil {
		return err
	}
	if sel == heapconv.EachSnapshot {
		return usagef("the Parquet tables hold every snapshot: --snapshot all is for formats that hold one")
	}
	if !quiet {
		read.Progress = newProgress(e, "reading").update
	}
	r, err := heapconv.ExportTables(in, out, &heapconv.ExportOptions{Read: read, Snapshots: sel, FileID: fileID, Overwrite: force,
		Redact: redact, LossReportFile: lossFile, Stdin: e.stdin})
	clearProgress(e)
	if err != nil {
		return convertError(err)
	}
	printLoss(e, r, quiet, redact)
	return nil
}

const reportUsage = `Usage: heapconv report [--title T] [--classes N] [--force] [--from F]
                      [--contents DIR] [--scan-pointers] IN [IN ...] OUT.html

Writes one self-contained HTML page (it loads nothing; open it anywhere,
offline) about a heap: its classes in a sortable table (count, self and
retained size), a treemap of retained size over the dominator tree
grouped by class that zooms on a click down to single objects, and the
shortest retainer paths of the classes that retain the most. Given
several snapshots of one program (several INs, or a file that holds
several, such as a MoarVM file), it shows the last in detail and charts
how much the classes that grew most changed since the first. An IN may name one
snapshot of a file (prog.mvmheap#3), and "-" standard input, once (or
several snapshots of it: -#0 -#2). OUT may be "-"; a file is written
under a temporary name and renamed at the end; a device or pipe
(/dev/stdout, a FIFO) is written in place, never replaced.

Flags:
  --title T      the page's title (default: "heap report: " and the last IN)
  --classes N    how many classes the table lists, most retained first
                 (default 500)
  --force        replace an existing OUT
  --from F, --contents DIR, --scan-pointers  as for info, for every IN
                 (each given once)

Examples:
  heapconv report app.heapsnapshot app.html
  heapconv report rakudo.mvmheap rakudo.html
  heapconv report before.heapsnapshot after.heapsnapshot later.heapsnapshot leak.html
`

func runReport(e *env, args []string) error {
	fs := newFlags("report")
	title := fs.String("title", "", "")
	classes := fs.Int("classes", 500, "")
	force := fs.Bool("force", false, "")
	from := inputFlag(fs, "from")
	contents := inputFlag(fs, "contents")
	scan := fs.Bool("scan-pointers", false, "")
	if err := parse(e, fs, reportUsage, args); err != nil {
		return err
	}
	if fs.NArg() < 2 {
		return usagef("report needs IN and OUT.html")
	}
	if *classes < 1 {
		return usagef("--classes must be 1 or more")
	}
	ins, out := fs.Args()[:fs.NArg()-1], fs.Arg(fs.NArg()-1)
	operands, err := heapArgs(ins, "")
	if err != nil {
		return err
	}
	var files []string
	for _, a := range operands {
		if a.file != "-" {
			files = append(files, a.file)
		}
	}
	if out != "-" {
		if err := heapconv.CheckOutput(out, *force, files...); err != nil {
			return convertError(err)
		}
	}
	// A file of several snapshots named without #N gives them all.
	heaps, names, err := readAllHeaps(e, operands, heapconv.ReadOptions{Format: *from, ContentsDir: *contents, ScanPointers: *scan}, true)
	if err != nil {
		return inputError(err)
	}
	if *title == "" {
		*title = "heap report: " + ins[len(ins)-1]
	}
	err = heapconv.WriteReport(out, heaps, &heapconv.ReportOptions{
		Report:    report.Options{Title: *title, Names: names, Classes: *classes},
		Overwrite: *force, Inputs: files, Stdout: e.stdout,
	})
	return convertError(err)
}

// readAllHeaps reads each operand's heaps, every file once: the snapshot
// it names, the file's only one, or with all every snapshot of its file (a
// file of several processes' heaps, a Fuchsia profile's, needs one named
// all the same); names name each heap.
func readAllHeaps(e *env, args []heapArg, opts heapconv.ReadOptions, all bool) ([]analysis.Heap, []string, error) {
	var heaps []analysis.Heap
	var names []string
	files := map[string]*ir.File{}
	inputNames := map[string]string{}
	for _, a := range args {
		f := files[a.file]
		if f == nil {
			in, err := openInput(e, a.file, opts)
			if err != nil {
				return nil, nil, err
			}
			if a.snapshot >= 0 && in.Format.Name == ir.FormatIR && a.file != "-" {
				// One snapshot of an archive: read in part where it has
				// an index (a series' snapshots are the files they came
				// from).
				g, err := in.ReadSnapshot(a.snapshot)
				clearProgress(e)
				if err != nil {
					return nil, nil, err
				}
				heaps = append(heaps, analysis.Heap{File: g, Snapshot: g.Snapshots[0]})
				names = append(names, a.name)
				continue
			}
			if f, err = read(e, in); err != nil {
				return nil, nil, err
			}
			files[a.file], inputNames[a.file] = f, in.Name
		}
		if a.snapshot >= 0 || !all || len(f.Snapshots) == 1 {
			h, err := heapconv.SelectHeap(f, inputNames[a.file], a.snapshot)
			if err != nil {
				return nil, nil, err
			}
			heaps = append(heaps, h)
			names = append(names, a.name)
			continue
		}
		if processes(f) {
			return nil, nil, fmt.Errorf("%s holds the heaps of %d processes, not snapshots of one over time; name one as %s#N", inputNames[a.file], len(f.Snapshots), a.file)
		}
		for k := range f.Snapshots {
			h, err := heapconv.SelectHeap(f, inputNames[a.file], k)
			if err != nil {
				return nil, nil, err
			}
			heaps = append(heaps, h)
			names = append(names, fmt.Sprintf("%s#%d", a.file, k))
		}
	}
	if len(heaps) == 0 {
		return nil, nil, fmt.Errorf("no snapshot to read")
	}
	return heaps, names, nil
}

// processes reports whether a file's snapshots are the heaps of different
// processes (a multi-process Fuchsia profile), not one heap over time.
func processes(f *ir.File) bool {
	koids := map[int64]bool{}
	for _, s := range f.Snapshots {
		if x := fuchsiair.Of(s); x != nil && x.HasProcessKoid {
			koids[x.ProcessKoid] = true
		}
	}
	return len(koids) > 1
}

// btoi is 1 for true, 0 for false.
func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
