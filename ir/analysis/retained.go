package analysis

import "github.com/heapconv/heapconv/ir"

// ClassRetained sums retained sizes per class the way Chrome DevTools'
// Summary view does, so that the figures can be compared with it: walking
// the dominator tree from the root, a counted node adds its retained size to
// its class unless a counted node of the same class dominates it (its size
// is already in that one's). class names each node's class (for example
// ClassName); counted says which nodes count (DevTools counts nodes with a
// self size and native nodes). Unreachable nodes count for nothing.
func ClassRetained(t *DominatorTree, class func(i int) string, counted func(i int) bool) map[string]uint64 {
	out := map[string]uint64{}
	if len(t.IDom) == 0 || int(t.Root) >= len(t.IDom) {
		return out
	}
	// Class ids, so that the walk counts open classes in a slice.
	ids := map[string]int32{}
	classID := make([]int32, len(t.IDom))
	for i := range classID {
		classID[i] = -1
	}
	var names []string
	for _, i := range t.Order {
		if !counted(int(i)) {
			continue
		}
		name := class(int(i))
		id, ok := ids[name]
		if !ok {
			id = int32(len(names))
			ids[name] = id
			names = append(names, name)
		}
		classID[i] = id
	}
	sums := classRetained(t, func(i int) int32 { return classID[i] }, len(names))
	for c, name := range names {
		out[name] = sums[c]
	}
	return out
}

// classRetained is ClassRetained with classes numbered: class(i) is node
// i's class in [0, classes), or -1 for a node that does not count. It
// returns each class's retained size.
func classRetained(t *DominatorTree, class func(i int) int32, classes int) []uint64 {
	n := len(t.IDom)
	sums := make([]uint64, classes)
	if n == 0 || int(t.Root) >= n {
		return sums
	}
	// Children of each node in the dominator tree (CSR).
	first := make([]uint32, n+1)
	for i, d := range t.IDom {
		if d != ir.NoNode && uint32(i) != t.Root {
			first[d+1]++
		}
	}
	for i := 0; i < n; i++ {
		first[i+1] += first[i]
	}
	children := make([]uint32, first[n])
	fill := append([]uint32(nil), first[:n]...)
	for _, i := range t.Order { // preorder keeps siblings in a stable order
		if d := t.IDom[i]; d != ir.NoNode && i != t.Root {
			children[fill[d]] = i
			fill[d]++
		}
	}
	open := make([]int32, classes)
	// Iterative depth-first walk: a frame is a node and its next child.
	type frame struct{ node, next uint32 }
	stack := []frame{{t.Root, first[t.Root]}}
	enter := func(v uint32) {
		if c := class(int(v)); c >= 0 {
			if open[c] == 0 {
				sums[c] = ir.SatAdd(sums[c], t.Retained[v])
			}
			open[c]++
		}
	}
	enter(t.Root)
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.next < first[top.node+1] {
			child := children[top.next]
			top.next++
			enter(child)
			stack = append(stack, frame{child, first[child]})
			continue
		}
		if c := class(int(top.node)); c >= 0 {
			open[c]--
		}
		stack = stack[:len(stack)-1]
	}
	return sums
}
