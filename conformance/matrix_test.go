package conformance

import (
	"bytes"
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	dartir "github.com/heapconv/heapconv/ir/dart"
	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
	moarvmir "github.com/heapconv/heapconv/ir/moarvm"
	v8ir "github.com/heapconv/heapconv/ir/v8"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/analysis"
)

// The conversion matrix: every fixture of every format written in every
// format, read back, and compared on what the IR's generic model says of a
// heap (aspects). A difference is a loss, which the writer's loss report
// must name with one of the aspect's kinds; one it does not name is a
// silent loss.

// aspect is one thing a conversion keeps or loses, measured on the generic
// model of one snapshot as sorted lines (equal lines: kept).
type aspect struct {
	name string
	// what says what is compared, for the fidelity table.
	what string
	// kinds are the loss kinds that name a difference.
	kinds []string
	// measure describes the snapshot; graph tells which nodes are the
	// heap's (not a writer's synthetic additions).
	measure func(m *measured) []string
}

// measured is a snapshot with what the aspects share computed once.
type measured struct {
	f *ir.File
	s *ir.Snapshot
	// real lists the nodes that are objects of the heap: not synthetic
	// (roots and grouping nodes, V8's, MoarVM's or a writer's, told by
	// ir.SyntheticNodes), and not a native node that holds another's
	// unmanaged memory (ir.UnmanagedOwners), whose size is external.
	real   []int
	isReal []bool
	class  []string // per node
	// classID numbers class's distinct names (classNames), per node, so
	// that counts over millions of references key on numbers, not strings.
	classID    []uint32
	classNames []string
	// refCounts counts the references between real nodes by kind
	// (referenceCounts), refTotal all of them.
	refOnce   sync.Once
	refCounts map[referenceKey]int
	refTotal  int
	// unmanaged is, per node, the sizes of the native nodes that hold its
	// unmanaged memory (nil when there are none).
	unmanaged []uint64
	// label maps ir.ClassLabels' names (which analysis.SummarizeBy uses) to
	// those of class.
	label map[string]string
	// memo holds a source's measures by aspect (of), nil for others.
	mu   sync.Mutex
	memo map[string][]string
}

func measure(file func() *ir.File, i int) *measured {
	f := file()
	s := f.Snapshots[i]
	m := &measured{f: f, s: s, isReal: make([]bool, s.Nodes.Len()), class: make([]string, s.Nodes.Len())}
	synthetic, owner := ir.SyntheticNodes(f, s), ir.UnmanagedOwners(f, s)
	labels := objectClassLabels(f, s, synthetic)
	m.label = map[string]string{}
	for k, l := range ir.ClassLabels(f) {
		m.label[l] = labels[k]
	}
	for i := range s.Nodes.Len() {
		if owner != nil && owner[i] != ir.NoNode {
			if m.unmanaged == nil {
				m.unmanaged = make([]uint64, s.Nodes.Len())
			}
			m.unmanaged[owner[i]] = satAdd(m.unmanaged[owner[i]], s.Nodes.SelfSize.At(i))
			continue
		}
		if synthetic[i] {
			continue
		}
		m.real = append(m.real, i)
		m.isReal[i] = true
		if len(s.Nodes.Class) > 0 && s.Nodes.Class[i] > 0 && int(s.Nodes.Class[i]) <= len(labels) {
			m.class[i] = labels[s.Nodes.Class[i]-1]
		} else {
			m.class[i] = analysis.ClassName(f, s, i)
		}
	}
	m.classID = make([]uint32, s.Nodes.Len())
	ids := map[string]uint32{}
	for _, i := range m.real {
		id, ok := ids[m.class[i]]
		if !ok {
			id = uint32(len(m.classNames))
			ids[m.class[i]] = id
			m.classNames = append(m.classNames, m.class[i])
		}
		m.classID[i] = id
	}
	return m
}

// A source snapshot is measured once for all the targets it is converted
// to: sourceMeasure keeps each measured source (by format, fixture, the
// file read and snapshot, for a test's run), of keeps each aspect's
// measure of it.
var sourceMeasures sync.Map // "format/fixture/file/snapshot" → *measured

func sourceMeasure(key string, f func() *ir.File, i int) *measured {
	if m, ok := sourceMeasures.Load(key); ok {
		return m.(*measured)
	}
	m := measure(f, i)
	m.memo = map[string][]string{}
	v, _ := sourceMeasures.LoadOrStore(key, m)
	return v.(*measured)
}

// of returns asp's measure of m, computed once when m is a source.
func (m *measured) of(asp aspect) []string {
	if m.memo == nil {
		return asp.measure(m)
	}
	m.mu.Lock()
	v, ok := m.memo[asp.name]
	m.mu.Unlock()
	if ok {
		return v
	}
	v = asp.measure(m) // measures do not change m: two may race to store the same
	m.mu.Lock()
	m.memo[asp.name] = v
	m.mu.Unlock()
	return v
}

