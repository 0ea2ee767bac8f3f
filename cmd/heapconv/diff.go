package main

import (
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/heapconv/heapconv"
	"github.com/heapconv/heapconv/ir/analysis"
)

const diffUsage = `Usage: heapconv diff [--json] [--top N] [--by count|self|retained]
                     [--suspects N] [--noise] [--fail-on-growth REGEX|any]
                     [--retained=false] [--snapshot A,B,...] [--from F]
                     [--contents DIR] [--scan-pointers] OLD NEW [LATER ...]

Compares snapshots of one program taken one after another: two or more
files (a --count series of heapconv capture), snapshots of a file that
holds several (prog.mvmheap#3, a range prog.mvmheap#0..#10, or the file
alone for all of them; or one IN with --snapshot 0,3,5), "-" for standard
input once (or as several snapshots of it: -#0 -#2).

It prints the leak suspects first, then per class the count, self size
and retained size in the last snapshot, their change from the first, and
the trend of the count over all of them, the classes that grew most first
(--by); a class whose count grew in every step is marked "+".

A suspect is one leak: the leaked objects accumulated under one holder,
the nearest object that holds them all and is not leaked itself (a Map of
sessions, whatever each session is made of), ranked by what they retain
together, with the classes leaked under it and a retainer path from the
roots through the holder. Where objects keep an identity from one snapshot
to the next (V8 node ids within one process, but for native nodes; Dart
identity hash codes; Fuchsia block addresses with their allocation
times), the leaked objects are those of the last step: new in the
second-to-last snapshot (since the one before) and still alive in the last
(allocated during one phase, alive after the next); of two snapshots, the
new ones. MoarVM objects have no such identity: the suspects are then the
holders (matched between the first and the last snapshot by their path
from the roots) whose objects of the classes that grew grew, by how much.
Engine noise (V8's compiled code, object shapes, feedback vectors and what
only V8's own roots hold, such as the strings it interns; the Dart VM's
code objects; MoarVM's specializations) is left out unless --noise.

Exit status: 0, or 3 with --fail-on-growth when a class it names grew in
every step (1 on errors, 2 on usage errors), so a leak test is one line.

Flags:
  --json         print one JSON object:
                 {"heaps": [{"name": ..., "snapshot": i}], "by": ...,
                  "step": [i, ...] (the heaps new and leaked objects come
                  from), "suspects_by": "identity" | "growth" | "",
                  "suspects": [{"holder": step, "holders": n, "count": n,
                  "self_size": s, "retained_size": r, "share": f,
                  "classes": [{"class": ..., "count": n, "self_size": s,
                  "ids": [..]}], "path": [steps], "holder_step": k}],
                  "noise": n, "grew_in_each": [class names],
                  "classes_total": n, "classes": [{"name": ...,
                  "location": {...}, "count": [..], "self_size": [..],
                  "retained_size": [..], "grew_in_each": b}],
                  "identity": ..., "no_identity": why objects are not
                  matched (when identity is ""), "new_total": n,
                  "new": [{"class": ..., "count": n, "self_size": s,
                  "ids": [..]}], "leaked_total": n, "leaked": [{...,
                  "path": [steps]}], "failed_growth": [class names]}
                 (one figure per snapshot in each list; a step as heapconv
                 paths --json prints it)
  --top N        how many classes to list (default 20; 0 for all)
  --by K         order classes by the growth of their self size (the
                 default), count or retained size
  --suspects N   how many suspects to list (default 5; 0 for none)
  --noise        keep engine noise among the suspects' objects
  --fail-on-growth REGEX|any  exit with status 3 when the count of a class
                 whose name REGEX matches (any: every class but engine
                 noise) grew in every step, after printing the comparison
  --retained=false  leave out the retained sizes, whose dominator trees
                 take most of diff's time on a large heap (the suspects
                 still need the last snapshot's)
  --snapshot A,B,...  compare these snapshots of the one IN
  --from F, --contents DIR, --scan-pointers  as for info, for every IN
                 (each given once)

Examples:
  heapconv diff before.heapsnapshot after.heapsnapshot later.heapsnapshot
  heapconv diff --fail-on-growth 'Session|Socket' snap-*.heapsnapshot
  heapconv diff rakudo.mvmheap#0..#5
  heapconv diff --snapshot 0,2 --json nqp.mvmheap | jq '.suspects[0]'
`

