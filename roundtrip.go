package heapconv

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
	"github.com/heapconv/heapconv/ir/irstream"
	moarvmir "github.com/heapconv/heapconv/ir/moarvm"

	"github.com/heapconv/heapconv/ir"
)

// A Verdict is the outcome of one comparison of a round trip.
type Verdict struct {
	// Same is true when the data came back the same.
	Same bool
	// Text says what was compared and how it came out, with the first
	// difference when there is one, e.g. "v8 -> IR -> v8: byte-exact
	// (2817 bytes)".
	Text string
}

// RoundTrip runs the conformance round trip on the named file: it reads
// it, writes it again in its own format and compares the two at the level
// the format promises (byte for byte for V8, Dart and FIDL streams; the
// same blocks with the same decompressed contents for MoarVM, or the same
// graphs for a version 2 file; the same profile as pprof reads it for a
// pprof profile), then passes the data through the IR's msgpack+zstd
// encoding and compares again. A compressed file is compared by what it
// holds. It is how a producer of heap snapshots checks its writer against
// heapconv's reading of the format. It returns an error when the file
// cannot be read at all; a difference is a Verdict. opts may be nil.
func RoundTrip(name string, opts *ReadOptions) ([]Verdict, error) {
	in, err := OpenFile(name, opts)
	if err != nil {
		return nil, err
	}
	format, what := in.Format, in.Format.Name
	if in.Compression != "" {
		what = in.Compression + "-compressed " + what
	}
	f, err := in.Read()
	if err != nil {
		return nil, err
	}
	var out []Verdict
	verdict := func(same bool, text string, args ...any) {
		out = append(out, Verdict{same, fmt.Sprintf(text, args...)})
	}
	if format.Name != ir.FormatIR {
		// Write it back the way it came: a gzipped profile gzipped (the
		// comparison is of what the files hold anyway).
		wopts := &WriteOptions{Compress: true}
		if fuchsiair.FileOf(f) != nil && format.ownWrapper == "gzip" {
			wopts.NoGzip = !fuchsiair.FileOf(f).Gzip
		}
		orig, err := OpenFile(name, &ReadOptions{Format: format.Name})
		if err != nil {
			return nil, err
		}
		step := fmt.Sprintf("%s -> IR -> %s", what, format.Name)
		if format.Reproduces(f) {
			cmp := newCompareWriter(orig.r)
			changes, werr := format.Write(cmp, f, wopts)
			cmp.finish()
			orig.Close()
			corrected := false
			if werr == nil && cmp.diffAt >= 0 && len(changes) > 0 {
				// The writer corrected what the file's readers cannot
				// take: the rest is compared with the file as it was read.
				var asRead *compareWriter
				if asRead, werr = compareAsRead(name, format, f, *wopts); werr == nil {
					cmp, corrected = asRead, asRead.diffAt < 0
				}
			}
			switch {
			case werr != nil:
				return nil, fmt.Errorf("writing %s again: %w", format.Name, werr)
			case corrected:
				verdict(false, "%s: corrected where the file breaks what its readers need, byte-exact otherwise (%d bytes):\n  %s",
					step, cmp.n, strings.ReplaceAll(changes.String(), "\n", "\n  "))
			case cmp.diffAt < 0:
				verdict(true, "%s: byte-exact (%d bytes)", step, cmp.n)
			default:
				verdict(false, "%s: differs at byte %d%s (original %d bytes, written %d bytes)\n%s",
					step, cmp.diffAt, cmp.position(), cmp.origLen, cmp.n, cmp.excerpt())
			}
		} else {
			var b bytes.Buffer
			_, werr := format.Write(&b, f, wopts)
			data, rerr := io.ReadAll(orig.r)
			orig.Close()
			switch {
			case werr != nil:
				return nil, fmt.Errorf("writing %s again: %w", format.Name, werr)
			case rerr != nil:
				return nil, fmt.Errorf("reading %s again: %w", name, rerr)
			}
			level, err := format.Equivalent(b.Bytes(), data)
			if m := moarvmir.FileOf(f); err != nil && m != nil && m.Recovery != nil {
				// What is written back is what could be recovered.
				verdict(false, "%s: differs: the file is damaged at offset %d (%s); %d snapshots were recovered, %d lost", step,
					m.Recovery.DamageAt, m.Recovery.Reason, len(f.Snapshots), m.Recovery.Lost)
			} else if err != nil {
				verdict(false, "%s: differs: %v (compared: %s)", step, err, level)
			} else {
				verdict(true, "%s: %s", step, level)
			}
		}
	}
	// IR encoding round trip, streamed through a pipe: no second buffer.
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(irstream.EncodeZstd(pw, f)) }()
	g, err := irstream.Decode(pr)
	pr.Close()
	if err != nil {
		return nil, fmt.Errorf("IR round trip: %w", err)
	}
	if d := ir.Diff(f, g, 10); len(d) > 0 {
		verdict(false, "IR msgpack+zstd round trip differs:\n  %s", strings.Join(d, "\n  "))
	} else {
		verdict(true, "IR msgpack+zstd round trip: identical")
	}
	return out, nil
}

// compareAsRead writes f, read from the file name in format, again as it
// was read (WriteOptions.AsRead) and compares it with the file.
func compareAsRead(name string, format *Format, f *ir.File, wopts WriteOptions) (*compareWriter, error) {
	orig, err := OpenFile(name, &ReadOptions{Format: format.Name})
	if err != nil {
		return nil, err
	}
	defer orig.Close()
	wopts.AsRead = true
	cmp := newCompareWriter(orig.r)
	_, err = format.Write(cmp, f, &wopts)
	cmp.finish()
	return cmp, err
}
