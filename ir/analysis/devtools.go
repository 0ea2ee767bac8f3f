package analysis

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/heapconv/heapconv/ir"
)

// weakMapEdge matches the names V8 gives the internal edges from a WeakMap's
// table to its values: "<n> / part of key (<k> @<id>) -> value (<v> @<id>)
// pair in WeakMap (table @<table id>)".
var weakMapEdge = regexp.MustCompile(`^\d+ / part of key \(.*? @\d+\) -> value \(.*? @\d+\) pair in WeakMap \(table @(\d+)\)$`)

// DevToolsIgnore returns, for DominatorOptions.Ignore, the edges Chrome
// DevTools does not let retain their target when it computes dominators of
// a V8 heap (besides weak edges, which never retain):
//
//   - shortcut edges, except from the root (V8 marks user globals with them);
//   - the edge from a WeakMap's table to a value (the key's edge retains it);
//   - edges from an object outside the page to one inside it: objects a
//     shortcut from the root or the "(Document DOM trees)" root reaches are
//     the page's, and what else holds them (the debugger, say) does not.
//
// Kinds are recognized by their V8 names, so for other formats, which have
// none of these, it skips nothing (and returns nil).
func DevToolsIgnore(f *ir.File, s *ir.Snapshot) func(edge int) bool {
	kindID := func(name string) int {
		for i, k := range s.EdgeKinds {
			if k.Name == name {
				return i
			}
		}
		return -1
	}
	shortcut, internal, weak, element := kindID("shortcut"), kindID("internal"), kindID(ir.EdgeWeak), kindID("element")
	if s.Root == ir.NoNode || (shortcut < 0 && internal < 0) {
		return nil
	}
	n, root := s.Nodes.Len(), int(s.Root)
	kind := func(e int) int { return int(s.Edges.Kind[e]) }
	// Page objects: reached from the root's shortcuts and DOM tree roots.
	page := make([]bool, n)
	var stack []uint32
	lo, hi := s.Nodes.EdgeRange(root)
	for e := lo; e < hi; e++ {
		t := s.Edges.Target[e]
		switch kind(e) {
		case shortcut:
		case element:
			if s.NodeKindName(int(t)) != ir.KindSynthetic || f.String(s.Nodes.Name[t]) != "(Document DOM trees)" {
				continue
			}
		default:
			continue
		}
		if !page[t] {
			page[t] = true
			stack = append(stack, t)
		}
	}
	pages := len(stack) > 0
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		lo, hi := s.Nodes.EdgeRange(int(v))
		for e := lo; e < hi; e++ {
			if t := s.Edges.Target[e]; !page[t] && kind(e) != weak {
				page[t] = true
				stack = append(stack, t)
			}
		}
	}
	skip := make([]uint64, (s.Edges.Len()+63)/64)
	any := false
	// Whether an internal edge's name is a WeakMap's table-to-value name,
	// and then its table's id, worked out once per name: a slice by string
	// index, because a big heap has tens of millions of internal edges.
	const (
		nameUnseen = iota
		nameOther
		nameWeakMap
	)
	nameKind := make([]uint8, len(f.Strings))
	weakMapTables := map[uint32]int64{}
	weakMapTable := func(name uint32) int64 {
		if m := weakMapEdge.FindStringSubmatch(f.String(name)); m != nil {
			if id, err := strconv.ParseInt(m[1], 10, 64); err == nil {
				return id
			}
		}
		return -1
	}
	for v := 0; v < n; v++ {
		lo, hi := s.Nodes.EdgeRange(v)
		for e := lo; e < hi; e++ {
			t := int(s.Edges.Target[e])
			drop := false
			switch k := kind(e); {
			case k == internal:
				name := s.Edges.Name[e]
				table := int64(-1)
				switch {
				case int(name) >= len(nameKind):
					table = weakMapTable(name)
				case nameKind[name] == nameWeakMap:
					table = weakMapTables[name]
				case nameKind[name] == nameUnseen:
					nameKind[name] = nameOther
					if table = weakMapTable(name); table >= 0 {
						nameKind[name] = nameWeakMap
						weakMapTables[name] = table
					}
				}
				drop = table >= 0 && s.Nodes.ID.At(v) == uint64(table)
			case k == shortcut && v != root:
				drop = true
			}
			if !drop && v != root && pages && page[t] && !page[v] {
				drop = true
			}
			if drop {
				skip[e>>6] |= 1 << (e & 63)
				any = true
			}
		}
	}
	if !any {
		return nil
	}
	return func(e int) bool { return skip[e>>6]&(1<<(e&63)) != 0 }
}