// diffJSON is diff's --json output; its field names are a contract.
type diffJSON struct {
	Heaps        []heapJSON             `json:"heaps"`
	By           string                 `json:"by"`
	Step         []int                  `json:"step"`
	SuspectsBy   string                 `json:"suspects_by"`
	Suspects     []analysis.Suspect     `json:"suspects"`
	Noise        uint64                 `json:"noise"`
	GrewInEach   []string               `json:"grew_in_each"`
	ClassesTotal int                    `json:"classes_total"`
	Classes      []classChangeJSON      `json:"classes"`
	Identity     string                 `json:"identity"`
	NoIdentity   string                 `json:"no_identity,omitempty"`
	NewTotal     uint64                 `json:"new_total"`
	New          []analysis.ObjectGroup `json:"new"`
	LeakedTotal  *uint64                `json:"leaked_total,omitempty"`
	Leaked       []analysis.ObjectGroup `json:"leaked,omitempty"`
	FailedGrowth []string               `json:"failed_growth,omitempty"`
}

type heapJSON struct {
	Name     string `json:"name"`
	Snapshot int    `json:"snapshot"`
}

type classChangeJSON struct {
	analysis.ClassChange
	GrewInEach bool `json:"grew_in_each"`
}

// growthError is --fail-on-growth's finding: exit status 3.
type growthError struct{ msg string }

func (e *growthError) Error() string { return e.msg }

func runDiff(e *env, args []string) error {
	fs := newFlags("diff")
	asJSON := fs.Bool("json", false, "")
	top := fs.Int("top", 20, "")
	by := fs.String("by", analysis.BySelf, "")
	suspects := fs.Int("suspects", 5, "")
	noise := fs.Bool("noise", false, "")
	failOn := fs.String("fail-on-growth", "", "")
	snap := fs.String("snapshot", "", "")
	from := inputFlag(fs, "from")
	contents := inputFlag(fs, "contents")
	scan := fs.Bool("scan-pointers", false, "")
	retained := fs.Bool("retained", true, "")
	if err := parse(e, fs, diffUsage, args); err != nil {
		return err
	}
	if err := checkBy(*by); err != nil {
		return err
	}
	if !*retained && *by == analysis.ByRetained {
		return usagef("--by retained needs the retained sizes that --retained=false leaves out")
	}
	if *top < 0 || *suspects < 0 {
		return usagef("--top and --suspects must be 0 or more")
	}
	var failRE *regexp.Regexp
	if fs.Changed("fail-on-growth") && *failOn != "any" {
		re, err := regexp.Compile(*failOn)
		if err != nil || *failOn == "" {
			return usagef("--fail-on-growth takes a regular expression of class names, or any: %q is not one", *failOn)
		}
		failRE = re
	}
	operands, err := heapArgs(fs.Args(), *snap)
	if err != nil {
		return err
	}
	if len(operands) < 1 {
		return usagef("diff needs OLD and NEW, or more snapshots (or one IN that holds several)")
	}
	if a, b, ok := seriesOutOfOrder(operands); ok {
		fmt.Fprintf(e.stderr, "heapconv diff: %s comes before %s: the snapshots are compared in the order given (a shell sorts snap-10 before snap-2; number them with %%02d, or list them in order)\n", a, b)
	}
	// One file alone stands for all its snapshots.
	heaps, names, err := readAllHeaps(e, operands, heapconv.ReadOptions{Format: *from, ContentsDir: *contents, ScanPointers: *scan}, len(operands) == 1)
	if err != nil {
		return inputError(err)
	}
	if len(heaps) < 2 {
		return usagef("diff needs OLD and NEW, or more snapshots: %s holds one", operands[0].name)
	}
	n := *suspects
	if n == 0 {
		n = -1
	}
	c, err := analysis.Compare(heaps, analysis.CompareOptions{By: *by, Retained: *retained, Suspects: n, Noise: *noise})
	if err != nil {
		return err
	}
	out := diffJSON{By: *by, Step: c.Step, SuspectsBy: c.SuspectsBy, Suspects: c.Suspects, Noise: c.Noise,
		ClassesTotal: len(c.Classes), Identity: c.Identity, New: c.New, Leaked: c.Leaked,
		Classes: []classChangeJSON{}, GrewInEach: []string{}}
	if c.Identity == "" {
		out.NoIdentity = noIdentity(heaps)
	}
	for i, h := range heaps {
		file, k := heapconv.ParseHeapName(names[i])
		if k < 0 {
			k = heapIndex(h)
		}
		out.Heaps = append(out.Heaps, heapJSON{Name: file, Snapshot: k})
	}
	for _, g := range c.New {
		out.NewTotal += g.Count
	}
	if len(c.Step) == 3 && c.Identity != "" {
		var n uint64
		for _, g := range c.Leaked {
			n += g.Count
		}
		out.LeakedTotal = &n
	}
	format := heaps[len(heaps)-1].File.Format
	if isV8(heaps[len(heaps)-1]) {
		format = "v8"
	}
	for _, k := range c.Classes {
		grew := k.GrewInEach()
		out.Classes = append(out.Classes, classChangeJSON{k, grew})
		if !grew || analysis.NoiseClass(format, k.Name) {
			continue
		}
		out.GrewInEach = append(out.GrewInEach, k.Label())
		if fs.Changed("fail-on-growth") && (failRE == nil || failRE.MatchString(k.Name) || failRE.MatchString(k.Label())) {
			out.FailedGrowth = append(out.FailedGrowth, k.Label())
		}
	}
	limit := func(n int) int {
		if *top == 0 || n < *top {
			return n
		}
		return *top
	}
	out.Classes = out.Classes[:limit(len(out.Classes))]
	if out.New == nil {
		out.New = []analysis.ObjectGroup{}
	}
	if *asJSON {
		out.New = out.New[:limit(len(out.New))]
		out.Leaked = out.Leaked[:limit(len(out.Leaked))]
		if err := writeJSON(e.stdout, out); err != nil {
			return err
		}
	} else {
		printDiff(e.stdout, out)
	}
	if len(out.FailedGrowth) > 0 {
		return &growthError{fmt.Sprintf("%s grew in every one of the %d steps (--fail-on-growth %s)",
			listNames(out.FailedGrowth, 3), len(heaps)-1, *failOn)}
	}
	return nil
}