// objectClassLabels is ir.ClassLabels with a name qualified by its library
// only where two classes that have objects share it: a class without
// objects is no class of the heap (a format that keeps only classes in
// use, such as pprof, does not qualify a name it no longer shares).
func objectClassLabels(f *ir.File, s *ir.Snapshot, synthetic []bool) []string {
	labels := ir.ClassLabels(f)
	if len(s.Nodes.Class) == 0 {
		return labels
	}
	used := make([]bool, f.Classes.Len())
	for i, c := range s.Nodes.Class {
		if c > 0 && int(c) <= len(used) && !synthetic[i] {
			used[c-1] = true
		}
	}
	libs := map[string]map[string]bool{}
	for k, u := range used {
		if u {
			name := f.String(f.Classes.Name[k])
			if libs[name] == nil {
				libs[name] = map[string]bool{}
			}
			libs[name][ir.ClassLibrary(f, k)] = true
		}
	}
	for k := range labels {
		if name := f.String(f.Classes.Name[k]); len(libs[name]) <= 1 {
			labels[k] = name
		}
	}
	return labels
}

// objects returns f as the matrix measures it, node for object: a sample
// of several allocations is that many objects (ir.ExpandObjects), as a
// graph format has them, in the source and in a profile alike. It is
// computed once, when first asked for.
func objects(f *ir.File) func() *ir.File {
	return sync.OnceValue(func() *ir.File {
		x, _ := ir.ExpandObjects(f)
		return x
	})
}

// perClass sums a value per class of the real nodes.
func (m *measured) perClass(v func(i int) uint64) []string {
	sums := map[string]uint64{}
	for _, i := range m.real {
		sums[m.class[i]] += v(i)
	}
	out := make([]string, 0, len(sums))
	for c, n := range sums {
		out = append(out, c+"\t"+strconv.FormatUint(n, 10))
	}
	sort.Strings(out)
	return out
}

// counted turns a multiset of strings into sorted "value\tcount" lines.
func counted(vals []string) []string {
	n := map[string]int{}
	for _, v := range vals {
		n[v]++
	}
	out := make([]string, 0, len(n))
	for v, c := range n {
		out = append(out, v+"\t"+strconv.Itoa(c))
	}
	sort.Strings(out)
	return out
}

func one(format string, args ...any) []string { return []string{fmt.Sprintf(format, args...)} }

var aspects = []aspect{
	{"objects", "the number of objects (nodes a writer did not synthesize)", nil,
		func(m *measured) []string { return one("%d", len(m.real)) }},
	{"classes", "objects per class", []string{ir.LossClasses, ir.LossNodeNames, ir.LossNodeKinds}, classCounts},
	{"self sizes", "self size per class", []string{ir.LossClasses, ir.LossNodeNames, ir.LossNodeKinds, ir.LossSizesCapped},
		classSizes},
	// Each object's name, in the objects' order (as ids are), quoted:
	// the count pairs objects, which a multiset of names cannot (an object
	// that takes the name another gave up would not count).
	{"names", "each object's name, in order", []string{ir.LossNodeNames, ir.LossTruncatedNames, "dart-truncated-strings"},
		func(m *measured) []string {
			out := make([]string, len(m.real))
			for k, i := range m.real {
				out[k] = strconv.Quote(m.f.String(m.s.Nodes.Name[i]))
			}
			return out
		}},
	{"ids", "object ids, in order", []string{ir.LossNodeIDs},
		func(m *measured) []string {
			var b strings.Builder
			for _, i := range m.real {
				b.WriteString(strconv.FormatUint(m.s.Nodes.ID.At(i), 10))
				b.WriteByte(' ')
			}
			return []string{b.String()}
		}},
	references,
	referenceNames,
	{"weak references", "which references are weak", []string{ir.LossWeakEdges, ir.LossEdgeKinds},
		func(m *measured) []string {
			n := 0
			for _, i := range m.real {
				lo, hi := m.s.Nodes.EdgeRange(i)
				for e := lo; e < hi; e++ {
					if m.isReal[m.s.Edges.Target[e]] && m.s.EdgeKindOf(e).Name == ir.EdgeWeak {
						n++
					}
				}
			}
			return one("%d", n)
		}},
	{"external memory", "external (unmanaged) bytes of each object, and the snapshot's external totals", []string{ir.LossExternalSizes},
		externalSizes},
	{"roots", "GC roots by category", []string{ir.LossGCRoots},
		func(m *measured) []string {
			cats := make([]string, len(m.s.Roots))
			for k, r := range m.s.Roots {
				cats[k] = m.f.String(r.Category)
			}
			return counted(cats)
		}},
	{"values", "primitive values (strings, numbers, lengths), by object class, kind and value", []string{ir.LossValues},
		func(m *measured) []string {
			v := &m.s.Values
			return m.perObject(func(i int) (string, bool) {
				j, ok := slices.BinarySearch(v.Node, uint32(i))
				if !ok {
					return "", false
				}
				val := strconv.FormatUint(v.Bits[j], 10)
				if v.Kind[j] == ir.ValueString {
					val = strconv.Quote(m.f.String(uint32(v.Bits[j])))
				}
				return m.class[i] + " " + v.Kind[j].String() + " " + val, true
			})
		}},
	{"allocation stacks", "each object's allocation stack (frame names, innermost first)",
		[]string{ir.LossAllocationStacks, v8ir.LossSection}, allocationStacks},
	{"timestamps", "each object's allocation timestamp", []string{ir.LossTimestamps},
		fuchsiaPerObject(func(f *ir.File, fs *fuchsiair.Snapshot, i int) (string, bool) {
			if fs.Flags[i]&fuchsiair.FlagTimestamp == 0 {
				return "", false
			}
			return strconv.FormatInt(fs.Timestamp[i], 10), true
		})},
	{"threads", "the thread that allocated each object", []string{ir.LossThreads},
		fuchsiaPerObject(func(f *ir.File, fs *fuchsiair.Snapshot, i int) (string, bool) {
			if len(fs.Thread) == 0 || fs.Thread[i] == 0 {
				return "", false
			}
			t := fs.Thread[i] - 1
			return fmt.Sprintf("%s[%d]", f.String(fs.ThreadName[t]), fs.ThreadKoid[t]), true
		})},
	{"block contents", "each object's bytes", []string{fuchsiair.LossContents},
		fuchsiaPerObject(func(f *ir.File, fs *fuchsiair.Snapshot, i int) (string, bool) {
			data, ok := fs.ContentsOf(i)
			return fmt.Sprintf("%x", sha256.Sum256(data)), ok
		})},
	{"totals", "snapshot totals", []string{ir.LossTotals},
		func(m *measured) []string {
			var t []string
			for _, x := range m.s.Totals {
				t = append(t, x.Name+"="+strconv.FormatUint(x.Value, 10))
			}
			sort.Strings(t)
			return t
		}},
}