// DevToolsSelfSizes returns the self sizes Chrome DevTools shows for a V8
// heap, or nil when they are the file's: when the root has a user root (a
// child that is not synthetic: a JavaScript global), DevTools moves the size
// of every array, hidden node and external string data that a single other
// object owns (reaches through non-weak edges, through other owned nodes) to
// that owner, unless the owner is synthetic or the root, so that an object's
// backing stores count as its own.
func DevToolsSelfSizes(f *ir.File, s *ir.Snapshot) *ir.Uints {
	n := s.Nodes.Len()
	if s.Root == ir.NoNode || n == 0 {
		return nil
	}
	userRoots := false
	lo, hi := s.Nodes.EdgeRange(int(s.Root))
	for e := lo; e < hi; e++ {
		t := int(s.Edges.Target[e])
		if s.NodeKindName(t) != ir.KindSynthetic ||
			f.String(s.Nodes.Name[t]) == "(Document DOM trees)" {
			userRoots = true
			break
		}
	}
	if !userRoots {
		return nil
	}
	const unvisited, multiple = ^uint32(0), ^uint32(0) - 1
	owners := make([]uint32, n)
	var work []uint32
	// DevTools has renamed detached nodes "Detached …" by the time it
	// looks for external string data by name.
	detached := devtoolsDetached(s)
	for i := 0; i < n; i++ {
		k := s.NodeKindName(i)
		if k == ir.KindHidden || k == ir.KindArray || (k == ir.KindNative && (detached == nil || !detached[i]) &&
			f.String(s.Nodes.Name[i]) == "system / ExternalStringData") {
			owners[i] = unvisited
		} else {
			owners[i] = uint32(i)
			work = append(work, uint32(i))
		}
	}
	weak := -1
	for k, ek := range s.EdgeKinds {
		if ek.Name == ir.EdgeWeak {
			weak = k
		}
	}
	for len(work) > 0 {
		id := work[len(work)-1]
		work = work[:len(work)-1]
		owner := owners[id]
		lo, hi := s.Nodes.EdgeRange(int(id))
		for e := lo; e < hi; e++ {
			if int(s.Edges.Kind[e]) == weak {
				continue
			}
			t := s.Edges.Target[e]
			switch owners[t] {
			case unvisited:
				owners[t] = owner
				work = append(work, t)
			case t, owner, multiple:
			default:
				owners[t] = multiple
				work = append(work, t)
			}
		}
	}
	sizes := make([]uint64, n)
	for i := range sizes {
		sizes[i] = s.Nodes.SelfSize.At(i)
	}
	for i, o := range owners {
		if o == unvisited || o == multiple || o == uint32(i) {
			continue
		}
		if int(o) == int(s.Root) || s.NodeKindName(int(o)) == ir.KindSynthetic {
			continue
		}
		sizes[o] += sizes[i]
		sizes[i] = 0
	}
	var out ir.Uints
	out.AppendAll(sizes)
	return &out
}

// devtoolsConsString returns a V8 concatenated string's text as DevTools
// names it: the names of the leaves below its "first" and "second"
// internal edges, in order, until the text reaches 1024 UTF-16 units (or
// 4096 parts were looked at).
func devtoolsConsString(f *ir.File, s *ir.Snapshot, i int) string {
	cons := kindIndex(s.NodeKinds, "concatenated string")
	internal := edgeKindIndex(s, "internal")
	var b strings.Builder
	units := 0
	stack := []int{i}
	// A crafted file's strings can hold each other in a cycle, which V8's
	// never do: the walk stops after as many parts as 1024 units can take.
	for steps := 0; len(stack) > 0 && units < 1024 && steps < 4096; steps++ {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if int(s.Nodes.Kind[v]) != cons {
			name := f.String(s.Nodes.Name[v])
			b.WriteString(name)
			units += ir.UTF16Len(name)
			continue
		}
		// A missing part is node 0, as DevTools has it.
		first, second := 0, 0
		lo, hi := s.Nodes.EdgeRange(v)
		for e := lo; e < hi && (first == 0 || second == 0); e++ {
			if int(s.Edges.Kind[e]) != internal || s.EdgeKinds[internal].Indexed {
				continue
			}
			switch f.String(s.Edges.Name[e]) {
			case "first":
				first = int(s.Edges.Target[e])
			case "second":
				second = int(s.Edges.Target[e])
			}
		}
		stack = append(stack, second, first)
	}
	return b.String()
}

// devtoolsPlainObjectName returns the name DevTools shows for a plain
// object (one named "Object"): its property names, from both ends toward
// the middle, as many as fit in about 100 UTF-16 units ("{a, b, …, y, z}").
func devtoolsPlainObjectName(f *ir.File, s *ir.Snapshot, i int) string {
	property := edgeKindIndex(s, "property")
	start, end := "{", "}"
	startLen, endLen := 1, 1
	lo, hi := s.Nodes.EdgeRange(i)
	a, z := lo, hi-1
	fromEnd := false
	for a <= z {
		e := a
		if fromEnd {
			e = z
		}
		name := ""
		if int(s.Edges.Kind[e]) == property && property >= 0 && !s.EdgeKinds[property].Indexed {
			name = f.String(s.Edges.Name[e])
		}
		if int(s.Edges.Kind[e]) != property || name == "__proto__" {
			if fromEnd {
				z--
			} else {
				a++
			}
			continue
		}
		formatted := formatPropertyName(name)
		n := ir.UTF16Len(formatted)
		if startLen > 1 && startLen+endLen+n > 100 {
			break
		}
		if fromEnd {
			z--
			if endLen > 1 {
				end, endLen = ", "+end, endLen+2
			}
			end, endLen = formatted+end, endLen+n
		} else {
			a++
			if startLen > 1 {
				start, startLen = start+", ", startLen+2
			}
			start, startLen = start+formatted, startLen+n
		}
		fromEnd = !fromEnd
	}
	if a <= z {
		start += ", …"
	}
	if endLen > 1 {
		start += ", "
	}
	return start + end
}
