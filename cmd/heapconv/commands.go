package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"heapconv/internal/formats"
	"heapconv/ir"
	rv8 "heapconv/readers/v8"
)

const convertUsage = `Usage: heapconv convert [--from F] [--to F] [--snapshot N|all] [--force]
                        [--contents DIR] [--scan-pointers] [--no-gzip] [--out-contents DIR] IN OUT

Converts IN to OUT. IN and OUT may be "-" (standard input / output).
The input format is detected from the content unless --from is given; the
output format comes from OUT's extension unless --to is given:
  .heapsnapshot -> v8    .dartheap -> dart    .mvmheap -> moarvm
  .pb, .pb.gz -> fuchsia    .fidlstream -> fuchsia-fidl
  .heapir, .heapir.zst -> ir (.zst: compressed)
OUT is written to a temporary file and renamed at the end: a failed
conversion leaves no OUT behind. An existing OUT needs --force.
What the output format cannot hold is listed on standard error.

Flags:
  --from F        input format (ir, v8, dart, moarvm, fuchsia, fuchsia-fidl)
  --to F          output format
  --snapshot N    convert snapshot N only (0-based); "all" with a %d in OUT
                  writes one file per snapshot
  --force         replace an existing OUT
  --contents DIR  the block contents directory of a Fuchsia heapdump IN
                  (ffx profile heapdump snapshot --output-contents-dir)
  --scan-pointers with --contents, or for a fuchsia-fidl IN (whose stream
                  carries the contents): turn every aligned 64-bit word that
                  points into another live block into an edge (heuristic:
                  integers that look like addresses count too), so that the
                  heap has retainers and retained sizes in Chrome DevTools
  --no-gzip       write a Fuchsia profile uncompressed (older ffx's layout)
  --out-contents DIR  write the block contents of a Fuchsia OUT there

Examples:
  heapconv convert app.heapsnapshot app.heapir.zst
  heapconv convert app.heapir.zst copy.heapsnapshot
  heapconv convert --to v8 - - < in.heapir > out.heapsnapshot
  heapconv convert --snapshot all prog.mvmheap 'prog-%d.heapsnapshot'
  heapconv convert --contents snap-contents --scan-pointers snap.pb.gz native.heapsnapshot
  heapconv convert --scan-pointers collector.fidlstream native.heapsnapshot
`

