package analysis

import "github.com/heapconv/heapconv/ir"

// CompareUTF16 is compareUTF16, for the tests.
var CompareUTF16 = compareUTF16

// LeakedObjects finds, as Compare does, the objects of three heaps new in
// the second and still alive in the third, with the third heap's
// navigator and identities: what Suspects and GroupByPath take, so that
// their own cost can be measured (BenchmarkSuspects).
func LeakedObjects(heaps [3]Heap) (nv *Navigator, leaked []uint32, ids ir.ObjectIdentities, err error) {
	a, b, z := heaps[0], heaps[1], heaps[2]
	tb, err := newClassTable(b.File, b.Snapshot, false)
	if err != nil {
		return nil, nil, nil, err
	}
	tz, err := newClassTable(z.File, z.Snapshot, false)
	if err != nil {
		return nil, nil, nil, err
	}
	ida, idb, idz := ir.Identities(a.Snapshot), ir.Identities(b.Snapshot), ir.Identities(z.Snapshot)
	newIn := counted(newObjects(a, b, ida, idb), tb)
	leaked = counted(stillAlive(b, z, newIn, idb, idz), tz)
	if nv, err = navigatorOf(z, tz); err != nil {
		return nil, nil, nil, err
	}
	return nv, leaked, idz, nil
}

// GroupByPath is groupByPath with the heap's counted sizes.
func GroupByPath(nv *Navigator, nodes []uint32, examples int) []ObjectGroup {
	return groupByPath(nv, nodes, nv.table.sizes, examples)
}
