package irstream_test

import (
	"bytes"
	"errors"
	"fmt"
	"log"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/irstream"
)

// smallFile is a heap of two objects, the first holding the second.
func smallFile() *ir.File {
	s := &ir.Snapshot{
		Root:      0,
		NodeKinds: []string{"object"},
		EdgeKinds: []ir.EdgeKind{{Name: "property"}},
		Nodes: ir.Nodes{
			Kind:      []uint8{0, 0},
			Name:      []uint32{1, 2},
			ID:        ir.UintsOf(1, 3),
			SelfSize:  ir.UintsOf(16, 8),
			FirstEdge: []uint32{0, 1, 1},
		},
		Edges: ir.Edges{Kind: []uint8{0}, Name: []uint32{3}, Target: []uint32{1}},
	}
	return &ir.File{Format: "example", Strings: []string{"", "Holder", "Item", "item"}, Snapshots: []*ir.Snapshot{s}}
}

// A file is archived compressed and read back as it was.
func Example() {
	var archive bytes.Buffer
	if err := irstream.EncodeZstd(&archive, smallFile()); err != nil {
		log.Fatal(err)
	}
	f, err := irstream.Decode(&archive) // plain or compressed, told by content
	if err != nil {
		log.Fatal(err)
	}
	s := f.Snapshots[0]
	fmt.Printf("%d nodes, %d edge, %d bytes\n", s.Nodes.Len(), s.Edges.Len(), s.Nodes.SelfSize.At(0)+s.Nodes.SelfSize.At(1))
	fmt.Println(len(ir.Diff(smallFile(), f, 1)) == 0)
	// Output:
	// 2 nodes, 1 edge, 24 bytes
	// true
}

// A stream written by a newer heapconv is refused with ir.ErrNewerVersion,
// which a program can tell from damage.
func ExampleDecode_newerVersion() {
	stream := append(bytes.Clone(irstream.Magic), ir.Version+1)
	_, err := irstream.Decode(bytes.NewReader(stream))
	fmt.Println(errors.Is(err, ir.ErrNewerVersion))
	// Output: true
}

// A long series is written a snapshot at a time, and one snapshot read
// back from the archive's index without the others.
func ExampleWriter() {
	head := smallFile()
	var archive bytes.Buffer
	w, err := irstream.NewWriter(&archive, head, 3, irstream.WriterOptions{Compress: true})
	if err != nil {
		log.Fatal(err)
	}
	for n := range 3 {
		s := *head.Snapshots[0]
		s.CaptureTime = int64(n + 1) // another snapshot of the same heap
		if err := w.WriteSnapshot(&s); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	data := archive.Bytes()
	count, err := irstream.CountSnapshots(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		log.Fatal(err)
	}
	f, err := irstream.DecodeSnapshot(bytes.NewReader(data), int64(len(data)), 2)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(count, "snapshots; the last taken at", f.Snapshots[0].CaptureTime)
	// Output: 3 snapshots; the last taken at 3
}
