// Command v8gen writes a generated V8 heap snapshot (.heapsnapshot, in
// Node 20's layout) of a given size or number of objects; see package
// heapconv/internal/v8gen.
//
//	go run ./internal/v8gen/cmd/v8gen -size 1000 -o /tmp/big.heapsnapshot
//	go run ./internal/v8gen/cmd/v8gen -items 100000 -seed 7 -o - | heapconv info -
//
// -size is the target size in MB (10^6 bytes; the file comes within a
// fraction of a percent of it), -items the number of Item objects instead.
// A one-line summary goes to standard error: the file, bytes, nodes, edges,
// strings, items and seconds. A file that cannot be written completely is
// removed.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/heapconv/heapconv/internal/v8gen"
)

func main() {
	size := flag.Float64("size", 0, "target file size in MB (10^6 bytes)")
	items := flag.Int("items", 0, "number of Item objects (instead of -size)")
	seed := flag.Int64("seed", 0, "seed: 0 is gen-big.sh's program exactly, others vary the tag strings")
	out := flag.String("o", "", "output file (required; - for standard output)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: v8gen (-size MB | -items N) [-seed N] -o FILE")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *out == "" || flag.NArg() != 0 || (*size > 0) == (*items > 0) || *size < 0 || *items < 0 {
		flag.Usage()
		os.Exit(2)
	}
	opts := v8gen.Options{Items: *items, TargetBytes: int64(*size * 1e6), Seed: *seed}
	if *size > 0 && opts.TargetBytes == 0 {
		opts.TargetBytes = 1
	}
	if err := run(*out, opts); err != nil {
		msg := err.Error()
		if !strings.HasPrefix(msg, "v8gen: ") {
			msg = "v8gen: " + msg
		}
		fmt.Fprintln(os.Stderr, msg)
		os.Exit(1)
	}
}

func run(path string, opts v8gen.Options) error {
	start := time.Now()
	if _, err := v8gen.Plan(opts); err != nil {
		return err // before creating the file
	}
	f := os.Stdout
	if path != "-" {
		var err error
		if f, err = os.Create(path); err != nil {
			return err
		}
	}
	s, err := v8gen.Write(f, opts)
	if path != "-" {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(path)
		}
	}
	if err != nil {
		return err
	}
	secs := time.Since(start).Seconds()
	fmt.Fprintf(os.Stderr, "%s: %d bytes, %d nodes, %d edges, %d strings, %d items, %.2f s (%.0f MB/s)\n",
		path, s.Bytes, s.Nodes, s.Edges, s.Strings, s.Items, secs, float64(s.Bytes)/1e6/secs)
	return nil
}
