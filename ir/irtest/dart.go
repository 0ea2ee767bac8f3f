package irtest

import (
	"math"
	"slices"

	"github.com/heapconv/heapconv/ir"
	dartir "github.com/heapconv/heapconv/ir/dart"
)

// DartOptions describe the Dart file Random makes.
type DartOptions struct {
	// Hashes adds the identity hash code section (else every id is 0).
	Hashes bool
	// Padding adds DevTools-export zero padding after the hashes.
	Padding bool
	// OldRoot gives the root class 0, as the 2019–2020 writers did.
	OldRoot bool
	// ZeroRefs adds references 0 (unboxed slots).
	ZeroRefs bool
	// External adds external properties.
	External bool
	// Data adds NonReferenceData payloads of every tag.
	Data bool
}

// dartFile makes a file as readers/dart produces it: strings interned with
// "" first, node names taken from classes, edge kinds and names from the
// class fields at each reference slot.
func (g *gen) dartFile() *ir.File {
	do := g.o.Dart
	f := &ir.File{Format: dartir.Format, FormatVersion: "irtest dart"}
	g.f = f
	index := map[string]uint32{}
	intern := func(s string) uint32 {
		if i, ok := index[s]; ok {
			return i
		}
		index[s] = uint32(len(f.Strings))
		f.Strings = append(f.Strings, s)
		return index[s]
	}
	intern("")
	text := func() uint32 { return intern(g.str()) }

	s := &ir.Snapshot{Name: text(), Root: 0, NodeKinds: slices.Clone(dartir.NodeKinds), EdgeKinds: slices.Clone(dartir.EdgeKinds)}
	d := &dartir.Snapshot{Flags: uint64(g.intn(2)), IdentityHashes: do.Hashes}
	s.SetSection(d)
	f.Snapshots = []*ir.Snapshot{s}
	for _, name := range dartir.HeaderTotals {
		s.Totals = append(s.Totals, ir.Total{Name: name, Value: g.size()})
	}

	// Classes, with a few of the names the reader treats specially.
	special := []string{dartir.MintClass, "_Smi", "_WeakProperty", "_WeakReference", "FinalizerEntry"}
	c := &f.Classes
	c.FirstField = []uint32{0}
	nc := 1 + g.intn(8+g.o.MaxNodes/8)
	type field struct {
		name uint32
		idx  uint64
	}
	for k := 0; k < nc; k++ {
		name := text()
		if g.chance(3) {
			name = intern(special[g.intn(len(special))])
		}
		c.Name = append(c.Name, name)
		c.Library = append(c.Library, text())
		d.ClassFlags.Append(uint64(g.intn(2)))
		d.ClassURI = append(d.ClassURI, text())
		d.ClassReserved = append(d.ClassReserved, 0)
		var fs []field
		nf := g.intn(5)
		for j := 0; j < nf; j++ {
			fn := text()
			switch {
			case g.chance(3):
				fn = intern([]string{"key_", "value_", "target_", "detach_", "token_"}[g.intn(5)])
			}
			fs = append(fs, field{fn, uint64(j)})
		}
		if g.chance(4) && nf > 1 {
			g.r.Shuffle(nf, func(a, b int) { fs[a].idx, fs[b].idx = fs[b].idx, fs[a].idx })
		}
		if g.chance(8) && nf > 0 {
			fs[0].idx = uint64(nf + g.intn(3)) // a slot past the others
		}
		if g.chance(6) && nf > 1 {
			fs[1].idx = fs[0].idx // two fields naming one slot
		}
		for _, x := range fs {
			c.FieldName = append(c.FieldName, x.name)
			d.FieldFlags.Append(uint64(g.intn(2)))
			d.FieldIndex.Append(x.idx)
			d.FieldReserved = append(d.FieldReserved, 0)
		}
		c.FirstField = append(c.FirstField, uint32(len(c.FieldName)))
	}
	// slotEdge mirrors the reader: the first field listed for a slot names it.
	slotEdge := func(cls uint32, j int) (uint8, uint32) {
		if cls > 0 {
			lo, hi := c.FirstField[cls-1], c.FirstField[cls]
			for k := lo; k < hi; k++ {
				if d.FieldIndex.At(int(k)) == uint64(j) {
					kind := uint8(dartir.Property)
					if dartir.IsWeakSlot(f.Strings[c.Name[cls-1]], f.Strings[c.FieldName[k]]) {
						kind = dartir.Weak
					}
					return kind, c.FieldName[k]
				}
			}
			if nf := int(hi - lo); j >= nf {
				return dartir.Element, uint32(j - nf)
			}
		}
		return dartir.Element, uint32(j)
	}

	n := max(g.o.MinNodes, 1) + g.intn(g.o.MaxNodes-max(g.o.MinNodes, 1)+1)
	nd, ed, v := &s.Nodes, &s.Edges, &s.Values
	nd.FirstEdge = []uint32{0}
	rootName := intern(dartir.RootClass)
	var refs uint64
	for i := 0; i < n; i++ {
		cls := uint32(1 + g.intn(nc))
		name := c.Name[cls-1]
		if i == 0 && do.OldRoot {
			cls, name = 0, rootName
		}
		nd.Class = append(nd.Class, cls)
		nd.Name = append(nd.Name, name)
		if i == 0 {
			nd.SelfSize.Append(0) // the VM writes its root with size 0
		} else {
			nd.SelfSize.Append(g.size())
		}
		tag := uint8(dartir.NoData)
		if do.Data && g.chance(2) {
			tag = uint8(1 + g.intn(8))
		}
		nd.Kind = append(nd.Kind, tag)
		className := ""
		if cls > 0 {
			className = f.Strings[c.Name[cls-1]]
		}
		if tag != dartir.NoData {
			kind, bits, aux := g.dartValue(tag, className, intern)
			v.Node = append(v.Node, uint32(i))
			v.Kind = append(v.Kind, kind)
			v.Bits = append(v.Bits, bits)
			v.Aux = append(v.Aux, aux)
		}
		slots := g.intn(g.o.MaxOutDegree + 1)
		for j := 0; j < slots; j++ {
			if do.ZeroRefs && g.chance(4) {
				d.ZeroRefNode = append(d.ZeroRefNode, uint32(i))
				d.ZeroRefSlot = append(d.ZeroRefSlot, uint32(j))
				continue
			}
			k, nm := slotEdge(cls, j)
			ed.Kind = append(ed.Kind, k)
			ed.Name = append(ed.Name, nm)
			ed.Target = append(ed.Target, uint32(g.intn(n)))
		}
		refs += uint64(slots)
		nd.FirstEdge = append(nd.FirstEdge, uint32(ed.Len()))
	}
	d.ReferenceCount = refs
	if g.chance(3) {
		d.ReferenceCount += uint64(g.intn(10)) // "at least": a larger count is allowed
	}
	if do.Hashes {
		for i := 0; i < n; i++ {
			if g.chance(3) {
				nd.ID.Append(0)
			} else {
				nd.ID.Append(uint64(g.r.Uint32() >> 1))
			}
		}
		if do.Padding {
			d.Padding = uint64(1 + g.intn(100))
		}
	} else {
		nd.ID.AppendZeros(n)
	}
	if do.External {
		sums := make([]uint64, n)
		for k := g.intn(1 + n/2); k > 0; k-- {
			node := uint32(g.intn(n))
			size := uint64(g.intn(1 << 20))
			d.ExternalNode = append(d.ExternalNode, node)
			d.ExternalSize.Append(size)
			d.ExternalName = append(d.ExternalName, text())
			sums[node] += size
		}
		if len(d.ExternalNode) > 0 {
			nd.ExternalSize.AppendAll(sums)
		}
	}
	return f
}

