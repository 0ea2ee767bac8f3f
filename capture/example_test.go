package capture_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/heapconv/heapconv/capture"
	"github.com/heapconv/heapconv/internal/fakevm"
)

// Take a series of snapshots of a Node process, over one connection, and
// stream each to a writer as it arrives, in V8's own format. A scripted
// inspector stands in for the process here.
func ExampleConnect() {
	vm := &fakevm.Inspector{Browser: "node.js/v20.20.2", Pages: []fakevm.Page{{Type: "node", Title: "server.js"}},
		Chunks: []string{`{"snapshot":`, `{}}`}}
	vm.Start()
	defer vm.Close()

	ctx := context.Background()
	s, err := capture.Connect(ctx, vm.URL(), nil) // or "ws://…/<uuid>", or "pid:N"
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	for range 2 {
		n, err := s.Snapshot(ctx, os.Stdout)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(" :", n, "bytes from", s.Producer().VM, s.Producer().Format)
	}
	// Output:
	// {"snapshot":{}} : 15 bytes from node.js/v20.20.2 v8
	// {"snapshot":{}} : 15 bytes from node.js/v20.20.2 v8
}