// references are told by their ends' classes (a class a writer changes
// changes them too), reference names by their name too.
var (
	references = aspect{"references", "references between objects, by holder class and target class",
		[]string{ir.LossEdges, ir.LossDerivedEdges, "dart-zero-refs", ir.LossClasses, ir.LossNodeNames, ir.LossNodeKinds},
		func(m *measured) []string { return referenceLines(m, false) }}
	referenceNames = aspect{"reference names", "references between objects, by holder class, name and target class",
		[]string{ir.LossEdges, ir.LossDerivedEdges, ir.LossEdgeNames, ir.LossEdgeKinds, "dart-zero-refs", ir.LossClasses,
			ir.LossNodeNames, ir.LossNodeKinds},
		func(m *measured) []string { return referenceLines(m, true) }}
)

// referenceLines counts the references between real nodes, a line keyed
// "edges" (which only a loss of edges names), and by their ends' classes
// and, if named, their names, lines keyed "classes" or "edge-names" (which
// a change of classes names too; lineKinds).
func referenceLines(m *measured, named bool) []string {
	counts, total := m.referenceCounts()
	// Two keys can make one line (a name stored twice in the string table).
	byLine := make(map[string]int, len(counts))
	for k, n := range counts {
		holder, target := m.classNames[k.holder], m.classNames[k.target]
		line := ir.LossClasses + "\t" + holder + " → " + target
		if named {
			name := m.f.String(k.name)
			if k.indexed {
				name = indexName(k.name)
			}
			line = ir.LossEdgeNames + "\t" + holder + " " + name + " " + target
		}
		byLine[line] += n
	}
	lines := make([]string, 0, len(byLine)+1)
	for line, n := range byLine {
		lines = append(lines, line+"\t"+strconv.Itoa(n))
	}
	lines = append(lines, fmt.Sprintf("%s\t%d", ir.LossEdges, total))
	sort.Strings(lines)
	return lines
}

// referenceKey is a kind of reference between real nodes: the classes
// (as numbered in measured.classNames) at its ends and its name.
type referenceKey struct {
	holder, target uint32
	name           uint32
	indexed        bool
}

// referenceCounts counts the references between real nodes by kind, once
// for both aspects that list them (by classes, and by classes and name).
func (m *measured) referenceCounts() (map[referenceKey]int, int) {
	m.refOnce.Do(func() {
		counts := map[referenceKey]int{}
		// Most keys fit in 64 bits (16 for each class, 31 for the name,
		// one for indexed), which a map counts three times faster than
		// the struct.
		packed := map[uint64]int{}
		narrow := len(m.classNames) <= 1<<16
		s := m.s
		for _, i := range m.real {
			lo, hi := s.Nodes.EdgeRange(i)
			for e := lo; e < hi; e++ {
				t := s.Edges.Target[e]
				if !m.isReal[t] {
					continue
				}
				m.refTotal++
				k := referenceKey{holder: m.classID[i], target: m.classID[t], name: s.Edges.Name[e], indexed: s.EdgeKindOf(e).Indexed}
				if narrow && k.name < 1<<31 {
					p := uint64(k.holder)<<48 | uint64(k.target)<<32 | uint64(k.name)<<1
					if k.indexed {
						p |= 1
					}
					packed[p]++
					continue
				}
				counts[k]++
			}
		}
		for p, n := range packed {
			counts[referenceKey{holder: uint32(p >> 48), target: uint32(p>>32) & 0xffff, name: uint32(p>>1) & (1<<31 - 1), indexed: p&1 != 0}] += n
		}
		m.refCounts = counts
	})
	return m.refCounts, m.refTotal
}

// smallIndexNames are the names of the indices most edges have.
var smallIndexNames = func() []string {
	names := make([]string, 4096)
	for i := range names {
		names[i] = strconv.Itoa(i)
	}
	return names
}()

// indexName is an indexed edge's name, as ir.File.EdgeName gives it.
func indexName(i uint32) string {
	if int(i) < len(smallIndexNames) {
		return smallIndexNames[i]
	}
	return strconv.FormatUint(uint64(i), 10)
}

// lineKinds are, for lines keyed by a loss kind, the other kinds that name
// a difference in them.
var lineKinds = map[string][]string{
	ir.LossEdges:     {ir.LossDerivedEdges, "dart-zero-refs"},
	ir.LossClasses:   {ir.LossNodeNames, ir.LossNodeKinds},
	ir.LossEdgeNames: {ir.LossEdgeKinds, ir.LossClasses, ir.LossNodeNames, ir.LossNodeKinds},
}

