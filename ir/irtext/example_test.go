package irtext_test

import (
	"log"
	"os"
	"strings"

	"github.com/heapconv/heapconv/ir/irtext"
)

// A file written in the text form, read and printed again: what tests write
// by hand is what `heapconv dump` prints.
func Example() {
	const text = `heapir 8
format "example"
format_version ""
producer ""
strings 3
  s0 ""
  s1 "Holder"
  s2 "item"
classes 0
snapshot 0 name="" capture_time=0
  node_kinds "object"
  edge_kinds "property"
  root n0
  nodes 2 edges 1 values 0
  n0 "object" "Holder" id=1 self=16
    "property" "item" -> n1
  n1 "object" "" id=3 self=8
`
	f, err := irtext.Read(strings.NewReader(text))
	if err != nil {
		log.Fatal(err)
	}
	if err := irtext.Write(os.Stdout, f); err != nil {
		log.Fatal(err)
	}
	// Output:
	// heapir 8
	// format "example"
	// format_version ""
	// producer ""
	// strings 3
	//   s0 ""
	//   s1 "Holder"
	//   s2 "item"
	// classes 0
	// snapshot 0 name="" capture_time=0
	//   node_kinds "object"
	//   edge_kinds "property"
	//   root n0
	//   nodes 2 edges 1 values 0
	//   n0 "object" "Holder" id=1 self=16
	//     "property" "item" -> n1
	//   n1 "object" "" id=3 self=8
}
