package moarvm

import (
	"cmp"
	"slices"

	moarvmir "github.com/heapconv/heapconv/ir/moarvm"

	"github.com/heapconv/heapconv/ir"
)

// Leaderboards computes a snapshot's highscores as MoarVM's
// make_leaderboards does (docs/formats/moarvm.md, Highscores), for boards
// named by order (normally moarvmir.DefaultDataOrder) of entryCount entries
// each, laid out board after board as topIDs and topscore hold them:
//
//   - types_by_count / types_by_size: objects (kind 1) grouped by type index
//     (coltofi), counted or summed by self + unmanaged size;
//   - frames_by_count / frames_by_size: frames (kind 4) grouped by static
//     frame index, likewise.
//
// Entries are sorted by score, highest first; MoarVM's qsort leaves ties in
// no particular order, here the lower index comes first. Only indices with a
// non-zero score take part; a board with fewer than entryCount of them is
// padded with (index 0, score 0). Boards of other names are all zero and
// are returned in unknown.
func Leaderboards(s *ir.Snapshot, entryCount int, order []string) (ids, scores []uint64, unknown []string) {
	nd := &s.Nodes
	tofi := &moarvmir.Of(s).TOFI
	type stat struct{ count, size uint64 }
	types := map[uint64]*stat{}
	frames := map[uint64]*stat{}
	// Dense tables for the common case of indices below the node count;
	// the maps take the rest.
	n := nd.Len()
	dense := [2][]stat{make([]stat, 0), make([]stat, 0)}
	for i := 0; i < n; i++ {
		var g int
		switch nd.Kind[i] {
		case moarvmir.Object:
			g = 0
		case moarvmir.Frame:
			g = 1
		default:
			continue
		}
		t := tofi.At(i)
		size := nd.SelfSize.At(i)
		if nd.ExternalSize.Len() > 0 {
			size = satAdd(size, nd.ExternalSize.At(i))
		}
		var st *stat
		if t < uint64(n)+1024 {
			d := &dense[g]
			if t >= uint64(len(*d)) {
				*d = append(*d, make([]stat, int(t)+1-len(*d))...)
			}
			st = &(*d)[t]
		} else {
			m := types
			if g == 1 {
				m = frames
			}
			if st = m[t]; st == nil {
				st = &stat{}
				m[t] = st
			}
		}
		st.count++
		st.size = satAdd(st.size, size)
	}
	type entry struct{ id, score uint64 }
	board := func(g int, bySize bool) []entry {
		var es []entry
		add := func(id uint64, st *stat) {
			v := st.count
			if bySize {
				v = st.size
			}
			if v > 0 {
				es = append(es, entry{id, v})
			}
		}
		for id := range dense[g] {
			add(uint64(id), &dense[g][id])
		}
		m := types
		if g == 1 {
			m = frames
		}
		for id, st := range m {
			add(id, st)
		}
		slices.SortFunc(es, func(a, b entry) int {
			if c := cmp.Compare(b.score, a.score); c != 0 {
				return c
			}
			return cmp.Compare(a.id, b.id)
		})
		return es
	}
	ids = make([]uint64, entryCount*len(order))
	scores = make([]uint64, entryCount*len(order))
	for b, name := range order {
		var es []entry
		switch name {
		case "types_by_count":
			es = board(0, false)
		case "frames_by_count":
			es = board(1, false)
		case "types_by_size":
			es = board(0, true)
		case "frames_by_size":
			es = board(1, true)
		default:
			unknown = append(unknown, name)
		}
		for j := 0; j < entryCount && j < len(es); j++ {
			ids[b*entryCount+j] = es[j].id
			scores[b*entryCount+j] = es[j].score
		}
	}
	return ids, scores, unknown
}
