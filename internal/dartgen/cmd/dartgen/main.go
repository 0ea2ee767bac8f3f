// Command dartgen writes a generated Dart VM heap snapshot ("dartheap")
// file; see package heapconv/internal/dartgen.
//
//	go run ./internal/dartgen/cmd/dartgen -seed 1 -objects 300000 -gen vm -o out.dartheap
//
// -gen is vm (current VM writer), nohash (no identity-hash section) or
// export (DevTools export form). A one-line summary goes to standard error.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/heapconv/heapconv/internal/dartgen"
)

func main() {
	seed := flag.Int64("seed", 1, "random seed (same seed, same file)")
	objects := flag.Int("objects", 300_000, "approximate number of heap objects")
	genName := flag.String("gen", "vm", "generation: vm, nohash or export")
	isolates := flag.Int("isolates", 1, "number of isolates")
	out := flag.String("o", "", "output file (required; - for standard output)")
	flag.Parse()
	if *out == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: dartgen [-seed N] [-objects N] [-gen vm|nohash|export] [-isolates N] -o FILE")
		os.Exit(2)
	}
	gen, err := dartgen.ParseGeneration(*genName)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if err := run(*out, dartgen.Options{Seed: *seed, Objects: *objects, Generation: gen, Isolates: *isolates}); err != nil {
		fmt.Fprintln(os.Stderr, "dartgen:", err)
		os.Exit(1)
	}
}

func run(path string, opts dartgen.Options) error {
	start := time.Now()
	f := os.Stdout
	if path != "-" {
		var err error
		if f, err = os.Create(path); err != nil {
			return err
		}
	}
	w := bufio.NewWriterSize(f, 1<<20)
	s, err := dartgen.Generate(w, opts)
	if err == nil {
		err = w.Flush()
	}
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
	fmt.Fprintf(os.Stderr, "%s: %d bytes, %d objects (%d heap, %d VM, %d Smi), %d classes, %d references, %d external properties, %s\n",
		path, s.FileSize, s.ObjectCount, s.HeapObjects, s.VMObjects, s.SmiObjects, s.ClassCount, s.ReferenceCount,
		s.ExternalPropertyCount, time.Since(start).Round(time.Millisecond))
	return nil
}