// isV8 reports whether DevTools' rules name a heap's classes.
func isV8(h analysis.Heap) bool { return h.File.Format == "v8" }

// listNames lists a few names: "A, B and 3 more classes".
func listNames(names []string, max int) string {
	if len(names) <= max {
		if len(names) == 1 {
			return names[0]
		}
		return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
	}
	return strings.Join(names[:max], ", ") + " and " + plural(len(names)-max, "more class")
}

// roleName names heap k of n in diff's text: OLD, NEW and LATER for two or
// three, #k for more.
func roleName(k, n int) string {
	if n <= 3 {
		return []string{"OLD", "NEW", "LATER"}[k]
	}
	return fmt.Sprintf("#%d", k)
}

func printDiff(w io.Writer, out diffJSON) {
	n := len(out.Heaps)
	for i, h := range out.Heaps {
		fmt.Fprintf(w, "%-6s %s (snapshot %d)\n", roleName(i, n), h.Name, h.Snapshot)
	}
	printSuspects(w, out)
	what := map[string]string{analysis.BySelf: "self size", analysis.ByCount: "count", analysis.ByRetained: "retained size"}[out.By]
	fmt.Fprintf(w, "\nclasses by growth of %s from %s to %s (%d of %d; + grew in every step):\n",
		what, roleName(0, n), roleName(n-1, n), len(out.Classes), out.ClassesTotal)
	withRetained := len(out.Classes) > 0 && len(out.Classes[0].Retained) > 0
	header := fmt.Sprintf("%9s %8s %9s %9s", "count", "change", "self", "change")
	if withRetained {
		header += fmt.Sprintf(" %9s %9s", "retained", "change")
	}
	trend := n >= 3
	if trend {
		header += fmt.Sprintf("  %-*s", trendWidth(n), "trend")
	}
	fmt.Fprintf(w, "%s   class\n", header)
	for _, c := range out.Classes {
		last := n - 1
		row := fmt.Sprintf("%9d %+8d %9s %9s", c.Count[last], c.Growth(analysis.ByCount), sizeText(c.SelfSize[last]), signedSize(c.Growth(analysis.BySelf)))
		if withRetained {
			row += fmt.Sprintf(" %9s %9s", sizeText(c.Retained[last]), signedSize(c.Growth(analysis.ByRetained)))
		}
		if trend {
			row += "  " + sparkline(c.Count, trendWidth(n))
		}
		mark := " "
		if c.GrewInEach {
			mark = "+"
		}
		fmt.Fprintf(w, "%s %s %s\n", row, mark, fitName(classLabel(analysis.ClassStat{Name: c.Name, Location: c.Location}), lineWidth-utf8.RuneCountInString(row)-3))
	}
	if out.Identity == "" {
		fmt.Fprintf(w, "\n%s: compared by class.\n", out.NoIdentity)
		return
	}
	a, b := out.Step[0], out.Step[1]
	fmt.Fprintf(w, "\nobjects matched by %s:\n  %s new in %s since %s", out.Identity, objectCount(out.NewTotal), roleName(b, n), roleName(a, n))
	if out.LeakedTotal != nil {
		fmt.Fprintf(w, ", %s of them still alive in %s", commas(*out.LeakedTotal), roleName(out.Step[2], n))
	}
	fmt.Fprintf(w, "\n  (--json lists them by class and retainer path)\n")
}

