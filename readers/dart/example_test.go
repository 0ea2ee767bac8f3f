package dart_test

import (
	"fmt"
	"log"
	"os"

	rdart "github.com/heapconv/heapconv/readers/dart"
)

// ExampleReadBytes reads a snapshot that is already in memory: its bytes
// are decoded where they are, without being copied into buffers.
func ExampleReadBytes() {
	data, err := os.ReadFile("testdata/synthetic_vm_layout.dartheap")
	if err != nil {
		log.Fatal(err)
	}
	f, err := rdart.ReadBytes(data, rdart.Options{})
	if err != nil {
		log.Fatal(err)
	}
	s := f.Snapshots[0]
	fmt.Printf("%d objects, %d references, %d classes\n", s.Nodes.Len(), s.Edges.Len(), f.Classes.Len())
	// Output: 10 objects, 9 references, 9 classes
}