// roundTrip aspects compare the source with what comes back when the
// target's file is written in the source's format again: they need both
// conversions' reports to name a difference.
var roundTrip = []aspect{
	{"classes, back", "objects per class after source → target → source", []string{ir.LossClasses, ir.LossNodeNames, ir.LossNodeKinds},
		classCounts},
	{"self sizes, back", "self size per class after source → target → source",
		[]string{ir.LossClasses, ir.LossNodeNames, ir.LossNodeKinds, ir.LossSizesCapped}, classSizes},
	{"references, back", "references after source → target → source", references.kinds, references.measure},
	{"allocation stacks, back", "each object's allocation stack after source → target → source",
		[]string{ir.LossAllocationStacks, v8ir.LossSection}, allocationStacks},
	{"reference names, back", "reference names after source → target → source", referenceNames.kinds, referenceNames.measure},
	{"retained sizes, back", "retained size per class after source → target → source", retained.kinds, retained.measure},
	{"retained sizes by class, back", "retained size per class of the heap after source → target → source", classRetained.kinds,
		classRetained.measure},
	{"format section, back", "what only the source's format has (V8: detachedness, locations, samples, other fields and sections; " +
		"Dart: library URIs, external property names; MoarVM: static frames, metadata, highscores; Fuchsia: labels, build ids) " +
		"after source → target → source",
		sectionKinds, sectionFields},
}

// classCounts and classSizes measure objects and self size per class.
func classCounts(m *measured) []string { return m.perClass(func(int) uint64 { return 1 }) }
func classSizes(m *measured) []string  { return m.perClass(m.s.Nodes.SelfSize.At) }

// retained is the retained size per class, DevTools' way (analysis.SummarizeBy),
// of the real nodes' classes.
var retained = aspect{"retained sizes", "retained size per class (dominator tree from the root)",
	// DevTools splits a class by allocation location and names detached
	// DOM nodes: losing those changes its rows.
	[]string{ir.LossEdges, ir.LossDerivedEdges, ir.LossWeakEdges, ir.LossEdgeKinds, v8ir.LossLocations, v8ir.LossDetachedness,
		ir.LossExternalSizes, ir.LossClasses,
		ir.LossNodeNames, ir.LossNodeKinds, ir.LossGCRoots, "dart-zero-refs"},
	func(m *measured) []string {
		sum, err := analysis.SummarizeBy(m.f, m.s, -1, analysis.ByRetained)
		if err != nil {
			return []string{"error: " + err.Error()}
		}
		real := map[string]bool{}
		for _, i := range m.real {
			real[m.class[i]] = true
		}
		var out []string
		for _, c := range sum.TopClasses {
			name := c.Name
			if l, ok := m.label[name]; ok {
				name = l
			}
			if real[name] && c.Retained != nil {
				out = append(out, name+"\t"+strconv.FormatUint(*c.Retained, 10))
			}
		}
		sort.Strings(out)
		return out
	}}

// classRetained is the retained size per class of the heap's own classes,
// not DevTools' rows (which split a class by allocation location and name
// detached DOM nodes): whether the graph keeps what it retains. A snapshot
// without a root retains nothing.
var classRetained = aspect{"retained sizes by class", "retained size per class of the heap (dominator tree from the root, " +
	"weak references not retaining, external memory counted for its owner), not DevTools' rows",
	[]string{ir.LossEdges, ir.LossDerivedEdges, ir.LossWeakEdges, ir.LossEdgeKinds, ir.LossExternalSizes, ir.LossClasses,
		ir.LossNodeNames, ir.LossNodeKinds, ir.LossGCRoots, "dart-zero-refs"},
	func(m *measured) []string {
		s := m.s
		if s.Root == ir.NoNode {
			return nil
		}
		tree, err := analysis.Dominators(s, analysis.DominatorOptions{IncludeExternal: true, Orphans: true})
		if err != nil {
			return []string{"error: " + err.Error()}
		}
		sums := analysis.ClassRetained(tree, func(i int) string { return m.class[i] }, func(i int) bool { return m.isReal[i] })
		out := make([]string, 0, len(sums))
		for c, n := range sums {
			out = append(out, c+"\t"+strconv.FormatUint(n, 10))
		}
		sort.Strings(out)
		return out
	}}

// allAspects is every column of a conversion's results, in order.
var allAspects = append(append(slices.Clone(aspects), retained, classRetained), roundTrip...)

// cellResult is how one aspect fared in one conversion.
type cellResult uint8

const (
	kept cellResult = iota
	named
	silent
)

// conversion is one source written in one target format.
type conversion struct {
	source, target string
	fixture        string
	results        []cellResult // per aspect
	details        []string     // per aspect: the first difference
	// changed counts, per aspect with a counting, the items that differ
	// in all the snapshots written.
	changed []int64
}

var updateFidelity = flag.Bool("update", false, "write docs/fidelity.md from TestMatrix's run")

// fidelityDoc is the generated fidelity table, from the module root.
const fidelityDoc = "docs/fidelity.md"

// matrixFormats returns the formats the matrix converts from (those with
// fixtures) and to (those with a writer).
func matrixFormats() (sources, targets []format) {
	for _, fm := range table {
		if fm.fixtures != "" {
			sources = append(sources, fm)
		}
		if fm.write != nil {
			targets = append(targets, fm)
		}
	}
	return sources, targets
}

