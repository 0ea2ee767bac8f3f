package explore

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/analysis"
	"github.com/heapconv/heapconv/ir/irtest"
)

// serve serves heaps for a test.
func serve(t *testing.T, heaps ...analysis.Heap) (*Server, *httptest.Server) {
	t.Helper()
	srv, err := New(heaps, Options{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	return srv, ts
}

// TestEmptyHeap: a heap without nodes answers every list empty.
func TestEmptyHeap(t *testing.T) {
	f := &ir.File{Format: "test", Strings: []string{""}}
	s := &ir.Snapshot{NodeKinds: []string{"object"}, EdgeKinds: []ir.EdgeKind{{Name: "ref"}}, Root: ir.NoNode}
	irtest.Build(s, nil, false)
	f.Snapshots = []*ir.Snapshot{s}
	_, ts := serve(t, analysis.Heap{File: f, Snapshot: s})
	for _, path := range []string{"/api/v1/heaps/0/dominator-tree", "/api/v1/heaps/0/classes", "/api/v1/heaps/0/kinds", "/api/v1/heaps/0/search?q=x"} {
		if code := get(t, ts, path, nil); code != 200 {
			t.Errorf("%s: status %d", path, code)
		}
	}
	if code := get(t, ts, "/api/v1/heaps/0/objects/0", nil); code != 404 {
		t.Errorf("object 0 of no nodes: status %d", code)
	}
}

// TestLongChainsPaged: the dominator chain and the retainer path of an
// object at the end of a long list are answered a page at a time.
func TestLongChainsPaged(t *testing.T) {
	const n = 2500
	f := &ir.File{Format: "test", Strings: []string{""}}
	str := irtest.Strings(f, "root", "Link", "next")
	s := &ir.Snapshot{NodeKinds: []string{"synthetic", "object"}, EdgeKinds: []ir.EdgeKind{{Name: "ref"}}, Root: 0}
	nodes := make([]irtest.Node, n+1)
	nodes[0] = irtest.Node{Kind: 0, Name: str[0], Edges: []irtest.Edge{{0, str[2], 1}}}
	for i := 1; i <= n; i++ {
		nodes[i] = irtest.Node{Kind: 1, Name: str[1], Size: 8}
		if i < n {
			nodes[i].Edges = []irtest.Edge{{0, str[2], uint32(i + 1)}}
		}
	}
	irtest.Build(s, nodes, false)
	f.Snapshots = []*ir.Snapshot{s}
	_, ts := serve(t, analysis.Heap{File: f, Snapshot: s})
	for _, c := range []struct {
		what  string
		total int
	}{{"dominators", n + 1}, {"path", n}} {
		var got Page[Object]
		get(t, ts, fmt.Sprintf("/api/v1/heaps/0/objects/%d/%s?limit=1000", n, c.what), &got)
		if got.Total != c.total || len(got.Items) != MaxLimit || got.Next != "1000" {
			t.Errorf("/%s: total %d, %d items, next %q; want %d, %d and a cursor", c.what, got.Total, len(got.Items), got.Next, c.total, MaxLimit)
		}
		var last Page[Object]
		get(t, ts, fmt.Sprintf("/api/v1/heaps/0/objects/%d/%s?limit=1000&cursor=2000", n, c.what), &last)
		if len(last.Items) != c.total-2000 || last.Next != "" || last.Items[len(last.Items)-1].Node != n {
			t.Errorf("/%s, last page: %d items, next %q, ending at %+v", c.what, len(last.Items), last.Next, last.Items[len(last.Items)-1])
		}
	}
}

// TestCompareBounded: a heap given twice is refused, and only the last
// few comparisons are kept, without the navigators they made.
func TestCompareBounded(t *testing.T) {
	srv, ts := serve(t, testHeap(), testHeap(), testHeap())
	if code := get(t, ts, "/api/v1/compare?heaps=0,0", nil); code != 400 {
		t.Errorf("heaps=0,0: status %d, want 400", code)
	}
	for _, list := range []string{"0,1", "1,0", "0,2", "2,0", "1,2", "2,1", "0,1,2"} {
		if code := get(t, ts, "/api/v1/compare?heaps="+list, nil); code != 200 {
			t.Errorf("heaps=%s: status %d", list, code)
		}
	}
	srv.compared.mu.Lock()
	defer srv.compared.mu.Unlock()
	if len(srv.compared.made) > keptComparisons {
		t.Errorf("%d comparisons kept, want at most %d", len(srv.compared.made), keptComparisons)
	}
	for key, c := range srv.compared.made {
		if c.c != nil && c.c.Navigator() != nil {
			t.Errorf("comparison %s keeps a navigator", key)
		}
	}
}

// TestStrictAddresses: an object, class or heap has one address, and an
// answer's references of a path carry no object of their own.
func TestStrictAddresses(t *testing.T) {
	ts := newTestServer(t)
	for _, path := range []string{"/api/v1/heaps/0/objects/+1", "/api/v1/heaps/0/objects/01", "/api/v1/heaps/+0/classes",
		"/api/v1/heaps/0/classes/-0/objects", "/api/v1/heaps/0/objects/1%20"} {
		if code := get(t, ts, path, nil); code != 404 {
			t.Errorf("%s: status %d, want 404", path, code)
		}
	}
	if code := get(t, ts, "/api/v1/heaps/0/classes?cursor=+5", nil); code != 400 {
		t.Errorf("cursor +5: status %d, want 400", code)
	}
	req, _ := http.NewRequest("GET", ts.URL+"/api/v1/heaps/0/objects/4/path", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if strings.Contains(string(b), `"object":{`) {
		t.Errorf("a path's edges carry objects: %s", b)
	}
}

// TestBearerScheme: the Authorization scheme's name is case-insensitive.
func TestBearerScheme(t *testing.T) {
	ts := newTestServer(t)
	for _, auth := range []string{"bearer " + token, "BEARER " + token, "Bearer  " + token} {
		req, _ := http.NewRequest("GET", ts.URL+"/api/v1/heaps", nil)
		req.Header.Set("Authorization", auth)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Errorf("Authorization %q: status %d", auth, res.StatusCode)
		}
	}
}
