package report_test

import (
	"bytes"
	"fmt"
	"log"
	"strings"

	"github.com/heapconv/heapconv"
	"github.com/heapconv/heapconv/ir/analysis"
	"github.com/heapconv/heapconv/report"
)

// Write the report of the three snapshots of a MoarVM file: the last in
// detail, with the growth of each class over the three.
func ExampleWrite() {
	f, err := heapconv.ReadFile("../testdata/moarvm/nqp-3snap.mvmheap", nil)
	if err != nil {
		log.Fatal(err)
	}
	var heaps []analysis.Heap
	for _, s := range f.Snapshots {
		heaps = append(heaps, analysis.Heap{File: f, Snapshot: s})
	}
	var page bytes.Buffer
	if err := report.Write(&page, heaps, &report.Options{Title: "nqp"}); err != nil {
		log.Fatal(err)
	}
	for _, part := range []string{`id="summary"`, `id="treemap"`, `id="growth"`, "<script"} {
		fmt.Println(part, strings.Contains(page.String(), part))
	}
	// Output:
	// id="summary" true
	// id="treemap" true
	// id="growth" true
	// <script true
}