// printSuspects prints the leak suspects, a few lines each.
func printSuspects(w io.Writer, out diffJSON) {
	n := len(out.Heaps)
	switch out.SuspectsBy {
	case "identity":
		what := fmt.Sprintf("objects new in %s and still alive in %s", roleName(out.Step[1], n), roleName(out.Step[2%len(out.Step)], n))
		if len(out.Step) == 2 {
			what = fmt.Sprintf("objects new in %s", roleName(out.Step[1], n))
		}
		fmt.Fprintf(w, "\nleak suspects (%s, by what holds them):\n", what)
	case "growth":
		fmt.Fprintf(w, "\nleak suspects (objects have no identity here: what grew from %s to %s, by what holds it):\n", roleName(0, n), roleName(n-1, n))
	default:
		return
	}
	if len(out.Suspects) == 0 {
		fmt.Fprintf(w, "  none\n")
	}
	for k, s := range out.Suspects {
		sign, of := "", "the leaked memory"
		if out.SuspectsBy == "growth" {
			sign, of = "+", "the growth"
		}
		fmt.Fprintf(w, "%2d. %s: %s%s, %s%s retained (%.0f%% of %s)\n", k+1, stepLabel(s.Holder, 44),
			sign, objectCount(s.Count), sign, sizeText(s.Retained), 100*s.Share, of)
		if s.Holders > 1 {
			fmt.Fprintf(w, "    and %d more objects held the same way (the same path from the roots)\n", s.Holders-1)
		}
		printWrapped(w, suspectClasses(s.Classes, sign), "    ", lineWidth)
		if len(s.Path) > 0 {
			fmt.Fprintf(w, "    path from the roots:\n")
			printPath(w, elidePath(s.Path, s.HolderStep), "      ")
		}
	}
	if out.Noise > 0 {
		fmt.Fprintf(w, "  (%s of engine noise left out; --noise keeps them)\n", plural(int(out.Noise), "object"))
	}
}

// printWrapped prints items separated by commas, as many to a line as
// fit width columns.
func printWrapped(w io.Writer, items []string, indent string, width int) {
	line := indent
	for k, it := range items {
		if k < len(items)-1 {
			it += ","
		}
		if line != indent && utf8.RuneCountInString(line)+1+utf8.RuneCountInString(it) > width {
			fmt.Fprintln(w, line)
			line = indent
		}
		if line != indent {
			line += " "
		}
		line += it
	}
	if line != indent {
		fmt.Fprintln(w, line)
	}
}

// suspectClasses describes a suspect's first four classes for the text,
// "300 Session (16.8 kB)" (a closure with its function's name; sign
// before the figures of growth), and how many more there are.
func suspectClasses(classes []analysis.ObjectGroup, sign string) []string {
	var out []string
	for _, c := range classes[:min(len(classes), 4)] {
		name := fitName(tableName(c.Class), 40)
		if c.Name != "" {
			name += " " + fitName(tableName(c.Name), 24)
		}
		out = append(out, fmt.Sprintf("%s%s %s (%s)", sign, commas(c.Count), name, sizeText(c.SelfSize)))
	}
	if len(classes) > 4 {
		out = append(out, plural(len(classes)-4, "more class"))
	}
	return out
}

