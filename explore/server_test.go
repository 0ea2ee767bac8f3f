package explore

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/analysis"
	"github.com/heapconv/heapconv/ir/irtest"
)

// testHeap: a root holds A, A holds two B<&> by "x" and "y", one of which
// holds the string "hello <b>" (a value), and a weak edge from the
// second B to the first.
func testHeap() analysis.Heap {
	f := &ir.File{Format: "test", Strings: []string{""}}
	str := irtest.Strings(f, "root", "A", "B<&>", "x", "y", "s", "text", "hello <b>", "w")
	s := &ir.Snapshot{NodeKinds: []string{"synthetic", "object", "string"}, EdgeKinds: []ir.EdgeKind{{Name: "ref"}, {Name: ir.EdgeWeak}}, Root: 0}
	irtest.Build(s, []irtest.Node{
		{Kind: 0, Name: str[0], Edges: []irtest.Edge{{0, str[3], 1}}},
		{Kind: 1, Name: str[1], Size: 100, Edges: []irtest.Edge{{0, str[3], 2}, {0, str[4], 3}}},
		{Kind: 1, Name: str[2], Size: 300, Edges: []irtest.Edge{{0, str[5], 4}}},
		{Kind: 1, Name: str[2], Size: 200, Edges: []irtest.Edge{{1, str[8], 2}}},
		{Kind: 2, Name: str[6], Size: 20},
	}, false)
	s.Values = ir.Values{Node: []uint32{4}, Kind: []ir.ValueKind{ir.ValueString}, Bits: []uint64{uint64(str[7])}, Aux: []uint64{0}}
	f.Snapshots = []*ir.Snapshot{s}
	return analysis.Heap{File: f, Snapshot: s}
}

const token = "secret-token"

func newTestServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv, err := New([]analysis.Heap{testHeap(), testHeap()}, Options{Names: []string{"first", ""}, Token: token})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	return ts
}

