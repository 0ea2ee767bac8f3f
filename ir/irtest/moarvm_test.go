package irtest_test

import (
	"bytes"
	"slices"
	"testing"

	"github.com/heapconv/heapconv/ir/irstream"
	moarvmir "github.com/heapconv/heapconv/ir/moarvm"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/irtest"
)

var moarVMCases = []struct {
	name string
	opts irtest.Options
	mo   irtest.MoarVMOptions
}{
	{"default", irtest.Options{}, irtest.MoarVMOptions{}},
	{"several", irtest.Options{MaxNodes: 40, Snapshots: 4, Strings: irtest.AllStrings}, irtest.MoarVMOptions{BadRefs: true}},
	{"v2", irtest.Options{MaxNodes: 30, Snapshots: 3}, irtest.MoarVMOptions{V2: true}},
	{"recovered", irtest.Options{MinNodes: 5, MaxNodes: 20, Snapshots: 2}, irtest.MoarVMOptions{NoPID: true, Recovery: true}},
	{"tiny", irtest.Options{MinNodes: 0, MaxNodes: 0, MaxOutDegree: 1, Snapshots: 1}, irtest.MoarVMOptions{}},
}

// TestRandomMoarVM: every generated file validates, is deterministic, and
// keeps the MoarVM shape ir/moarvm/section.go describes.
func TestRandomMoarVM(t *testing.T) {
	for _, tc := range moarVMCases {
		t.Run(tc.name, func(t *testing.T) {
			for seed := int64(0); seed < 30; seed++ {
				f := irtest.RandomMoarVM(seed, tc.opts, tc.mo)
				if err := f.Validate(); err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				if d := ir.Diff(f, irtest.RandomMoarVM(seed, tc.opts, tc.mo), 5); len(d) > 0 {
					t.Fatalf("seed %d: not deterministic: %v", seed, d)
				}
				if err := checkMoarVMShape(f, tc.opts, tc.mo); err != "" {
					t.Fatalf("seed %d: %s", seed, err)
				}
			}
		})
	}
}

// checkMoarVMShape returns what is wrong with f as a MoarVM file, or "".
func checkMoarVMShape(f *ir.File, o irtest.Options, mo irtest.MoarVMOptions) string {
	m := moarvmir.FileOf(f)
	if f.Format != moarvmir.Format || m == nil {
		return "not a MoarVM file"
	}
	if want := max(o.Snapshots, 1); len(f.Snapshots) != want {
		return "wrong snapshot count"
	}
	if mo.V2 != (m.Version == 2) || m.HasMeta == mo.V2 || (m.HasPID == mo.NoPID && !mo.V2) {
		return "version, filemeta or pid not as asked"
	}
	if mo.Recovery != (m.Recovery != nil) {
		return "recovery not as asked"
	}
	// What the TOCs up to each snapshot added.
	var strs, types, frames []int
	var s, ty, fr int
	for _, toc := range m.TOCs {
		s, ty, fr = s+int(toc.NewStrings), ty+int(toc.NewTypes), fr+int(toc.NewFrames)
		strs, types, frames = append(strs, s), append(types, ty), append(frames, fr)
	}
	for k, snap := range f.Snapshots {
		ms := moarvmir.Of(snap)
		if ms == nil || ms.HasMeta == mo.V2 {
			return "snapshot section missing or its snapmeta not as asked"
		}
		if !slices.Equal(snap.NodeKinds, moarvmir.NodeKinds) || !slices.Equal(snap.EdgeKinds, moarvmir.EdgeKinds) {
			return "kind tables are not MoarVM's"
		}
		if snap.Root != 0 || snap.Nodes.Kind[0] != moarvmir.Root {
			return "collectable 0 is not the root"
		}
		nt, nf, ns := f.Classes.Len(), m.Frames(), m.StringCount
		if len(m.TOCs) > 0 {
			nt, nf, ns = types[k], frames[k], strs[k]
		}
		for i := 0; i < snap.Nodes.Len(); i++ {
			kind, tofi, class := int(snap.Nodes.Kind[i]), ms.TOFI.At(i), snap.Nodes.Class[i]
			switch {
			case kind >= moarvmir.Object && kind <= moarvmir.STable:
				if tofi >= uint64(nt) || uint64(class) != 1+tofi {
					return "an object's type is not its class, or not yet in the TOCs"
				}
			case kind == moarvmir.Frame:
				if tofi >= uint64(nf) || class != 0 || snap.Nodes.Name[i] != m.FrameName[tofi] {
					return "a frame's static frame is wrong"
				}
			case kind >= moarvmir.PermRoots && kind <= moarvmir.CallStackRoots:
				if tofi != 0 || class != 0 || f.Strings[snap.Nodes.Name[i]] != moarvmir.RootNames[kind] {
					return "a root kind has a type, class or name of its own"
				}
			default:
				return "a collectable of an unknown kind"
			}
		}
		for e := 0; e < snap.Edges.Len(); e++ {
			switch snap.Edges.Kind[e] {
			case moarvmir.StringRef:
				if int(snap.Edges.Name[e]) >= ns {
					return "a string reference beyond the strings of the snapshot's TOCs"
				}
			case moarvmir.BadString:
				if !mo.BadRefs || int(snap.Edges.Name[e]) < m.StringCount {
					return "an out-of-range string reference in range, or not asked for"
				}
			case moarvmir.Kind3:
				if !mo.BadRefs {
					return "a kind 3 reference not asked for"
				}
			}
		}
		if mo.V2 {
			if ms.TopIDs != nil || snap.Totals != nil {
				return "a v2 snapshot with highscores or totals"
			}
		} else if uint64(len(ms.TopIDs)) != uint64(len(m.DataOrder))*m.EntryCount || ms.TopIDs == nil ||
			len(snap.Totals) != len(moarvmir.TotalNames) {
			return "highscores or totals do not have filemeta's shape"
		}
	}
	return ""
}