// TestMatrix converts every fixture of every format to every format,
// measures what each conversion kept, fails on any loss the writer's report
// does not name, and requires docs/fidelity.md to say exactly what it found
// (go test ./conformance -run TestMatrix -update writes it).
func TestMatrix(t *testing.T) {
	t.Parallel()
	sources, targets := matrixFormats()
	// The conversions are independent: they run on every core, and their
	// results are gathered in a fixed order, so the table does not depend
	// on which finishes first.
	type job struct {
		src matrixSource
		tg  format
	}
	var jobs []job
	every, _ := matrixSources(t, sources, func(string) bool { return true })
	for _, src := range every {
		for _, tg := range targets {
			jobs = append(jobs, job{src, tg})
		}
	}
	results := make([][]conversion, len(jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range next {
				j := jobs[k]
				results[k] = convert(t, j.src.fm, j.tg, j.src.name, j.src.f, inMemory)
			}
		}()
	}
	for k := range jobs {
		next <- k
	}
	close(next)
	wg.Wait()
	sourceMeasures.Clear()
	if t.Failed() {
		return
	}
	var convs []conversion
	for _, r := range results {
		convs = append(convs, r...)
	}
	// A loss no report names is a defect, whatever the table says.
	for _, c := range convs {
		for j, r := range c.results {
			if r == silent {
				t.Errorf("%s -> %s (%s): %s changed and the loss report does not say so: %s",
					c.source, c.target, c.fixture, allAspects[j].name, c.details[j])
			}
		}
	}
	doc := fidelityTable(sources, targets, convs)
	path := filepath.Join(moduleRoot, fidelityDoc)
	if *updateFidelity {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	have, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./conformance -run TestMatrix -update writes it)", err)
	}
	if string(have) != doc {
		t.Errorf("%s is stale: %s; go test ./conformance -run TestMatrix -update writes it again", fidelityDoc,
			firstDifference(strings.Split(string(have), "\n"), strings.Split(doc, "\n")))
	}
}

// A route takes a source's snapshot k (-1: the whole file, the IR in) to a
// target's format and reads the result back (got, with the writer's loss
// report); back takes what it wrote to the source's format again.
type route func(tg format, in *ir.File, k int) (got *ir.File, loss ir.LossReport,
	back func(src format) (*ir.File, ir.LossReport, error), err error)

// inMemory is the matrix's route: the writers and readers, in memory.
func inMemory(tg format, in *ir.File, _ int) (*ir.File, ir.LossReport, func(format) (*ir.File, ir.LossReport, error), error) {
	got, loss, err := through(tg, in)
	return got, loss, func(src format) (*ir.File, ir.LossReport, error) { return through(src, got) }, err
}

// convert writes f (read from a src fixture) in tg's format, reads it back,
// writes that in the source's format again and reads it back, and
// measures every aspect. A one-snapshot target gets each snapshot.
func convert(t *testing.T, src, tg format, fixture string, f *ir.File, via route) []conversion {
	inputs := []*ir.File{f}
	if tg.oneSnapshot && len(f.Snapshots) > 1 {
		inputs = nil
		for i := range f.Snapshots {
			g, err := f.Select(i)
			if err != nil {
				t.Errorf("%s: %v", fixture, err)
				return nil
			}
			inputs = append(inputs, g)
		}
	}
	var out []conversion
	for k, in := range inputs {
		snapshot := -1
		if len(inputs) > 1 {
			snapshot = k
		}
		c := conversion{source: src.name, target: tg.name, fixture: fixture,
			results: make([]cellResult, len(allAspects)), details: make([]string, len(allAspects)),
			changed: make([]int64, len(allAspects))}
		if len(inputs) > 1 {
			c.fixture += fmt.Sprintf("#%d", k)
		}
		got, loss, toSource, err := via(tg, in, snapshot)
		if err != nil {
			t.Errorf("%s -> %s: %v", c.fixture, tg.name, err)
			continue
		}
		back, backLoss, err := toSource(src)
		if err != nil {
			t.Errorf("%s -> %s -> %s: %v", c.fixture, tg.name, src.name, err)
			continue
		}
		backLoss.Merge(loss)
		if len(got.Snapshots) != len(in.Snapshots) || len(back.Snapshots) != len(in.Snapshots) {
			t.Errorf("%s -> %s -> %s: %d and %d snapshots read back, %d written", c.fixture, tg.name, src.name,
				len(got.Snapshots), len(back.Snapshots), len(in.Snapshots))
			continue
		}
		for i := range in.Snapshots {
			// The file read is part of the key: a source the suite makes
			// (a node snapshot) differs from one test to the next.
			a := sourceMeasure(fmt.Sprintf("%s/%s/%p/%d", src.name, c.fixture, f, i), objects(in), i)
			g, bk := measure(objects(got), i), measure(objects(back), i)
			for j, asp := range allAspects {
				other, report := g, loss
				if j >= len(allAspects)-len(roundTrip) {
					other, report = bk, backLoss
				}
				c.record(j, asp, a, other, report)
			}
		}
		for j, asp := range allAspects {
			report := loss
			if j >= len(allAspects)-len(roundTrip) {
				report = backLoss
			}
			c.count(j, asp, report)
		}
		out = append(out, c)
	}
	return out
}

// through writes f with fm's writer and reads the result back.
func through(fm format, f *ir.File) (*ir.File, ir.LossReport, error) {
	var b bytes.Buffer
	loss, err := fm.write(&b, f)
	if err != nil {
		return nil, nil, err
	}
	got, err := fm.read(bytes.NewReader(b.Bytes()))
	if err != nil {
		return nil, nil, fmt.Errorf("reading back: %w", err)
	}
	return got, loss, nil
}