// dartValue returns a value for a data tag as the reader stores it.
func (g *gen) dartValue(tag uint8, class string, intern func(string) uint32) (ir.ValueKind, uint64, uint64) {
	switch tag {
	case dartir.NullData:
		return ir.ValueNull, 0, 0
	case dartir.BoolData:
		return ir.ValueBool, uint64(g.intn(2)), 0
	case dartir.IntData:
		vals := []int64{0, 1, -1, 63, 64, 127, 128, -64, -65, math.MaxInt64, math.MinInt64, 1 << 62, -(1 << 62), g.r.Int64(), -g.r.Int64()}
		x := vals[g.intn(len(vals))]
		return ir.ValueInt, uint64(x), uint64(dartir.IntCoding(class))
	case dartir.DoubleData:
		fs := []float64{0, math.Copysign(0, -1), 1.5, math.Inf(-1), math.NaN(), g.r.NormFloat64()}
		return ir.ValueFloat, math.Float64bits(fs[g.intn(len(fs))]), 0
	case dartir.Latin1Data, dartir.UTF16Data:
		var b []byte
		units := 0
		for k := g.intn(g.o.MaxStringUnits + 1); k > 0; k-- {
			r := rune(0x20 + g.intn(0x60))
			switch {
			case g.chance(4):
				r = rune(0x80 + g.intn(0x80)) // Latin-1 beyond ASCII
			case tag == dartir.UTF16Data && g.chance(3):
				r = []rune{0x3B1, 0x65E5, 0x1F600, 0xD800, 0xDFFF, 0xFFFF}[g.intn(6)]
			}
			if r >= 0xD800 && r < 0xE000 && len(b) >= 3 && b[len(b)-3] == 0xED {
				r = 'x' // no surrogate next to another: WTF-8 would join a pair
			}
			b = ir.AppendWTF8(b, r)
			units++
			if r > 0xFFFF {
				units++
			}
		}
		aux := uint64(0)
		if g.chance(3) {
			aux = uint64(units + 1 + g.intn(1000)) // truncated
		}
		return ir.ValueString, uint64(intern(string(b))), aux
	case dartir.LengthData:
		return ir.ValueLength, uint64(g.intn(1 << 20)), 0
	case dartir.NameData:
		return ir.ValueString, uint64(intern(g.str())), 0
	}
	return 0, 0, 0
}