// TestRandomMoarVMOptions: every option shows in some of a few seeds.
func TestRandomMoarVMOptions(t *testing.T) {
	var bad, kind3, frames, emptyBoards, lostTOCs, finalAdds, extraStrings int
	for seed := int64(0); seed < 40; seed++ {
		f := irtest.RandomMoarVM(seed, irtest.Options{MaxNodes: 30, Snapshots: 2},
			irtest.MoarVMOptions{BadRefs: true, Recovery: true})
		m := moarvmir.FileOf(f)
		for _, s := range f.Snapshots {
			for _, k := range s.Edges.Kind {
				switch k {
				case moarvmir.BadString:
					bad++
				case moarvmir.Kind3:
					kind3++
				}
			}
			for _, k := range s.Nodes.Kind {
				if k == moarvmir.Frame {
					frames++
				}
			}
			if moarvmir.Of(s).TopIDs != nil && len(moarvmir.Of(s).TopIDs) == 0 {
				emptyBoards++
			}
		}
		if len(m.TOCs) == 0 {
			lostTOCs++
		} else if last := m.TOCs[len(m.TOCs)-1]; last.NewStrings+last.NewTypes+last.NewFrames > 0 {
			finalAdds++
		}
		if len(f.Strings) > m.StringCount {
			extraStrings++
		}
	}
	for name, n := range map[string]int{"out-of-range string references": bad, "kind 3 references": kind3,
		"frames": frames, "empty boards": emptyBoards, "lost TOCs": lostTOCs, "a final TOC adding entries": finalAdds,
		"strings beyond the heap": extraStrings} {
		if n == 0 {
			t.Errorf("no %s in 40 files", name)
		}
	}
}

// TestRandomMoarVMEncodable: generated files survive the IR encoding.
func TestRandomMoarVMEncodable(t *testing.T) {
	for _, tc := range moarVMCases {
		f := irtest.RandomMoarVM(7, tc.opts, tc.mo)
		var b bytes.Buffer
		if err := irstream.Encode(&b, f); err != nil {
			t.Fatalf("%s: encode: %v", tc.name, err)
		}
		g, err := irstream.Decode(&b)
		if err != nil {
			t.Fatalf("%s: decode: %v", tc.name, err)
		}
		if d := ir.Diff(f, g, 5); len(d) > 0 {
			t.Fatalf("%s: %v", tc.name, d)
		}
	}
}