// record compares one aspect of the source with the converted file's.
func (c *conversion) record(j int, asp aspect, src, got *measured, loss ir.LossReport) {
	x, y := src.of(asp), asp.measure(got)
	if _, keyed := differingKinds(asp.kinds, x, y); keyed {
		// Of lines keyed by kind, those of kinds the source does not have
		// are what the target requires (MoarVM's highscores), not a loss.
		y = slices.DeleteFunc(y, func(line string) bool {
			kind, _, _ := strings.Cut(line, "\t")
			return !slices.ContainsFunc(x, func(l string) bool { return strings.HasPrefix(l, kind+"\t") })
		})
	}
	if slices.Equal(x, y) {
		return
	}
	if cnt, ok := countings[asp.name]; ok {
		// Decided by count once every snapshot is measured.
		c.changed[j] += cnt.tally(x, y)
		if c.details[j] == "" {
			c.details[j] = firstDifference(x, y)
		}
		return
	}
	r := silent
	for _, kind := range asp.kinds {
		if loss.Has(kind) {
			r = named
		}
	}
	if kinds, ok := differingKinds(asp.kinds, x, y); ok {
		// Lines keyed by the kind that names their loss: each kind that
		// differs must be named.
		r = named
		for _, kind := range kinds {
			if !loss.Has(kind) && !slices.ContainsFunc(lineKinds[kind], loss.Has) {
				r = silent
			}
		}
	}
	if r > c.results[j] {
		c.results[j] = r
		c.details[j] = firstDifference(x, y)
	}
}

// count decides a counted aspect: named when the counts of its kinds in the
// report add up to the items measured as changed, silent otherwise.
func (c *conversion) count(j int, asp aspect, loss ir.LossReport) {
	cnt, ok := countings[asp.name]
	if !ok || c.details[j] == "" {
		return
	}
	said, which := reportCount(loss, cnt.kinds)
	if said == c.changed[j] {
		c.results[j] = named
		return
	}
	c.results[j] = silent
	c.details[j] = fmt.Sprintf("%d %s changed, the report says %s; %s", c.changed[j], cnt.unit, which, c.details[j])
}