func runConvert(e *env, args []string) error {
	fs := newFlags("convert")
	from := fs.String("from", "", "")
	to := fs.String("to", "", "")
	snap := fs.String("snapshot", "", "")
	force := fs.Bool("force", false, "")
	contents := fs.String("contents", "", "")
	scan := fs.Bool("scan-pointers", false, "")
	noGzip := fs.Bool("no-gzip", false, "")
	outContents := fs.String("out-contents", "", "")
	if err := parse(e, fs, convertUsage, args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return usagef("convert needs IN and OUT")
	}
	inName, outName := fs.Arg(0), fs.Arg(1)
	var target *formats.Format
	switch {
	case *to != "":
		if target = formats.ByName(*to); target == nil {
			return usagef("unknown format %q (formats: %s)", *to, strings.Join(formats.Names(), ", "))
		}
	case outName == "-":
		return usagef("writing to standard output needs --to")
	default:
		if target = formats.ByExtension(outName); target == nil {
			return usagef("cannot tell the output format from %q; give --to", outName)
		}
	}
	if target.Write == nil {
		return fmt.Errorf("writing %s is not available in this version of heapconv (see `heapconv formats`)", target.Name)
	}
	all := *snap == "all"
	if all && (outName == "-" || !strings.Contains(outName, "%d")) {
		return usagef("--snapshot all needs an OUT containing %%d")
	}
	snapIdx := -1
	if *snap != "" && !all {
		n, err := strconv.Atoi(*snap)
		if err != nil || n < 0 {
			return usagef("--snapshot takes a snapshot number or \"all\"")
		}
		snapIdx = n
	}
	// Refuse an existing OUT before the (possibly long) read.
	if outName != "-" && !all && !*force {
		if _, err := os.Stat(outName); err == nil {
			return fmt.Errorf("%s exists (use --force to replace it)", outName)
		}
	}
	in, err := openInput(e, inName, *from)
	if err != nil {
		return err
	}
	if err := checkScan(in, *contents, *scan); err != nil {
		return err
	}
	in.contents, in.scan = *contents, *scan
	f, err := in.read(e)
	if err != nil {
		return err
	}
	wopts := formats.WriteOptions{Compress: strings.HasSuffix(strings.ToLower(outName), ".zst"), NoGzip: *noGzip, ContentsDir: *outContents}
	var files []*ir.File
	var names []string
	switch {
	case all:
		for i := range f.Snapshots {
			g, _ := f.Select(i)
			files = append(files, g)
			names = append(names, strings.ReplaceAll(outName, "%d", strconv.Itoa(i)))
		}
	case snapIdx >= 0:
		g, err := f.Select(snapIdx)
		if err != nil {
			return err
		}
		files, names = []*ir.File{g}, []string{outName}
	default:
		if !target.MultiSnapshot && len(f.Snapshots) > 1 {
			var b strings.Builder
			fmt.Fprintf(&b, "%s holds %d snapshots and %s files hold one; choose with --snapshot N (or --snapshot all with %%d in OUT):\n", in.name, len(f.Snapshots), target.Name)
			for i, s := range f.Snapshots {
				fmt.Fprintf(&b, "  %d: %d nodes, %d edges\n", i, s.Nodes.Len(), s.Edges.Len())
			}
			return fmt.Errorf("%s", strings.TrimSuffix(b.String(), "\n"))
		}
		files, names = []*ir.File{f}, []string{outName}
	}
	for i, g := range files {
		if err := writeOne(e, target, g, names[i], *force, wopts, in); err != nil {
			return err
		}
	}
	return nil
}

func writeOne(e *env, target *formats.Format, f *ir.File, name string, force bool, opts formats.WriteOptions, in *input) error {
	out, err := createOutput(e, name, force, in)
	if err != nil {
		return err
	}
	p := newProgress(e, "writing", 0)
	opts.Progress = p.update
	loss, err := target.Write(out.w, f, opts)
	p.done()
	if err != nil {
		out.abort()
		return fmt.Errorf("writing %s: %w", out.name, err)
	}
	if err := out.commit(); err != nil {
		return err
	}
	for _, l := range loss {
		fmt.Fprintf(e.stderr, "heapconv: %s cannot hold everything: %s\n", target.Name, l)
	}
	return nil
}

const infoUsage = `Usage: heapconv info [--json] [--top N] [--by self|count|retained]
                     [--contents DIR] [--scan-pointers] IN

Summarizes IN: its format and variant, and per snapshot the node and edge
counts, total self and external size, the number of classes and roots, and
the top classes by self size, instance count or retained size.

Flags:
  --json    print one JSON object:
            {"format": ..., "format_version": ..., "snapshots": [{"nodes": n,
             "edges": e, "self_size": s, "external_size": x, "classes": c,
             "roots": r, "top_classes": [{"name": ..., "count": n,
             "self_size": s, "retained_size": r}]}]}
            (an IR input adds "via": "ir"; retained_size only with
            --by retained)
  --top N   how many classes to list (default 10)
  --by K    order classes by self (size, the default), count, or retained:
            the memory a class keeps alive, from the dominator tree (weak
            references do not retain; external memory counts for its owner;
            a class's objects held by others of the class count once, as in
            Chrome DevTools' Summary view)
  --contents DIR, --scan-pointers  as for convert (Fuchsia heapdumps)

Examples:
  heapconv info app.heapsnapshot
  heapconv info --top 20 --by retained flutter.dartheap
  heapconv info --json app.heapir.zst | jq '.snapshots[0].nodes'
`

