package conformance

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"

	"github.com/heapconv/heapconv/ir"
)

// A loss report names a difference only when its count is the count the
// matrix measures. For the aspects listed here the loss kinds count the
// very items the aspect measures (objects whose name changed, weak
// references made strong, ...): a conversion names such an aspect's
// difference only when the counts of these kinds in its report add up to
// the items measured as changed, over all the snapshots it wrote. The other
// aspects measure consequences (objects per class change when names do;
// retained sizes when references do), which the kinds measured here, or a
// whole feature without a count, name.
type counting struct {
	// kinds are the loss kinds whose counts add up to the changed items.
	kinds []string
	// unit says what is counted, for the fidelity table.
	unit string
	// tally counts the items that differ between the source's measure x and
	// the converted file's y.
	tally func(x, y []string) int64
}

var countings = map[string]counting{
	"names": {[]string{ir.LossNodeNames, ir.LossTruncatedNames, "dart-truncated-strings"}, "objects", paired},
	"ids":   {[]string{ir.LossNodeIDs}, "objects", positions},
	"weak references": {[]string{ir.LossWeakEdges}, "references",
		func(x, y []string) int64 { return absDiff(number(x), number(y)) }},
	"external memory":         {[]string{ir.LossExternalSizes}, "objects", moved},
	"roots":                   {[]string{ir.LossGCRoots}, "roots", moved},
	"values":                  {[]string{ir.LossValues}, "values", moved},
	"allocation stacks":       {[]string{ir.LossAllocationStacks}, "objects", moved},
	"allocation stacks, back": {[]string{ir.LossAllocationStacks}, "objects", moved},
	"timestamps":              {[]string{ir.LossTimestamps}, "objects", moved},
	"threads":                 {[]string{ir.LossThreads}, "objects", moved},
	"block contents":          {[]string{fuchsiair.LossContents}, "objects", moved},
	"totals":                  {[]string{ir.LossTotals}, "totals", symmetric},
}

// countedLines reads lines "key\tn" (counted's, perClass's) as a multiset;
// a line without a count counts once.
func countedLines(lines []string) map[string]int64 {
	m := make(map[string]int64, len(lines))
	for _, line := range lines {
		if i := strings.LastIndexByte(line, '\t'); i >= 0 {
			if n, err := strconv.ParseInt(line[i+1:], 10, 64); err == nil {
				m[line[:i]] += n
				continue
			}
		}
		m[line]++
	}
	return m
}

// moved counts the items whose value changed, from two multisets of values:
// an item that changed leaves one value and joins another, so it is the
// larger of what left and what joined (items lost or added count once).
func moved(x, y []string) int64 {
	a, b := countedLines(x), countedLines(y)
	var left, joined int64
	for k, n := range a {
		left += max(0, n-b[k])
	}
	for k, n := range b {
		joined += max(0, n-a[k])
	}
	return max(left, joined)
}

// symmetric counts the items of either side the other lacks (a total lost
// and one the target computes both count, as ir.TotalsChanged does).
func symmetric(x, y []string) int64 {
	a, b := countedLines(x), countedLines(y)
	var n int64
	for k, v := range a {
		n += absDiff(v, b[k])
	}
	for k, v := range b {
		if _, ok := a[k]; !ok {
			n += v
		}
	}
	return n
}

// paired counts the objects whose line differs, x and y listing the same
// objects in the same order; lists of different lengths cannot be paired,
// and count what moved.
func paired(x, y []string) int64 {
	if len(x) != len(y) {
		return moved(x, y)
	}
	var n int64
	for i := range x {
		if x[i] != y[i] {
			n++
		}
	}
	return n
}

// positions counts the places of two space-separated lists that differ
// (ids, in order), and the items one has beyond the other.
func positions(x, y []string) int64 {
	a, b := strings.Fields(strings.Join(x, " ")), strings.Fields(strings.Join(y, " "))
	n := absDiff(int64(len(a)), int64(len(b)))
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			n++
		}
	}
	return n
}

// number is a one-line measure's number.
func number(lines []string) int64 {
	if len(lines) != 1 {
		return 0
	}
	n, _ := strconv.ParseInt(lines[0], 10, 64)
	return n
}

func absDiff(a, b int64) int64 {
	if a > b {
		return a - b
	}
	return b - a
}

// reportCount adds up the counts of the kinds in the report, and says
// which it found.
func reportCount(loss ir.LossReport, kinds []string) (int64, string) {
	var n int64
	var said []string
	for _, k := range kinds {
		if l, ok := loss.Get(k); ok {
			n += l.Count
			said = append(said, fmt.Sprintf("%s %d", k, l.Count))
		}
	}
	if len(said) == 0 {
		return 0, "nothing"
	}
	return n, strings.Join(said, ", ")
}

// externalSizes measures the external (unmanaged) bytes of each object that
// has some (its own external size and the native nodes that hold its
// unmanaged memory), and the snapshot's external totals.
func externalSizes(m *measured) []string {
	sizes := m.perObject(func(i int) (string, bool) {
		var n uint64
		if m.s.Nodes.ExternalSize.Len() > i {
			n = m.s.Nodes.ExternalSize.At(i)
		}
		if m.unmanaged != nil {
			n = satAdd(n, m.unmanaged[i])
		}
		return strconv.FormatUint(n, 10), n > 0
	})
	for _, t := range m.s.Totals {
		// A total of 0 bytes counts no external memory, as an object
		// without any is not listed.
		if ir.IsExternalTotal(t.Name) && t.Value > 0 {
			sizes = append(sizes, "total "+t.Name+"="+strconv.FormatUint(t.Value, 10)+"\t1")
		}
	}
	sort.Strings(sizes)
	return sizes
}

// perObject measures what of says of each object (false: nothing), as
// counted lines; nil when it says nothing of any object.
// perObjectKeyed is perObject for values many objects share, each told by
// a number (key) and made once from it (value, "" for none).
func (m *measured) perObjectKeyed(key func(i int) uint64, value func(k uint64) string) []string {
	byKey := map[uint64]uint64{}
	for _, i := range m.real {
		byKey[key(i)]++
	}
	n := map[string]uint64{}
	for k, c := range byKey {
		if v := value(k); v != "" {
			n[v] += c
		}
	}
	out := make([]string, 0, len(n))
	for v, c := range n {
		out = append(out, v+"\t"+strconv.FormatUint(c, 10))
	}
	if len(out) == 0 {
		return nil
	}
	sort.Strings(out)
	return out
}

func (m *measured) perObject(of func(i int) (string, bool)) []string {
	n := map[string]uint64{}
	for _, i := range m.real {
		if v, ok := of(i); ok {
			n[v]++
		}
	}
	if len(n) == 0 {
		return nil
	}
	out := make([]string, 0, len(n))
	for v, c := range n {
		out = append(out, v+"\t"+strconv.FormatUint(c, 10))
	}
	sort.Strings(out)
	return out
}