// fidelityTable renders the matrix's results as docs/fidelity.md.
func fidelityTable(sources, targets []format, convs []conversion) string {
	var b strings.Builder
	b.WriteString(`# Fidelity of conversions

Generated by ` + "`go test ./conformance -run TestMatrix -update`" + ` (conformance/matrix_test.go), which
converts every fixture of every format, and the files the suite makes of what real producers
write (conformance/matrix_sources_test.go), into every format, reads the result back, writes that
in the source's format again, and compares what the IR's generic model says of each snapshot. A
test fails when this file is not what the run finds, and on any silent loss.
` + "`TestMatrixCommandLine`" + ` runs a sample of the cells through the built ` + "`heapconv convert --loss-report`" + `
and requires the same verdicts of the report the command writes.

- **kept**: the same in every conversion of the source's files.
- **named**: lost or changed, and the writer's loss report names it: for an aspect with a count
  (below), its kinds' counts in the report add up to the items the comparison finds changed, over
  every snapshot written; for the others, a kind of loss that names their cause is in the report.
- **silent k/n**: lost or changed in k of n conversions without the loss report naming it, or
  naming it with another count: a defect, which fails the test.

Nodes that are no object of the heap are left out of every comparison (ir.SyntheticNodes): roots
and grouping nodes (V8's synthetic nodes, MoarVM's root collectables, the Dart VM's Root,
Read-Only Pages and Isolate objects) and what writers add (a root a format requires, grouping
nodes for DevTools), which formats without such a kind carry as a mark (a MoarVM type's REPR
name, a Dart class's library name). Native nodes that hold a MoarVM collectable's unmanaged
memory or a Dart object's external property in V8 (ir.UnmanagedOwners) count as external memory.
A sample of several allocations (a Fuchsia profile's aggregated sample) is measured as that many
objects, in the source and in every file read back (ir.ExpandObjects, as a graph format holds
it). A class name is qualified by its library only where two classes that have objects share
it. What is compared:

| aspect | compared | loss kinds that name a difference | counted |
| --- | --- | --- | --- |
`)
	for _, a := range allAspects {
		kinds, counts := "—", "—"
		if len(a.kinds) > 0 {
			kinds = "`" + strings.Join(a.kinds, "`, `") + "`"
		}
		if c, ok := countings[a.name]; ok {
			kinds = "`" + strings.Join(c.kinds, "`, `") + "`"
			counts = c.unit
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", a.name, a.what, kinds, counts)
	}
	type key struct{ source, target string }
	cells := map[key][]conversion{}
	for _, c := range convs {
		k := key{c.source, c.target}
		cells[k] = append(cells[k], c)
	}
	var silentNotes []string
	for _, src := range sources {
		fmt.Fprintf(&b, "\n## From %s\n\n| aspect |", src.name)
		for _, tg := range targets {
			fmt.Fprintf(&b, " → %s |", tg.name)
		}
		b.WriteString("\n| --- |")
		for range targets {
			b.WriteString(" --- |")
		}
		b.WriteString("\n")
		for j, a := range allAspects {
			fmt.Fprintf(&b, "| %s |", a.name)
			for _, tg := range targets {
				cs := cells[key{src.name, tg.name}]
				var n [3]int
				first := -1
				for k, c := range cs {
					n[c.results[j]]++
					if c.results[j] == silent && first < 0 {
						first = k
					}
				}
				switch {
				case len(cs) == 0:
					b.WriteString(" — |")
				case n[silent] > 0:
					fmt.Fprintf(&b, " **silent %d/%d** |", n[silent], len(cs))
					c := cs[first]
					silentNotes = append(silentNotes, fmt.Sprintf("- %s → %s, %s (%s): %s", src.name, tg.name, a.name, c.fixture,
						strings.ReplaceAll(c.details[j], "|", `\|`)))
				case n[named] > 0:
					b.WriteString(" named |")
				default:
					b.WriteString(" kept |")
				}
			}
			b.WriteString("\n")
		}
	}
	if len(silentNotes) > 0 {
		b.WriteString("\n## Silent losses, the first of each\n\n")
		b.WriteString(strings.Join(silentNotes, "\n"))
		b.WriteString("\n")
	}
	return b.String()
}

// firstDifference shows where two measurements part.
func firstDifference(want, got []string) string {
	for i := range min(len(want), len(got)) {
		if want[i] != got[i] {
			return fmt.Sprintf("%.80q became %.80q", want[i], got[i])
		}
	}
	switch {
	case len(want) > len(got):
		return fmt.Sprintf("%d lines became %d; first missing %.80q", len(want), len(got), want[len(got)])
	case len(want) < len(got):
		return fmt.Sprintf("%d lines became %d; first added %.80q", len(want), len(got), got[len(want)])
	}
	return "the same"
}

// allocationStacks measures each object's allocation stack, from whichever
// the snapshot has: a Fuchsia heapdump's stacks (without the class frames
// heapconv writes for heaps that have no stacks) or V8's allocation traces.
func allocationStacks(m *measured) []string {
	name := func(frames []ir.Frame) string {
		var names []string
		for _, fr := range frames {
			if !fr.Class {
				names = append(names, fr.Name())
			}
		}
		return strings.Join(names, " < ")
	}
	if fs := fuchsiair.Of(m.s); fs != nil && fs.Stacks() > 0 && fuchsiair.FileOf(m.f) != nil {
		// Objects share stacks: each is named once.
		return m.perObjectKeyed(func(i int) uint64 { return uint64(fs.Stack[i]) }, func(stack uint64) string {
			var frames []ir.Frame
			for _, l := range fs.StackOf(int(stack)) {
				fl := fuchsiair.FileOf(m.f).Frames(m.f, int(l))
				slices.Reverse(fl) // innermost first
				frames = append(frames, fl...)
			}
			return name(frames)
		})
	}
	t := v8ir.Of(m.s).Traces(m.f)
	if t == nil {
		return nil
	}
	return m.perObjectKeyed(func(i int) uint64 { return uint64(t.NodeIDs.At(i)) }, func(node uint64) string {
		return name(t.Stack(node))
	})
}

// fuchsiaPerObject measures what a Fuchsia heapdump says of each object
// (of, false for nothing), counted; other formats say none of it.
func fuchsiaPerObject(of func(f *ir.File, fs *fuchsiair.Snapshot, i int) (string, bool)) func(m *measured) []string {
	return func(m *measured) []string {
		fs := fuchsiair.Of(m.s)
		if fs == nil {
			return nil
		}
		return m.perObject(func(i int) (string, bool) { return of(m.f, fs, i) })
	}
}

// differingKinds lists the kinds of the lines in one of x and y but not
// the other, when every line begins with one of kinds and a tab (ok).
func differingKinds(kinds, x, y []string) (differ []string, ok bool) {
	kindOf := func(line string) string {
		k, _, _ := strings.Cut(line, "\t")
		return k
	}
	for _, l := range [][]string{x, y} {
		for _, line := range l {
			if !strings.Contains(line, "\t") || !slices.Contains(kinds, kindOf(line)) {
				return nil, false
			}
		}
	}
	in := func(l []string, line string) bool { _, ok := slices.BinarySearch(l, line); return ok }
	for _, side := range [][2][]string{{x, y}, {y, x}} {
		for _, line := range side[0] {
			if k := kindOf(line); !in(side[1], line) && !slices.Contains(differ, k) {
				differ = append(differ, k)
			}
		}
	}
	return differ, true
}

// sectionKinds are the kinds of the lines sectionFields measures.
var sectionKinds = []string{dartir.LossSection, v8ir.LossDetachedness, v8ir.LossFields, v8ir.LossLocations, v8ir.LossSamples, v8ir.LossSection,
	moarvmir.LossStaticFrames, moarvmir.LossMetadata, moarvmir.LossHighscores, fuchsiair.LossLabels, fuchsiair.LossBuildIDs,
	fuchsiair.LossStream}

// sectionFields measures what only a V8, MoarVM or Fuchsia file has, a
// sorted line per loss kind that names its loss: the kind, a count and a
// digest of the values (per object in the order of the real nodes).
func sectionFields(m *measured) []string {
	var lines []string
	line := func(kind string, n int, parts ...any) {
		if n > 0 {
			digest := sha256.Sum256([]byte(fmt.Sprint(parts...)))
			lines = append(lines, fmt.Sprintf("%s\t%d %x", kind, n, digest[:8]))
		}
	}
	pos := make([]int, m.s.Nodes.Len()) // node → 1 + its place among the real nodes
	for k, i := range m.real {
		pos[i] = k + 1
	}
	if v := v8ir.Of(m.s); v != nil {
		var other []string
		for _, c := range v.NodeExtra {
			var vals []string
			for _, i := range m.real {
				if x := c.Values.At(i); x != 0 {
					vals = append(vals, fmt.Sprintf("%d=%d", pos[i], x))
				}
			}
			switch c.Name {
			case "detachedness":
				line(v8ir.LossDetachedness, len(vals), vals)
			case "trace_node_id", v8ir.DartClassField: // the allocation stacks aspect; a Dart heap's classes
			default:
				other = append(other, c.Name+":"+strings.Join(vals, ","))
			}
		}
		for _, c := range v.EdgeExtra {
			other = append(other, "edge "+c.Name)
		}
		line(v8ir.LossFields, len(other), other)
		if fields := v.MetaList("location_fields"); len(fields) > 0 {
			var locs []string
			for at := 0; at+len(fields) <= v.Locations.Len(); at += len(fields) {
				loc := make([]uint64, len(fields))
				for k := range loc {
					loc[k] = v.Locations.At(at + k)
				}
				if o := slices.Index(fields, "object_index"); o >= 0 && loc[o] < uint64(len(pos)) {
					loc[o] = uint64(pos[loc[o]])
				}
				locs = append(locs, fmt.Sprint(loc))
			}
			sort.Strings(locs)
			line(v8ir.LossLocations, len(locs), locs)
		}
		if nf := len(v.MetaList("sample_fields")); nf > 0 && v.Samples.Len() >= nf {
			samples := make([]uint64, v.Samples.Len())
			for k := range samples {
				samples[k] = v.Samples.At(k)
			}
			line(v8ir.LossSamples, len(samples)/nf, samples)
		}
		var keys []string
		for _, k := range v.Keys {
			if k.Value != nil {
				keys = append(keys, k.Name)
			}
		}
		line(v8ir.LossSection, len(keys), keys)
	}
	if mv := moarvmir.FileOf(m.f); mv != nil {
		frames := make([]string, mv.Frames())
		for k := range frames {
			frames[k] = fmt.Sprintf("%s %s %s %d", m.f.String(mv.FrameName[k]), m.f.String(mv.FrameCUID[k]),
				m.f.String(mv.FrameFile[k]), mv.FrameLine[k])
		}
		sort.Strings(frames)
		line(moarvmir.LossStaticFrames, len(frames), frames)
		var meta []uint64
		if mv.HasMeta {
			meta = append(meta, mv.Subversion, mv.StartTime)
			if mv.HasPID {
				meta = append(meta, mv.PID)
			}
		}
		if ms := moarvmir.Of(m.s); ms != nil {
			if ms.HasMeta {
				meta = append(meta, ms.SnapTime, ms.GCSeqNum)
			}
			line(moarvmir.LossHighscores, len(ms.TopIDs), ms.TopIDs, ms.TopScores)
		}
		line(moarvmir.LossMetadata, len(meta), meta)
	}
	if d := dartir.Of(m.s); d != nil {
		// The library URI of each class that has objects, and the names
		// of the external properties.
		var dart []string
		seen := map[uint32]bool{}
		for _, i := range m.real {
			if c := m.s.Nodes.Class[i]; c > 0 && !seen[c] && int(c) <= len(d.ClassURI) {
				seen[c] = true
				dart = append(dart, m.class[i]+" "+m.f.String(d.ClassURI[c-1]))
			}
		}
		for _, name := range d.ExternalName {
			dart = append(dart, "external "+m.f.String(name))
		}
		sort.Strings(dart)
		line(dartir.LossSection, len(dart), dart)
	}
	if fs := fuchsiair.Of(m.s); fs != nil && len(fs.LabelFirst) > 0 {
		var labels []string
		for _, i := range m.real {
			for l := fs.LabelFirst[i]; l < fs.LabelFirst[i+1]; l++ {
				labels = append(labels, fmt.Sprintf("%d %s %v %s %d %s", pos[i], m.f.String(fs.LabelKey[l]), fs.LabelNumeric[l],
					m.f.String(fs.LabelStr[l]), fs.LabelNum[l], m.f.String(fs.LabelUnit[l])))
			}
		}
		line(fuchsiair.LossLabels, len(labels), labels)
	}
	if fs := fuchsiair.Of(m.s); fs != nil && fs.Stream != nil {
		// A FIDL stream's details: its records, and what each element
		// carried beyond the profile (per block in the order of the real
		// nodes).
		st := fs.Stream
		var fields []uint8
		for _, i := range m.real {
			if i < len(st.AllocFields) {
				fields = append(fields, st.AllocFields[i])
			}
		}
		line(fuchsiair.LossStream, len(st.Records), st.Records, fields, st.StackKey, st.StackChunkSize, st.ThreadKey,
			st.RegionFields, st.RegionVaddr, st.ContentsChunkSize, st.OrphanAddress, st.OrphanContents,
			st.UnknownOrdinal, st.UnknownBytes)
	}
	if ff := fuchsiair.FileOf(m.f); ff != nil {
		var ids []string
		for k, b := range ff.Mappings.BuildID {
			if id := m.f.String(b); id != "" && !strings.HasPrefix(id, fuchsiair.ClassBuildID) {
				ids = append(ids, id+" "+m.f.String(ff.Mappings.File[k]))
			}
		}
		sort.Strings(ids)
		line(fuchsiair.LossBuildIDs, len(ids), ids)
	}
	sort.Strings(lines)
	return lines
}
