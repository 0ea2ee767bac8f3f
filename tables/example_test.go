package tables_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	pq "github.com/parquet-go/parquet-go"

	"github.com/heapconv/heapconv/tables"
)

// Write a heap's tables, then read one back with a Parquet reader (any
// engine would do).
func ExampleWrite() {
	dir, err := os.MkdirTemp("", "tables-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	loss, err := tables.Write(dir, smallHeap(), &tables.Options{FileID: "small"})
	if err != nil {
		log.Fatal(err)
	}
	classes, err := pq.ReadFile[tables.ClassRow](filepath.Join(dir, "classes.parquet"))
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range classes {
		fmt.Printf("%s snapshot %d: %d × %s, %d bytes\n", c.FileID, c.Snapshot, c.Count, c.Name, c.SelfSize)
	}
	fmt.Println(len(loss), "kind of loss")
	// Output:
	// small snapshot 0: 1 × (synthetic), 0 bytes
	// small snapshot 0: 2 × Thing, 32 bytes
	// small snapshot 0: 1 × (string), 24 bytes
	// small snapshot 1: 1 × (synthetic), 0 bytes
	// small snapshot 1: 3 × Thing, 48 bytes
	// small snapshot 1: 1 × (string), 24 bytes
	// 1 kind of loss
}