// infoJSON is the --json output; its field names are a contract.
type infoJSON struct {
	Format        string               `json:"format"`
	FormatVersion string               `json:"format_version"`
	Via           string               `json:"via,omitempty"`
	Snapshots     []ir.SnapshotSummary `json:"snapshots"`
}

func runInfo(e *env, args []string) error {
	fs := newFlags("info")
	asJSON := fs.Bool("json", false, "")
	top := fs.Int("top", 10, "")
	by := fs.String("by", ir.BySelf, "")
	contents := fs.String("contents", "", "")
	scan := fs.Bool("scan-pointers", false, "")
	if err := parse(e, fs, infoUsage, args); err != nil {
		return err
	}
	switch *by {
	case ir.BySelf, ir.ByCount, ir.ByRetained:
	default:
		return usagef("--by must be self, count or retained, not %q", *by)
	}
	if fs.NArg() != 1 {
		return usagef("info needs IN")
	}
	in, err := openInput(e, fs.Arg(0), "")
	if err != nil {
		return err
	}
	if err := checkScan(in, *contents, *scan); err != nil {
		return err
	}
	in.contents, in.scan = *contents, *scan
	via := ""
	if in.format.Name == ir.FormatIR {
		via = ir.FormatIR
	}
	f, err := in.read(e)
	if err != nil {
		return err
	}
	out := infoJSON{Format: f.Format, FormatVersion: f.FormatVersion, Via: via, Snapshots: []ir.SnapshotSummary{}}
	for i, s := range f.Snapshots {
		sum, err := ir.SummarizeBy(f, s, *top, *by)
		if err != nil {
			return fmt.Errorf("snapshot %d: %w", i, err)
		}
		out.Snapshots = append(out.Snapshots, sum)
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetEscapeHTML(false)
		return enc.Encode(out)
	}
	w := e.stdout
	fmt.Fprintf(w, "format:   %s\nvariant:  %s\n", out.Format, out.FormatVersion)
	if via != "" {
		fmt.Fprintf(w, "via:      %s\n", via)
	}
	fmt.Fprintf(w, "snapshots: %d\n", len(out.Snapshots))
	for i, s := range out.Snapshots {
		fmt.Fprintf(w, "\nsnapshot %d\n  nodes %d  edges %d  classes %d  roots %d\n  self size %d  external size %d\n",
			i, s.Nodes, s.Edges, s.Classes, s.Roots, s.SelfSize, s.ExternalSize)
		if len(s.TopClasses) > 0 && *by == ir.ByRetained {
			fmt.Fprintf(w, "  %12s %14s %16s  %s\n", "count", "self size", "retained size", "class")
			for _, c := range s.TopClasses {
				fmt.Fprintf(w, "  %12d %14d %16d  %s\n", c.Count, c.SelfSize, *c.Retained, c.Name)
			}
		} else if len(s.TopClasses) > 0 {
			fmt.Fprintf(w, "  %12s %14s  %s\n", "count", "self size", "class")
			for _, c := range s.TopClasses {
				fmt.Fprintf(w, "  %12d %14d  %s\n", c.Count, c.SelfSize, c.Name)
			}
		}
	}
	return nil
}

const validateUsage = `Usage: heapconv validate IN

Checks IN against what the format's own consumers require (for V8, every
rule Chrome DevTools' loader relies on; for MoarVM, what MoarVM's readers
assume, and a damaged file that heapconv can only partly recover is a
violation) and prints one line per violation naming its byte offset.
Exits 0 when IN is valid, 1 otherwise.

Examples:
  heapconv validate app.heapsnapshot
  heapconv validate prog.mvmheap
`

