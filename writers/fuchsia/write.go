// Package fuchsia writes the IR as a Fuchsia heapdump snapshot: the pprof
// profile (perftools.profiles.Profile protocol buffer) that
// `ffx profile heapdump snapshot` writes, gzip-compressed as the newest ffx
// does (Options.NoGzip for the older, uncompressed layout), plus the
// --output-contents-dir directory when the IR has block contents and
// Options.ContentsDir is set.
//
// The format (the profile, the contents directory, and what this writer
// writes) is described in docs/formats/fuchsia.md; ir/fuchsia/section.go says how
// it maps into the IR, and package ir/fuchsia holds what the writer shares
// with readers/fuchsia (field numbers, labels, contents file names,
// allocation sites). Samples are written one per block, with the labels
// ffx --with-tags writes (process_name, process_koid, address, bytes,
// timestamp, thread) and any others the IR keeps. IR read from a Fuchsia
// profile is written back exactly as github.com/google/pprof/profile sees
// it (the same samples, values, labels, mappings, locations, functions and
// Profile fields; not the same bytes: the string table is rebuilt and label
// order is pprof's map order anyway). Edges derived from contents are not
// written: pprof has no place for them.
//
// IR from another format (a V8, Dart or MoarVM graph) goes through Convert:
// one sample per object, whose stack is its class and the classes of its
// nearest dominators, so that `pprof -top` ranks classes by bytes; each
// class has a mapping of its own naming it and its library, which a FIDL
// stream (no function names) carries too.
package fuchsia

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/klauspost/compress/gzip"

	"github.com/heapconv/heapconv/ir"
	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
)

// Options control Write.
type Options struct {
	// NoGzip writes the profile uncompressed, as ffx did before it gzipped
	// (and as old dupefinder builds need).
	NoGzip bool
	// ContentsDir, when set and the IR has block contents, is the
	// directory to write them to, one file per block as ffx
	// --output-contents-dir names them. It is created if needed.
	ContentsDir string
}

// Write writes f as a heapdump pprof profile. IR without a Fuchsia section
// is converted first (Convert); the loss report lists what the profile
// cannot hold.
func Write(w io.Writer, f *ir.File, opts Options) (ir.LossReport, error) {
	f, loss, err := prepare(f, fuchsiair.Format, "a pprof profile")
	if err != nil {
		return loss, err
	}
	data, err := Encode(f)
	if err != nil {
		return loss, err
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	if opts.NoGzip {
		_, err = bw.Write(data)
	} else {
		zw := gzip.NewWriter(bw)
		if _, err = zw.Write(data); err == nil {
			err = zw.Close()
		}
	}
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return loss, fmt.Errorf("fuchsia: writing the profile: %w", err)
	}
	if opts.ContentsDir != "" {
		if err := WriteContents(opts.ContentsDir, f); err != nil {
			return loss, err
		}
	} else {
		blocks := 0
		for _, s := range f.Snapshots {
			if len(fuchsiair.Of(s).Contents) > 0 {
				for _, fl := range fuchsiair.Of(s).Flags {
					if fl&fuchsiair.FlagContents != 0 {
						blocks++
					}
				}
			}
		}
		if blocks > 0 {
			loss.Add(fuchsiair.LossContents, int64(blocks), "block contents are not written (no contents directory given)")
		}
	}
	return loss, nil
}

// prepare is what both writers do first: convert IR without a Fuchsia
// section, validate, and report the derived edges the output (named by
// format, and for the loss report by what) has no place for.
func prepare(f *ir.File, format, what string) (*ir.File, ir.LossReport, error) {
	var loss ir.LossReport
	if fuchsiair.FileOf(f) == nil {
		var err error
		if f, loss, err = convert(f, what); err != nil {
			return nil, nil, err
		}
	}
	if err := f.Validate(); err != nil {
		return nil, loss, fmt.Errorf("%s: the IR is invalid: %w", format, err)
	}
	for k, s := range f.Snapshots {
		if fuchsiair.Of(s) == nil {
			return nil, loss, fmt.Errorf("%s: snapshot %d has no Fuchsia section", format, k)
		}
		if format == fuchsiair.Format {
			loss.Merge(fuchsiair.Of(s).StreamLoss(what))
			// A stream's counts and sizes are uint64, a profile's int64.
			capped := 0
			for i := range s.Nodes.Len() {
				if fuchsiair.Of(s).Count.At(i) > math.MaxInt64 || s.Nodes.SelfSize.At(i) > math.MaxInt64 {
					capped++
				}
			}
			if capped > 0 {
				loss.Add(ir.LossSizesCapped, int64(capped), "counts and sizes of 2^63 or more are capped at 2^63-1 (a profile's sample values are int64)")
			}
		}
		if fuchsiair.Of(s).DerivedEdges && s.Edges.Len() > 0 {
			loss.Addf(ir.LossDerivedEdges, int64(s.Edges.Len()), "edges derived from block contents (heuristic) are not written: %s has no edges", what)
		}
	}
	return f, loss, nil
}

// WriteContents writes the block contents of f's snapshots to dir, one file
// per block that has them, named as ffx names them
// (fuchsiair.ContentsName: 0x<address>, or <koid>-0x<address> in a
// multi-process snapshot).
func WriteContents(dir string, f *ir.File) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("fuchsia: contents directory: %w", err)
	}
	var name []byte
	for _, s := range f.Snapshots {
		fx := fuchsiair.Of(s)
		if fx == nil {
			continue
		}
		for i := 0; i < s.Nodes.Len(); i++ {
			b, ok := fx.ContentsOf(i)
			if !ok {
				continue
			}
			name = fuchsiair.AppendContentsName(name[:0], fx, s.Nodes.ID.At(i))
			if err := os.WriteFile(filepath.Join(dir, string(name)), b, 0o644); err != nil {
				return fmt.Errorf("fuchsia: contents: %w", err)
			}
		}
	}
	return nil
}
