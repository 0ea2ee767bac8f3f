package explore_test

import (
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/heapconv/heapconv"
	"github.com/heapconv/heapconv/explore"
	"github.com/heapconv/heapconv/ir/analysis"
)

// A Server answers the API for heaps read with the heapconv package; here
// it is asked, through its handler, for the three classes of a MoarVM
// snapshot that retain the most, as the page's Summary shows them.
func ExampleServer() {
	h, err := heapconv.ReadHeap("../testdata/moarvm/nqp-3snap.mvmheap#2", nil)
	if err != nil {
		log.Fatal(err)
	}
	srv, err := explore.New([]analysis.Heap{h}, explore.Options{Names: []string{"nqp"}})
	if err != nil {
		log.Fatal(err)
	}
	// What a browser or a script sends: the token, and a Host that is
	// this machine's address. (srv.Serve answers on a listener instead.)
	req := httptest.NewRequest("GET", "http://127.0.0.1/api/v1/heaps/0/classes?limit=3", nil)
	req.Header.Set("Authorization", "Bearer "+srv.Token())
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		log.Fatal(rec.Body)
	}
	var page explore.Page[explore.Class]
	if err := json.Unmarshal(rec.Body.Bytes(), &page); err != nil {
		log.Fatal(err)
	}
	for _, c := range page.Items {
		fmt.Printf("%-14s %6d objects %9d bytes retained\n", c.Label, c.Count, c.Retained)
	}
	fmt.Println("more:", page.Next != "")
	// Output:
	// VMString        70101 objects   5051235 bytes retained
	// BOOTHash          493 objects   4992964 bytes retained
	// NQPArray        20600 objects   4664350 bytes retained
	// more: true
}