func runValidate(e *env, args []string) error {
	fs := newFlags("validate")
	if err := parse(e, fs, validateUsage, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("validate needs IN")
	}
	in, err := openInput(e, fs.Arg(0), "")
	if err != nil {
		return err
	}
	var errs []error
	if in.format.Name == ir.FormatV8 {
		errs = rv8.Validate(in.r, rv8.Options{Size: in.size})
		in.close()
	} else if f, err := in.read(e); err != nil {
		// Readers validate after every parse: a file they read is valid...
		errs = []error{err}
	} else if m := f.MoarVM; m != nil && m.Recovery != nil {
		// ...unless it was read by recovering what a damaged file held.
		errs = []error{ir.Errorf(ir.FormatMoarVM, m.Recovery.DamageAt, "damaged file (%s): %d snapshot(s) recovered, %d lost",
			m.Recovery.Reason, len(f.Snapshots), m.Recovery.Lost)}
	}
	for _, err := range errs {
		fmt.Fprintf(e.stderr, "%s: %v\n", in.name, err)
	}
	if len(errs) > 0 {
		fmt.Fprintf(e.stderr, "%s: %d violation(s)\n", in.name, len(errs))
		return errReported
	}
	fmt.Fprintf(e.stdout, "%s: valid %s file\n", in.name, in.format.Name)
	return nil
}

const roundtripUsage = `Usage: heapconv roundtrip IN

The conformance round trip on your own file: reads IN, writes it again in its
own format and compares, then passes the data through the IR's msgpack
encoding and compares again. Reports "byte-exact" or the first differences.
Exits 1 when anything differs.

Examples:
  heapconv roundtrip Heap-20260101-120000-1234-0.heapsnapshot
`

func runRoundtrip(e *env, args []string) error {
	fs := newFlags("roundtrip")
	if err := parse(e, fs, roundtripUsage, args); err != nil {
		return err
	}
	if fs.NArg() != 1 || fs.Arg(0) == "-" {
		return usagef("roundtrip needs a file IN")
	}
	name := fs.Arg(0)
	in, err := openInput(e, name, "")
	if err != nil {
		return err
	}
	format := in.format
	f, err := in.read(e)
	if err != nil {
		return err
	}
	failed := false
	if format.Name != ir.FormatIR {
		orig, err := os.Open(name)
		if err != nil {
			return err
		}
		cmp := &compareWriter{r: orig}
		_, werr := format.Write(cmp, f, formats.WriteOptions{Compress: strings.HasSuffix(name, ".zst")})
		cmp.finish()
		orig.Close()
		switch {
		case werr != nil:
			return fmt.Errorf("writing %s again: %w", format.Name, werr)
		case cmp.diffAt < 0:
			fmt.Fprintf(e.stdout, "%s: %s -> IR -> %s: byte-exact (%d bytes)\n", name, format.Name, format.Name, cmp.n)
		default:
			failed = true
			fmt.Fprintf(e.stdout, "%s: %s -> IR -> %s: differs at byte %d (input %d bytes, output %d bytes)\n  input:  %q\n  output: %q\n",
				name, format.Name, format.Name, cmp.diffAt, cmp.inLen, cmp.n, cmp.inCtx, cmp.outCtx)
			if !format.ByteExact {
				fmt.Fprintf(e.stdout, "  (%s is not reproduced byte for byte by design)\n", format.Name)
			}
		}
	}
	// IR encoding round trip, streamed through a pipe: no second buffer.
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(ir.EncodeZstd(pw, f)) }()
	g, err := ir.Decode(pr)
	pr.Close()
	if err != nil {
		return fmt.Errorf("IR round trip: %w", err)
	}
	if d := ir.Diff(f, g, 10); len(d) > 0 {
		failed = true
		fmt.Fprintf(e.stdout, "%s: IR msgpack round trip differs:\n  %s\n", name, strings.Join(d, "\n  "))
	} else {
		fmt.Fprintf(e.stdout, "%s: IR msgpack+zstd round trip: identical\n", name)
	}
	if failed {
		return errReported
	}
	return nil
}