// objectCount says how many objects, with thousands separators: "1
// object", "3,300 objects".
func objectCount(n uint64) string {
	if n == 1 {
		return "1 object"
	}
	return commas(n) + " objects"
}

// elidePath keeps a long path short: its first two steps, the holder and
// what follows it (at most 8 steps in all), the rest as one step saying
// how many it stands for.
func elidePath(path []analysis.PathStep, holder int) []analysis.PathStep {
	const keep = 8
	if len(path) <= keep+2 {
		return path
	}
	from := max(2, min(holder, len(path)-keep+2))
	tail := path[from:]
	if len(tail) > keep-2 {
		tail = append(tail[:keep-3:keep-3], path[len(path)-1])
	}
	out := append([]analysis.PathStep{}, path[:2]...)
	out = append(out, analysis.PathStep{Node: -1, Class: fmt.Sprintf("… %d steps …", len(path)-2-len(tail)), Distance: analysis.NoDistance})
	return append(out, tail...)
}

// stepLabel names a suspect's holder: its class, the name it is shown by
// and its reference, in width columns or so.
func stepLabel(st analysis.PathStep, width int) string {
	if st.Node < 0 {
		return st.Class
	}
	return st.Holder(width)
}

// fitName cuts a name to width characters, with an ellipsis.
func fitName(s string, width int) string {
	width = max(width, 12)
	r := []rune(s)
	if len(r) <= width {
		return s
	}
	return string(r[:width-1]) + "…"
}

// sizeText writes a size in bytes as a person reads it: 812 B, 12.3 kB,
// 1.4 MB, 2.1 GB (powers of 1000, as DevTools shows sizes).
func sizeText(b uint64) string {
	switch {
	case b < 1000:
		return fmt.Sprintf("%d B", b)
	case b < 1e6:
		return fmt.Sprintf("%.1f kB", float64(b)/1e3)
	case b < 1e9:
		return fmt.Sprintf("%.1f MB", float64(b)/1e6)
	}
	return fmt.Sprintf("%.1f GB", float64(b)/1e9)
}

// signedSize is sizeText with a sign.
func signedSize(d int64) string {
	if d < 0 {
		return "-" + sizeText(uint64(-d))
	}
	return "+" + sizeText(uint64(d))
}

// commas writes a count with thousands separators.
func commas(n uint64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// trendWidth is how many characters the trend column takes for n heaps.
func trendWidth(n int) int { return max(5, min(n, 16)) }

// sparkline draws values as a line of block characters, width wide at
// most (values sampled evenly when there are more), from the smallest
// value (lowest block) to the largest.
func sparkline(v []uint64, width int) string {
	const blocks = "▁▂▃▄▅▆▇█"
	levels := []rune(blocks)
	lo, hi := v[0], v[0]
	for _, x := range v {
		lo, hi = min(lo, x), max(hi, x)
	}
	cells := min(len(v), width)
	var b strings.Builder
	for k := 0; k < cells; k++ {
		x := v[k*(len(v)-1)/max(cells-1, 1)]
		level := 0
		if hi > lo {
			level = int((x - lo) * uint64(len(levels)-1) / (hi - lo))
		}
		b.WriteRune(levels[level])
	}
	for k := cells; k < width; k++ {
		b.WriteByte(' ')
	}
	return b.String()
}

// seriesNumber is the last number in a name, and the name without it.
var seriesNumber = regexp.MustCompile(`^(.*?)(\d+)(\D*)$`)

// seriesOutOfOrder reports whether operands are a numbered series (names
// that differ only in their last number) given out of numeric order, and
// the first two out of order.
func seriesOutOfOrder(operands []heapArg) (string, string, bool) {
	var pattern string
	last := -1
	for k, a := range operands {
		m := seriesNumber.FindStringSubmatch(a.name)
		if m == nil {
			return "", "", false
		}
		if p := m[1] + "#" + m[3]; k == 0 {
			pattern = p
		} else if p != pattern {
			return "", "", false
		}
		n, err := strconv.Atoi(m[2])
		if err != nil {
			return "", "", false
		}
		if k > 0 && n < last {
			return operands[k-1].name, a.name, true
		}
		last = n
	}
	return "", "", false
}