// get requests path with the token and decodes the JSON answer into v,
// returning the status.
func get(t *testing.T, ts *httptest.Server, path string, v any) int {
	t.Helper()
	req, _ := http.NewRequest("GET", ts.URL+path, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if v != nil {
		if err := json.Unmarshal(body, v); err != nil {
			t.Fatalf("%s: %v: %s", path, err, body)
		}
	}
	return res.StatusCode
}

func TestHeaps(t *testing.T) {
	ts := newTestServer(t)
	var got struct {
		Version int
		Heaps   []Heap
	}
	if code := get(t, ts, "/api/v1/heaps", &got); code != 200 {
		t.Fatalf("status %d", code)
	}
	if got.Version != APIVersion || len(got.Heaps) != 2 {
		t.Fatalf("got %+v", got)
	}
	// As info counts them.
	sum, err := analysis.SummarizeBy(testHeap().File, testHeap().Snapshot, 100, analysis.ByRetained)
	if err != nil {
		t.Fatal(err)
	}
	want := Heap{Index: 0, Name: "first", Format: "test", Nodes: 5, Edges: 5, Objects: sum.Objects, SelfSize: sum.SelfSize, Classes: int(sum.Classes)}
	if got.Heaps[0] != want {
		t.Errorf("heap 0 = %+v, want %+v", got.Heaps[0], want)
	}
	if got.Heaps[1].Name != "heap 1" {
		t.Errorf("heap 1 is named %q, want the default", got.Heaps[1].Name)
	}
}

func TestClasses(t *testing.T) {
	ts := newTestServer(t)
	var got Page[Class]
	get(t, ts, "/api/v1/heaps/0/classes", &got)
	// The summary's rows are info --by retained's.
	sum, err := analysis.SummarizeBy(testHeap().File, testHeap().Snapshot, 100, analysis.ByRetained)
	if err != nil {
		t.Fatal(err)
	}
	if got.Total != len(sum.TopClasses) || len(got.Items) != len(sum.TopClasses) {
		t.Fatalf("%d classes, want %d", got.Total, len(sum.TopClasses))
	}
	for k, c := range sum.TopClasses {
		g := got.Items[k]
		if g.Label != c.Label() || g.Count != c.Count || g.SelfSize != c.SelfSize || g.Retained != *c.Retained {
			t.Errorf("row %d = %+v, want %+v (retained %d)", k, g, c, *c.Retained)
		}
	}
	if got.Items[0].Label != "A" || got.Items[0].Retained != 620 {
		t.Errorf("first row %+v, want A retaining 620", got.Items[0])
	}
	// Paging, sorting and filtering.
	var p1, p2 Page[Class]
	get(t, ts, "/api/v1/heaps/0/classes?sort=name&limit=3", &p1)
	if p1.Total != 4 || len(p1.Items) != 3 || p1.Next == "" || p1.Items[0].Label != "(string)" || p1.Items[2].Label != "A" {
		t.Fatalf("page 1 = %+v", p1)
	}
	get(t, ts, "/api/v1/heaps/0/classes?sort=name&limit=3&cursor="+p1.Next, &p2)
	if len(p2.Items) != 1 || p2.Next != "" || p2.Items[0].Label != "B<&>" {
		t.Fatalf("page 2 = %+v", p2)
	}
	var f Page[Class]
	get(t, ts, "/api/v1/heaps/0/classes?filter=b%3C", &f)
	if f.Total != 1 || f.Items[0].Label != "B<&>" || f.Items[0].Count != 2 {
		t.Fatalf("filtered = %+v", f)
	}
	var objs Page[Object]
	get(t, ts, fmt.Sprintf("/api/v1/heaps/0/classes/%d/objects", f.Items[0].Index), &objs)
	if objs.Total != 2 || objs.Items[0].Node != 2 || objs.Items[0].Retained != 320 || objs.Items[1].Node != 3 {
		t.Fatalf("instances = %+v, want node 2 (retaining 320) then 3", objs)
	}
}

func TestObject(t *testing.T) {
	ts := newTestServer(t)
	var d ObjectDetail
	if code := get(t, ts, "/api/v1/heaps/0/objects/2", &d); code != 200 {
		t.Fatalf("status %d", code)
	}
	if d.Class != "B<&>" || d.SelfSize != 300 || d.Retained != 320 || d.Fields != 1 || d.Retainers != 1 || d.WeakRetainers != 1 ||
		d.Dominated != 1 || d.Dominator == nil || d.Dominator.Node != 1 || d.Distance != 2 {
		t.Errorf("object 2 = %+v", d)
	}
	var fields, retainers Page[Reference]
	get(t, ts, "/api/v1/heaps/0/objects/2/fields", &fields)
	if fields.Total != 1 || fields.Items[0].Name != "s" || fields.Items[0].Object.Shown != `"hello <b>"` {
		t.Errorf("fields = %+v", fields)
	}
	// Retainers: the strong one, then the weak one, marked.
	get(t, ts, "/api/v1/heaps/0/objects/2/retainers", &retainers)
	if retainers.Total != 2 || retainers.Items[0].Object.Node != 1 || retainers.Items[0].Name != "x" || retainers.Items[0].Weak ||
		retainers.Items[1].Object.Node != 3 || !retainers.Items[1].Weak {
		t.Errorf("retainers = %+v", retainers)
	}
	var chain, dominated Page[Object]
	get(t, ts, "/api/v1/heaps/0/objects/4/dominators", &chain)
	if chain.Total != 4 || chain.Items[0].Node != 0 || chain.Items[3].Node != 4 {
		t.Errorf("dominators of 4 = %+v", chain)
	}
	get(t, ts, "/api/v1/heaps/0/objects/1/dominated", &dominated)
	if dominated.Total != 2 || dominated.Items[0].Node != 2 || dominated.Items[1].Node != 3 {
		t.Errorf("dominated by 1 = %+v", dominated)
	}
	var path Page[struct {
		Object
		Edge *Reference
	}]
	get(t, ts, "/api/v1/heaps/0/objects/4/path", &path)
	if path.Total != 3 || path.Items[0].Node != 1 || path.Items[0].Edge.Name != "x" || path.Items[2].Node != 4 || path.Items[2].Edge != nil {
		t.Errorf("path to 4 = %+v", path)
	}
}

func TestSearch(t *testing.T) {
	ts := newTestServer(t)
	var got struct{ Objects, Strings []Object }
	get(t, ts, "/api/v1/heaps/0/search?q=%234", &got)
	if len(got.Objects) != 1 || got.Objects[0].Node != 4 {
		t.Errorf("#4 finds %+v", got.Objects)
	}
	get(t, ts, "/api/v1/heaps/0/search?q=lo+%3Cb", &got)
	if len(got.Strings) != 1 || got.Strings[0].Node != 4 {
		t.Errorf(`"lo <b" finds %+v`, got.Strings)
	}
}

// TestErrors: bad heaps, objects, classes, paging and paths are answered
// with a status and a JSON message.
func TestErrors(t *testing.T) {
	ts := newTestServer(t)
	for path, want := range map[string]int{
		"/api/v1/heaps/2/classes":               404,
		"/api/v1/heaps/x/classes":               404,
		"/api/v1/heaps/0/objects/5":             404,
		"/api/v1/heaps/0/objects/-1":            404,
		"/api/v1/heaps/0/objects/@12":           404,
		"/api/v1/heaps/0/classes/99/objects":    404,
		"/api/v1/heaps/0/classes?limit=0":       400,
		"/api/v1/heaps/0/classes?limit=100000":  400,
		"/api/v1/heaps/0/classes?cursor=x":      400,
		"/api/v1/heaps/0/classes?sort=size":     400,
		"/api/v1/heaps/0/search":                400,
		"/api/v1/nothing":                       404,
		"/api/v1/heaps/0/objects/1/fields?li=1": 200,
	} {
		var body struct{ Error string }
		code := get(t, ts, path, &body)
		if code != want || (want != 200 && body.Error == "") {
			t.Errorf("%s: status %d, message %q; want %d and a message", path, code, body.Error, want)
		}
	}
}

// TestSecurity: the token, the Host header and the method are checked on
// every request but the page's static files.
func TestSecurity(t *testing.T) {
	ts := newTestServer(t)
	u, _ := url.Parse(ts.URL)
	_, port, _ := net.SplitHostPort(u.Host)
	do := func(method, path, host, auth string) int {
		req, _ := http.NewRequest(method, ts.URL+path, nil)
		if host != "" {
			req.Host = host
		}
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	for _, c := range []struct {
		method, path, host, auth string
		want                     int
	}{
		{"GET", "/api/v1/heaps", "", "", 401},
		{"GET", "/api/v1/heaps", "", "Bearer wrong", 401},
		{"GET", "/api/v1/heaps?token=wrong", "", "", 401},
		{"GET", "/", "", "", 401},
		{"GET", "/api/v1/heaps?token=" + token, "", "", 200},
		{"GET", "/?token=" + token, "", "", 200},
		{"GET", "/api/v1/heaps", "", "Bearer " + token, 200},
		{"GET", "/static/app.js", "", "", 200},
		{"GET", "/static/nothing.js", "", "", 404},
		// DNS rebinding: a name that is not this machine's address.
		{"GET", "/api/v1/heaps", "attacker.example:" + port, "Bearer " + token, 403},
		{"GET", "/static/app.js", "attacker.example", "", 403},
		{"GET", "/api/v1/heaps", "localhost:" + port, "Bearer " + token, 200},
		{"GET", "/api/v1/heaps", "[::1]:" + port, "Bearer " + token, 200},
		// Nothing writes.
		{"POST", "/api/v1/heaps", "", "Bearer " + token, 405},
		{"PUT", "/", "", "Bearer " + token, 405},
		{"DELETE", "/api/v1/heaps/0", "", "Bearer " + token, 405},
	} {
		if got := do(c.method, c.path, c.host, c.auth); got != c.want {
			t.Errorf("%s %s (Host %q, Authorization %q): status %d, want %d", c.method, c.path, c.host, c.auth, got, c.want)
		}
	}
}

// TestPageIsStatic: the page holds no heap data (it asks the API), and
// its script never parses heap text as HTML.
func TestPageIsStatic(t *testing.T) {
	for _, name := range []string{"static/index.html", "static/app.js", "static/style.css"} {
		b, err := static.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if s := string(b); strings.Contains(s, "innerHTML") || strings.Contains(s, "insertAdjacentHTML") || strings.Contains(s, "http://") || strings.Contains(s, "https://") {
			t.Errorf("%s parses HTML from text or loads from the network", name)
		}
	}
}

func TestURL(t *testing.T) {
	srv, err := New([]analysis.Heap{testHeap()}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(srv.Token()) != 32 {
		t.Errorf("token %q: want 128 random bits in hex", srv.Token())
	}
	addr := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}
	if got, want := srv.URL(addr), "http://127.0.0.1:8080/?token="+srv.Token(); got != want {
		t.Errorf("URL = %q, want %q", got, want)
	}
}

// TestCompare: /compare answers what analysis.Compare (heapconv diff)
// finds, with the class table paged.
func TestCompare(t *testing.T) {
	ts := newTestServer(t)
	var got Comparison
	if code := get(t, ts, "/api/v1/compare?heaps=0,1&limit=2", &got); code != 200 {
		t.Fatalf("status %d", code)
	}
	want, err := analysis.Compare([]analysis.Heap{testHeap(), testHeap()}, analysis.CompareOptions{Retained: true})
	if err != nil {
		t.Fatal(err)
	}
	if got.Last != 1 || got.Classes.Total != len(want.Classes) || len(got.Classes.Items) != 2 || got.Classes.Next != "2" ||
		got.Classes.Items[0].Name != want.Classes[0].Name || len(got.Suspects) != len(want.Suspects) {
		t.Errorf("compare = %+v, want %+v", got, want)
	}
	var all Comparison
	get(t, ts, "/api/v1/compare", &all)
	if len(all.Heaps) != 2 {
		t.Errorf("without heaps=, compared %v, want every heap", all.Heaps)
	}
	for path, code := range map[string]int{"/api/v1/compare?heaps=0": 400, "/api/v1/compare?heaps=0,5": 404, "/api/v1/compare?heaps=0,x": 404} {
		if got := get(t, ts, path, nil); got != code {
			t.Errorf("%s: status %d, want %d", path, got, code)
		}
	}
}

// TestKinds: the statistics by kind count what the Summary counts.
func TestKinds(t *testing.T) {
	ts := newTestServer(t)
	var got Page[Kind]
	get(t, ts, "/api/v1/heaps/0/kinds", &got)
	want := []Kind{{Kind: "object", Count: 3, SelfSize: 600}, {Kind: "string", Count: 1, SelfSize: 20}, {Kind: "synthetic", Count: 1}}
	if got.Total != len(want) {
		t.Fatalf("kinds = %+v, want %+v", got, want)
	}
	for k := range want {
		if got.Items[k] != want[k] {
			t.Errorf("kind %d = %+v, want %+v", k, got.Items[k], want[k])
		}
	}
}

// TestDominatorTree: the tree's top is the root; each node's children are
// what /dominated lists.
func TestDominatorTree(t *testing.T) {
	ts := newTestServer(t)
	var top Page[Object]
	get(t, ts, "/api/v1/heaps/0/dominator-tree", &top)
	if top.Total != 1 || top.Items[0].Node != 0 || top.Items[0].Retained != 620 {
		t.Errorf("top = %+v, want the root retaining 620", top)
	}
	var kids Page[Object]
	get(t, ts, "/api/v1/heaps/0/objects/0/dominated", &kids)
	if kids.Total != 1 || kids.Items[0].Node != 1 {
		t.Errorf("the root's children = %+v, want A", kids)
	}
}