// compareWriter compares what is written with a reader's bytes and keeps
// the first difference with some context.
type compareWriter struct {
	r              io.Reader
	n              int64 // bytes written
	inLen          int64
	diffAt         int64
	inCtx, outCtx  []byte
	buf            []byte
	pendingContext bool
}

func (c *compareWriter) Write(p []byte) (int, error) {
	if c.diffAt == 0 && c.n == 0 {
		c.diffAt = -1
	}
	if c.diffAt >= 0 {
		if c.pendingContext && len(c.outCtx) < 60 {
			c.outCtx = append(c.outCtx, p[:min(len(p), 60-len(c.outCtx))]...)
		}
		c.n += int64(len(p))
		return len(p), nil
	}
	if cap(c.buf) < len(p) {
		c.buf = make([]byte, len(p))
	}
	b := c.buf[:len(p)]
	k, _ := io.ReadFull(c.r, b)
	c.inLen += int64(k)
	for i := 0; i < len(p); i++ {
		if i >= k || b[i] != p[i] {
			c.diffAt = c.n + int64(i)
			lo := max(0, i-30)
			c.inCtx = append([]byte(nil), b[lo:min(k, i+30)]...)
			c.outCtx = append([]byte(nil), p[lo:min(len(p), i+30)]...)
			c.pendingContext = true
			break
		}
	}
	c.n += int64(len(p))
	return len(p), nil
}

// finish checks that the input has no bytes beyond the output.
func (c *compareWriter) finish() {
	if c.n == 0 && c.diffAt == 0 {
		c.diffAt = -1
	}
	rest, _ := io.Copy(io.Discard, c.r)
	c.inLen += rest
	if c.diffAt < 0 && rest > 0 {
		c.diffAt = c.n
	}
}

const dumpUsage = `Usage: heapconv dump IN

Prints IN's intermediate representation as text: the string and class
tables, then every snapshot with one line per node followed by its edges.
Golden tests use this form; it is also the way to see what a conversion
carried.

Examples:
  heapconv dump small.heapsnapshot | less
`

func runDump(e *env, args []string) error {
	fs := newFlags("dump")
	if err := parse(e, fs, dumpUsage, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("dump needs IN")
	}
	in, err := openInput(e, fs.Arg(0), "")
	if err != nil {
		return err
	}
	f, err := in.read(e)
	if err != nil {
		return err
	}
	return ir.WriteText(e.stdout, f)
}

const formatsUsage = `Usage: heapconv formats

Lists the formats heapconv knows, their file extensions, whether it reads
and writes each, and which versions it reads.

Examples:
  heapconv formats
  heapconv formats | grep v8
`

func runFormats(e *env, args []string) error {
	fs := newFlags("formats")
	if err := parse(e, fs, formatsUsage, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usagef("formats takes no arguments")
	}
	w := e.stdout
	fmt.Fprintf(w, "%-13s %-5s %-5s %-26s %s\n", "FORMAT", "READ", "WRITE", "EXTENSIONS", "DESCRIPTION / VERSIONS READ")
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	for _, f := range formats.All {
		desc := f.Description
		if f.Read == nil && f.Write == nil {
			desc += " (not available yet)"
		} else if f.Versions != "" {
			desc += "; reads " + f.Versions
		}
		exts := strings.Join(f.Extensions, " ")
		if exts == "" {
			exts = "-"
		}
		fmt.Fprintf(w, "%-13s %-5s %-5s %-26s %s\n", f.Name, yes(f.Read != nil), yes(f.Write != nil), exts, desc)
	}
	return nil
}

// checkScan refuses --scan-pointers without block contents: a pprof
// profile needs its --contents directory, a FIDL stream carries them.
func checkScan(in *input, contents string, scan bool) error {
	if scan && contents == "" && in.format.Name != ir.FormatFuchsiaFIDL {
		in.close()
		return usagef("--scan-pointers needs --contents DIR (or a fuchsia-fidl input, which carries the contents)")
	}
	return nil
}
