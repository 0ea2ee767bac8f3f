package heapconv_test

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/heapconv/heapconv"
	"github.com/heapconv/heapconv/explore"
	"github.com/heapconv/heapconv/ir/analysis"
)

// BenchmarkExploreRequests walks the explorer's views as a person does,
// over many random objects of the heap $HEAPCONV_BENCH_NEW names (read
// and analyzed once, outside the timing, until every view can be
// answered): the Summary, the objects of the class that retains the most
// and of the class of the most objects (its first page and its second),
// then for each of 200 random objects its page, fields,
// retainers, retainer path, dominators and what it dominates. It reports
// each request's server time at the 50th and 95th percentile and the
// largest, over all requests (p50-ms, p95-ms, max-ms) and for the
// slowest kind of request (worst-p95-ms).
func BenchmarkExploreRequests(b *testing.B) {
	name := os.Getenv("HEAPCONV_BENCH_NEW")
	if name == "" {
		b.Skip("set HEAPCONV_BENCH_NEW to a snapshot")
	}
	h, err := heapconv.ReadHeap(name, nil)
	if err != nil {
		b.Fatal(err)
	}
	srv, err := explore.New([]analysis.Heap{h}, explore.Options{Token: "t"})
	if err != nil {
		b.Fatal(err)
	}
	handler := srv.Handler()
	get := func(path string, v any) time.Duration {
		req := httptest.NewRequest("GET", "http://127.0.0.1"+path, nil)
		req.Header.Set("Authorization", "Bearer t")
		rec := httptest.NewRecorder()
		start := time.Now()
		handler.ServeHTTP(rec, req)
		d := time.Since(start)
		if rec.Code != http.StatusOK {
			b.Fatalf("%s: %d %s", path, rec.Code, rec.Body)
		}
		if v != nil {
			if err := json.Unmarshal(rec.Body.Bytes(), v); err != nil {
				b.Fatal(err)
			}
		}
		return d
	}
	// The first object's page waits until every view can be answered
	// (explore.New returns once the Summary can be): not counted.
	get("/api/v1/heaps/0/objects/0", nil)
	n := h.Snapshot.Nodes.Len()
	times := map[string][]time.Duration{}
	for b.Loop() {
		var classes explore.Page[explore.Class]
		times["classes"] = append(times["classes"], get("/api/v1/heaps/0/classes", &classes))
		times["class objects"] = append(times["class objects"], get(fmt.Sprintf("/api/v1/heaps/0/classes/%d/objects", classes.Items[0].Index), nil))
		// The class of the most objects too, whose first page sorts them.
		var byCount explore.Page[explore.Class]
		get("/api/v1/heaps/0/classes?sort=count&limit=1", &byCount)
		k := "largest class's objects"
		times[k] = append(times[k], get(fmt.Sprintf("/api/v1/heaps/0/classes/%d/objects", byCount.Items[0].Index), nil))
		times[k+", again"] = append(times[k+", again"], get(fmt.Sprintf("/api/v1/heaps/0/classes/%d/objects?cursor=100", byCount.Items[0].Index), nil))
		rng := rand.New(rand.NewPCG(1, 2))
		for range 200 {
			o := fmt.Sprintf("/api/v1/heaps/0/objects/%d", rng.IntN(n))
			for _, v := range []string{"", "/fields", "/retainers", "/path", "/dominators", "/dominated"} {
				k := "object" + v
				times[k] = append(times[k], get(o+v, nil))
			}
		}
	}
	pct := func(d []time.Duration, p float64) float64 {
		slices.Sort(d)
		return float64(d[min(len(d)-1, int(p*float64(len(d))))].Microseconds()) / 1000
	}
	var all []time.Duration
	worst, worstName := 0.0, ""
	for k, d := range times {
		all = append(all, d...)
		if p := pct(d, 0.95); p > worst {
			worst, worstName = p, k
		}
	}
	b.ReportMetric(pct(all, 0.5), "p50-ms")
	b.ReportMetric(pct(all, 0.95), "p95-ms")
	b.ReportMetric(float64(slices.MaxFunc(all, cmp.Compare[time.Duration]).Microseconds())/1000, "max-ms")
	b.ReportMetric(worst, "worst-p95-ms")
	b.Logf("slowest kind of request at the 95th percentile: %s (%.1f ms)", worstName, worst)
	for k, d := range times {
		if len(d) < 10 {
			b.Logf("%s: %.1f ms", k, pct(d, 1))
		}
	}
}
