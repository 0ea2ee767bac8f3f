package heapconv_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/heapconv/heapconv"
	"github.com/heapconv/heapconv/capture"
	"github.com/heapconv/heapconv/internal/fakevm"
)

// Take a heap snapshot of a running Dart program (a Flutter app under
// `flutter run` prints its VM service's URI) and write it as a file Chrome
// DevTools opens. A scripted VM stands in for the program here.
func ExampleCaptureFile() {
	data, err := os.ReadFile("testdata/dart/synthetic_vm_layout.dartheap")
	if err != nil {
		log.Fatal(err)
	}
	vm := &fakevm.DartVM{AuthCode: "AbCd1234=", Version: "3.7.3", Isolates: []string{"main"}, Chunks: [][]byte{data}}
	vm.Start()
	defer vm.Close()
	uri := vm.URI() // "http://127.0.0.1:PORT/AbCd1234=/", as the VM prints it

	dir, err := os.MkdirTemp("", "heapconv-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	r, err := heapconv.CaptureFile(context.Background(), uri, filepath.Join(dir, "app.heapsnapshot"), &heapconv.CaptureOptions{
		Capture: capture.Options{GC: true},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(r.Producer.VM, r.Producer.Target)
	fmt.Println(r.From, "->", r.To, "received", r.Received[0], "bytes")
	// Output:
	// Dart 3.7.3 (stable) isolate main
	// dart -> v8 received 434 bytes
}
