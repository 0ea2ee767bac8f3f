package explore

import (
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/heapconv/heapconv/ir/analysis"
)

// comparisons keeps the last comparisons made, by their heaps ("[0 1 2]"):
// one costs each heap's class table again, so it is not made again while
// a person reads its pages; a few are kept, without the navigator each
// made.
type comparisons struct {
	mu    sync.Mutex
	made  map[string]*comparison
	order []string // the keys, oldest first
}

// keptComparisons is how many comparisons are kept.
const keptComparisons = 4

type comparison struct {
	once sync.Once
	c    *analysis.Comparison
	err  error
}

// Comparison is the answer of /compare: what `heapconv diff` prints for
// the heaps, as its --json does, with the class table a page at a time.
type Comparison struct {
	// Heaps are the heaps compared, in order; Step those of them the new
	// and leaked objects are of (the last two or three), and Last the
	// heap the suspects' and groups' objects (their nodes) are of.
	Heaps []int `json:"heaps"`
	Step  []int `json:"step"`
	Last  int   `json:"last"`
	// Identity, Suspects, SuspectsBy, Noise, New and Leaked are
	// analysis.Comparison's.
	Identity   string                 `json:"identity"`
	Suspects   []analysis.Suspect     `json:"suspects"`
	SuspectsBy string                 `json:"suspects_by"`
	Noise      uint64                 `json:"noise"`
	New        []analysis.ObjectGroup `json:"new"`
	Leaked     []analysis.ObjectGroup `json:"leaked"`
	// Classes are the classes sorted by the growth of their self size
	// from the first heap to the last, with each heap's figures.
	Classes Page[analysis.ClassChange] `json:"classes"`
}

// compare answers /compare?heaps=0,1,2: the comparison of the heaps given
// (two or more, in order; all of them when there are several and none are
// given).
func (s *Server) compare(w http.ResponseWriter, r *http.Request) {
	p, ok := paging(w, r)
	if !ok {
		return
	}
	var idx []int
	if v := r.URL.Query().Get("heaps"); v != "" {
		seen := make([]bool, len(s.heaps))
		for _, f := range strings.Split(v, ",") {
			k, ok := index(f)
			if !ok || k >= len(s.heaps) {
				httpError(w, r, http.StatusNotFound, "heaps %q: %q is no heap (there are %d, numbered from 0)", v, f, len(s.heaps))
				return
			}
			if seen[k] {
				httpError(w, r, http.StatusBadRequest, "heaps %q: heap %d is given twice", v, k)
				return
			}
			seen[k] = true
			idx = append(idx, k)
		}
	} else {
		for k := range s.heaps {
			idx = append(idx, k)
		}
	}
	if len(idx) < 2 {
		httpError(w, r, http.StatusBadRequest, "a comparison needs two heaps or more, not %d", len(idx))
		return
	}
	key := fmt.Sprint(idx)
	cmp := s.compared.get(key)
	cmp.once.Do(func() {
		heaps := make([]analysis.Heap, len(idx))
		for k, h := range idx {
			heaps[k] = s.heaps[h].heap
		}
		c, err := analysis.Compare(heaps, analysis.CompareOptions{Retained: true})
		if err == nil {
			// What the answers need, without the navigator of the last
			// heap Compare made (a whole heap's worth of memory).
			c = &analysis.Comparison{Classes: c.Classes, Identity: c.Identity, New: c.New, Leaked: c.Leaked,
				Step: c.Step, Suspects: c.Suspects, SuspectsBy: c.SuspectsBy, Noise: c.Noise}
		}
		cmp.c, cmp.err = c, err
	})
	if cmp.err != nil {
		httpError(w, r, http.StatusInternalServerError, "comparing heaps %s: %v", key, cmp.err)
		return
	}
	c := cmp.c
	out := Comparison{
		Heaps: idx, Last: idx[len(idx)-1], Identity: c.Identity, Suspects: c.Suspects, SuspectsBy: c.SuspectsBy,
		Noise: c.Noise, New: nonNil(c.New), Leaked: nonNil(c.Leaked),
	}
	for _, k := range c.Step {
		out.Step = append(out.Step, idx[k])
	}
	lo, hi, next := p.window(len(c.Classes))
	out.Classes = Page[analysis.ClassChange]{Total: len(c.Classes), Items: nonNil(c.Classes[lo:hi]), Next: next}
	reply(w, out)
}

// get returns the comparison of key, made or to be made, keeping the last
// keptComparisons.
func (cs *comparisons) get(key string) *comparison {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.made == nil {
		cs.made = map[string]*comparison{}
	}
	if c := cs.made[key]; c != nil {
		return c
	}
	if len(cs.order) >= keptComparisons {
		delete(cs.made, cs.order[0])
		cs.order = cs.order[1:]
	}
	c := &comparison{}
	cs.made[key] = c
	cs.order = append(cs.order, key)
	return c
}
