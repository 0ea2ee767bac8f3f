package ir

import (
	"fmt"
	"strconv"
	"strings"
)

// Loss is one kind of thing a conversion could not carry into its output,
// with how many items it lost.
type Loss struct {
	// Kind names the kind of loss with a short stable word, the same for
	// every writer that loses the same thing ("values", "edge-kinds",
	// "gc-roots", "node-ids", "totals", "v8-section", ...), so that
	// scripts and the conformance suite can count it across formats.
	Kind string `json:"kind"`
	// Count is how many items were lost (values, edges, nodes, bytes as
	// What says); 0 when the loss is a whole feature that has no count.
	Count int64 `json:"count"`
	// What says what was lost and why, for a person; it does not repeat
	// Count, which the report prints beside it.
	What string `json:"what"`
	// Example shows one item lost, when there is one to show (with the
	// snapshot it is in when the file has several).
	Example string `json:"example,omitempty"`
}

// String renders the loss as one line: its count (when it has one), what
// was lost and an example.
func (l Loss) String() string {
	var b strings.Builder
	if l.Count > 0 {
		b.WriteString(groupDigits(l.Count))
		b.WriteString(" × ")
	}
	b.WriteString(l.What)
	if l.Example != "" {
		b.WriteString(" (e.g. ")
		b.WriteString(l.Example)
		b.WriteString(")")
	}
	return b.String()
}

// The kinds of loss that more than one writer reports, or that every
// writer may meet. A loss only one source format can have is named after
// that format ("moarvm-tofi", "fuchsia-labels", ...) by the format's
// package.
const (
	// LossValues: primitive values (strings, numbers, lengths, ...) of
	// nodes; Count is values.
	LossValues = "values"
	// LossNodeIDs: node ids the target does not keep or renumbers; Count
	// is nodes, 0 when the source has no identity to lose.
	LossNodeIDs = "node-ids"
	// LossNodeNames: node names replaced (by a class's name, or altered so
	// that the target's viewer shows them whole); Count is nodes.
	LossNodeNames = "node-names"
	// LossNodeKinds: node kinds the target has no place for; Count is
	// nodes.
	LossNodeKinds = "node-kinds"
	// LossEdgeKinds: edge kinds the target lacks, folded into its own;
	// Count is edges.
	LossEdgeKinds = "edge-kinds"
	// LossEdgeNames: edge names (fields) the target cannot keep; Count is
	// edges.
	LossEdgeNames = "edge-names"
	// LossEdgeOrder: objects whose references the target lists in
	// another order; Count is objects.
	LossEdgeOrder = "edge-order"
	// LossWeakEdges: weak edges that become ordinary ones; Count is edges.
	LossWeakEdges = "weak-edges"
	// LossEdges: edges the target has no place for at all; Count is edges.
	LossEdges = "edges"
	// LossDerivedEdges: edges derived by scanning block contents for
	// pointers (a heuristic), which the target either cannot hold or holds
	// as if they were real; Count is edges.
	LossDerivedEdges = "derived-edges"
	// LossGCRoots: GC roots listed apart from the graph, whose categories
	// or whose being roots the target cannot keep; Count is roots.
	LossGCRoots = "gc-roots"
	// LossTotals: a snapshot's totals (header figures); Count is totals.
	LossTotals = "totals"
	// LossSnapshotNames: snapshots' names (a Fuchsia process's, a Dart
	// isolate's); Count is snapshots.
	LossSnapshotNames = "snapshot-names"
	// LossCaptureTime: when a snapshot was taken; Count is snapshots.
	LossCaptureTime = "capture-time"
	// LossClasses: the class table, or the parts of it the target has no
	// place for (libraries, field names); What says which Count counts.
	LossClasses = "classes"
	// LossSizesCapped: sizes larger than the target's size field, capped;
	// Count is nodes.
	LossSizesCapped = "sizes-capped"
	// LossExternalSizes: per-node external (native, unmanaged) sizes the
	// target does not keep, or keeps only as a sum; Count is nodes (and
	// external totals, which belong to no node, ir.ExternalTotals).
	LossExternalSizes = "external-sizes"
	// LossTruncatedNames: names the writer cuts to fit the target's
	// limits; Count is names.
	LossTruncatedNames = "truncated-names"
	// LossRecovered: the source was a damaged file read by recovery, and
	// the output does not say so; Count is 0.
	LossRecovered = "recovered"
	// LossTimestamps: objects' allocation timestamps (a Fuchsia
	// heapdump's); Count is objects.
	LossTimestamps = "timestamps"
	// LossThreads: the threads that allocated objects (a Fuchsia
	// heapdump's); Count is objects.
	LossThreads = "threads"
	// LossUnknownSections: sections of a format or version this program
	// does not know (RawSection); Count is sections.
	LossUnknownSections = "unknown-sections"
	// LossAllocationStacks: objects' allocation stacks (a Fuchsia
	// heapdump's, V8's allocation traces), or what their frames say (a
	// FIDL stream's frames are addresses); Count is objects, or functions
	// as What says.
	LossAllocationStacks = "allocation-stacks"
)

