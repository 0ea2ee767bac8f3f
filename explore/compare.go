package explore

import (
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/heapconv/heapconv/ir/analysis"
)

// comparisons keeps each comparison made, by its heaps ("0,1,2"): one
// costs each heap's class table again, so it is made once.
type comparisons struct {
	mu   sync.Mutex
	made map[string]*comparison
}

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
		for _, f := range strings.Split(v, ",") {
			k, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || k < 0 || k >= len(s.heaps) {
				httpError(w, r, http.StatusNotFound, "heaps %q: %q is no heap (there are %d, numbered from 0)", v, f, len(s.heaps))
				return
			}
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
	key := strings.Join(intsText(idx), ",")
	s.compared.mu.Lock()
	if s.compared.made == nil {
		s.compared.made = map[string]*comparison{}
	}
	cmp := s.compared.made[key]
	if cmp == nil {
		cmp = &comparison{}
		s.compared.made[key] = cmp
	}
	s.compared.mu.Unlock()
	cmp.once.Do(func() {
		heaps := make([]analysis.Heap, len(idx))
		for k, h := range idx {
			heaps[k] = s.heaps[h].heap
		}
		cmp.c, cmp.err = analysis.Compare(heaps, analysis.CompareOptions{Retained: true})
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

func intsText(v []int) []string {
	out := make([]string, len(v))
	for k, x := range v {
		out[k] = strconv.Itoa(x)
	}
	return out
}