// WithExample gives the loss an example unless it has one: a kind added
// again (per snapshot, say) keeps its first example, as Merge does.
func (l *Loss) WithExample(example string) {
	if l.Example == "" {
		l.Example = example
	}
}

// LossReport lists what a conversion could not carry into its output, one
// entry per kind of loss. Writers return one; an empty report means nothing
// was lost.
type LossReport []Loss

// Add records count items of a kind of loss. A kind already in the report
// gets the count added, keeping its first description and example, so
// that a writer may add per snapshot and the report still has one line
// per kind. It returns the kind's entry, for WithExample (until the next
// Add, which may move it).
func (l *LossReport) Add(kind string, count int64, what string) *Loss {
	return l.merge(Loss{Kind: kind, Count: count, What: what})
}

// Addf is Add with a formatted description.
func (l *LossReport) Addf(kind string, count int64, format string, args ...any) *Loss {
	return l.Add(kind, count, fmt.Sprintf(format, args...))
}

func (l *LossReport) merge(x Loss) *Loss {
	for i := range *l {
		if e := &(*l)[i]; e.Kind == x.Kind {
			e.Count += x.Count
			e.WithExample(x.Example)
			return e
		}
	}
	*l = append(*l, x)
	return &(*l)[len(*l)-1]
}

// Merge adds every entry of other to l, kind by kind (the report of a
// file written snapshot by snapshot, or of several files).
func (l *LossReport) Merge(other LossReport) {
	for _, x := range other {
		l.merge(x)
	}
}

// Kinds lists the report's kinds in order.
func (l LossReport) Kinds() []string {
	k := make([]string, len(l))
	for i, x := range l {
		k[i] = x.Kind
	}
	return k
}

// Has reports whether the report has an entry of the kind.
func (l LossReport) Has(kind string) bool {
	_, ok := l.Get(kind)
	return ok
}

// Get returns the report's entry of the kind, if it has one.
func (l LossReport) Get(kind string) (Loss, bool) {
	for _, x := range l {
		if x.Kind == kind {
			return x, true
		}
	}
	return Loss{}, false
}

// String renders the report one loss a line.
func (l LossReport) String() string {
	var b strings.Builder
	for i, x := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(x.String())
	}
	return b.String()
}

// groupDigits writes n with thousands separated by commas.
func groupDigits(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// TotalsChanged counts the totals a writer does not carry from one list to
// another as they are (by name and value): those of from that to lacks,
// plus those to adds, which a format that requires its own (MoarVM's
// snapmeta totals, Dart's header figures) computes from the graph. It
// returns the count and the changed totals as an example.
func TotalsChanged(from, to []Total) (int, string) {
	have := map[Total]int{}
	for _, t := range from {
		have[t]++
	}
	var n int
	var lost, added []Total
	for _, t := range to {
		if have[t] > 0 {
			have[t]--
			continue
		}
		added = append(added, t)
	}
	for _, t := range from {
		if have[t] > 0 {
			have[t]--
			lost = append(lost, t)
		}
	}
	n = len(lost) + len(added)
	var b strings.Builder
	list := func(ts []Total) {
		for i, t := range ts {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(t.Name + "=" + strconv.FormatUint(t.Value, 10))
		}
	}
	if len(lost) > 0 {
		b.WriteString("not kept: ")
		list(lost)
	}
	if len(added) > 0 {
		if len(lost) > 0 {
			b.WriteString("; ")
		}
		b.WriteString("computed: ")
		list(added)
	}
	return n, b.String()
}

// NoPlace adds an entry of the kind for n items, described by what (a
// plural: "static frames"), that have no place in the target, named by
// format ("a V8 snapshot"); it returns the entry, or nil, adding nothing,
// when n is 0. It is how sections word their losses.
func (l *LossReport) NoPlace(n int, kind, what, format string) *Loss {
	if n <= 0 {
		return nil
	}
	return l.Add(kind, int64(n), what+" have no place in "+format)
}
