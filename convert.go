package heapconv

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/irstream"
)

// A Selection says which snapshots of a file a conversion writes. The
// zero value, WholeFile, writes them all into one file.
type Selection int

const (
	// WholeFile writes every snapshot into one output, which needs a
	// format that holds several when the file has several.
	WholeFile Selection = 0
	// EachSnapshot writes each snapshot to a file of its own, numbered
	// by the %d in the output name (%03d pads with zeros: 000; %% is a
	// %).
	EachSnapshot Selection = -1
)

// Snapshot selects snapshot n alone (0-based). A negative n selects
// nothing: ConvertFile refuses it.
func Snapshot(n int) Selection {
	if n < 0 {
		return noSelection
	}
	return Selection(n + 1)
}

// noSelection is what Snapshot makes of a negative number.
const noSelection Selection = -2

// Index returns the one snapshot selected, or -1 for WholeFile and
// EachSnapshot.
func (s Selection) Index() int {
	if s > 0 {
		return int(s) - 1
	}
	return -1
}

// ConvertOptions adjust ConvertFile. A nil *ConvertOptions means the zero
// value: the input's format detected, the output's from its name, the
// whole file converted, an existing output refused.
type ConvertOptions struct {
	// To names the output format; "" takes it from the output's name
	// (looking through .gz and .zst).
	To string
	// Snapshots selects what to convert.
	Snapshots Selection
	// Overwrite replaces an existing output file. An output that is a
	// device, pipe or socket (a symlink followed) is written in place
	// without it, never replaced; a directory is refused.
	Overwrite bool
	// LossReportFile, when set, receives the loss report as JSON (the
	// LossReport type's fields), written and renamed into place together
	// with the outputs.
	LossReportFile string
	// Read adjusts reading: Read.Format names the input's format ("" to
	// detect it); Size and At are set by ConvertFile.
	Read ReadOptions
	// Write adjusts writing; Compress is set when the output's name asks
	// for the format's own compressed form.
	Write WriteOptions
	// Redact replaces what the program stored before writing, so that the
	// outputs can be shared (ir.File.Redact): the contents of its strings
	// and the values named as data by their node kind become placeholders
	// of as many characters, its numbers and booleans zeros, a Fuchsia
	// heapdump's block contents zero bytes; the graph's shape, sizes, ids
	// and every class, property, field and function name are kept. Each
	// file read (each input of a series, each snapshot selected) is
	// redacted apart, and the report lists what was replaced first, in
	// kinds for which ir.IsRedaction holds. docs/cli.md (Redaction) says
	// what it replaces in each format.
	Redact bool
	// Stdin and Stdout are what the name "-" reads and writes (standard
	// input and output when nil). Writing to "-" needs To, and what was
	// written there cannot be taken back when the conversion fails.
	Stdin  io.Reader
	Stdout io.Writer
}

// LossReport is what a conversion could not carry into its outputs, with
// what was converted. Its JSON form is what ConvertOptions.LossReportFile
// receives (and the command line's --loss-report writes); the field names
// are a contract.
type LossReport struct {
	// Input is the input's name as given to ConvertFile (the first
	// input's, for ConvertFiles).
	Input string `json:"input"`
	// Inputs are the inputs' names when several were joined into a series
	// (ConvertFiles).
	Inputs []string `json:"inputs,omitempty"`
	// From and To are the input's and the outputs' format names.
	From string `json:"from"`
	To   string `json:"to"`
	// Outputs are the files written, in order (one per snapshot with
	// EachSnapshot).
	Outputs []string `json:"outputs"`
	// Losses are the kinds of loss, each with a count and an example,
	// merged over every output; empty when nothing was lost.
	Losses ir.LossReport `json:"losses"`
}

// ConvertFile converts the heap-snapshot file in to out, and returns what
// out's format could not hold. The input format is detected from the
// content (inside a gzip or zstd wrapper too); the output format comes
// from out's extension (x.heapsnapshot, x.dartheap, x.mvmheap, x.pb.gz,
// x.fidlstream, x.heapir.zst), and a further .gz or .zst compresses it
// (x.heapsnapshot.zst). Every output is written to a temporary file and
// renamed at the end: a failed conversion leaves none behind (an output
// that is a device or pipe is written in place instead). What can be
// refused is refused before the input is read: an existing output
// without Overwrite, the input as output, a snapshot a MoarVM file's
// index says is not there. opts may be nil.
func ConvertFile(in, out string, opts *ConvertOptions) (LossReport, error) {
	return ConvertFileContext(context.Background(), in, out, opts)
}

// ConvertFileContext is ConvertFile that stops when ctx is done: the
// input's reads and the outputs' writes fail from then on, the outputs are
// taken back, and the error is ctx's (context.Canceled, say).
func ConvertFileContext(ctx context.Context, in, out string, opts *ConvertOptions) (LossReport, error) {
	return ConvertFilesContext(ctx, []string{in}, out, opts)
}

// ConvertFiles converts several heap-snapshot files of one program (a
// capture series, a directory of daily snapshots) into out, a file of the
// IR that holds them as one series (ir.JoinSeries): their snapshots in
// order, sharing the strings and classes they have in common, each given
// back exactly as the file it came from by snapshot number ("out#N", or
// Snapshot(N) when converting out). With one input it is ConvertFile.
// The inputs are files (not "-"), of one format and variant. Each is read
// twice, for its strings and classes and then for its snapshots, so that
// one input at a time is in memory, however many there are.
func ConvertFiles(ins []string, out string, opts *ConvertOptions) (LossReport, error) {
	return ConvertFilesContext(context.Background(), ins, out, opts)
}

// ConvertFilesContext is ConvertFiles that stops when ctx is done, as
// ConvertFileContext does.
func ConvertFilesContext(ctx context.Context, ins []string, out string, opts *ConvertOptions) (LossReport, error) {
	if len(ins) == 0 {
		return LossReport{}, fmt.Errorf("%w: no input", ErrOption)
	}
	in := ins[0]
	var o ConvertOptions
	if opts != nil {
		o = *opts
	}
	if o.Stdin == nil {
		o.Stdin = os.Stdin
	}
	if o.Stdout == nil {
		o.Stdout = os.Stdout
	}
	if in == "-" && o.Read.Name == "" {
		o.Read.Name = "standard input"
	}
	c := &conversion{ctx: ctx, opts: &o, inName: in, more: ins[1:], outName: out}
	defer c.abort()
	r, err := c.run()
	if err != nil && ctx.Err() != nil {
		return LossReport{}, ctx.Err()
	}
	return r, err
}

// conversion is one ConvertFile call: the outputs it has started, which
// it takes back unless everything succeeds.
type conversion struct {
	ctx             context.Context
	opts            *ConvertOptions
	inName, outName string
	more            []string // further inputs, joined into a series with the first
	plan            *outputPlan
	pattern         *numbered
	input           *Input
	outs            []*atomicFile
	report          *atomicFile
	done            bool
}

func (c *conversion) run() (LossReport, error) {
	o := c.opts
	var err error
	if c.plan, err = planOutputOrStream(c.outName, o.To); err != nil {
		return LossReport{}, err
	}
	sel := o.Snapshots
	if sel < EachSnapshot {
		return LossReport{}, fmt.Errorf("%w: no snapshot selected (a negative snapshot number)", ErrOption)
	}
	if err := c.plan.check(&o.Write); err != nil {
		return LossReport{}, err
	}
	if sel == EachSnapshot {
		if c.outName == "-" {
			return LossReport{}, fmt.Errorf("%w: one file per snapshot cannot go to %q", ErrOutputName, c.outName)
		}
		if c.pattern, err = parseNumbered(c.outName); err != nil {
			return LossReport{}, err
		}
	}
	if f := o.LossReportFile; f != "" {
		switch {
		case f == "-" && c.outName == "-":
			return LossReport{}, fmt.Errorf("%w: the loss report and the output would both go to standard output", ErrOutputName)
		case f != "-" && sel != EachSnapshot && sameName(f, c.outName):
			return LossReport{}, fmt.Errorf("%w: the loss report and the output are the same file", ErrOutputName)
		}
	}
	if len(c.more) > 0 {
		if err := c.checkSeries(); err != nil {
			return LossReport{}, err
		}
	}
	if err := c.open(); err != nil {
		return LossReport{}, err
	}
	if o.Read.ContentsDir != "" && c.input.Format.Name == fuchsiair.FormatFIDL {
		return LossReport{}, c.input.named(fmt.Errorf("%w: %w; a FIDL stream carries its block contents", ErrOption, ErrContentsDir))
	}
	// What can be refused is refused before the (possibly long) read.
	target := c.plan.format
	list := c.input.Index()
	if list == nil && sel == EachSnapshot {
		// Without an index the snapshots are not known yet, but there is
		// at least one.
		if err := c.checkOutput(c.pattern.name(0)); err != nil {
			return LossReport{}, err
		}
	}
	if list != nil {
		switch {
		case sel.Index() >= len(list):
			return LossReport{}, &SnapshotError{Err: ErrNoSnapshot, Name: c.input.Name, Snapshot: sel.Index(), Snapshots: list}
		case sel == WholeFile && !target.MultiSnapshot && len(list) > 1:
			return LossReport{}, &SnapshotError{Err: ErrTooManySnapshots, Name: c.input.Name, Snapshots: list, Format: target.Name}
		case sel == EachSnapshot:
			for i := range max(1, len(list)) {
				if err := c.checkOutput(c.pattern.name(i)); err != nil {
					return LossReport{}, err
				}
			}
		}
	}
	if f := o.LossReportFile; f != "" {
		if c.report, err = c.create(f, nil); err != nil {
			return LossReport{}, fmt.Errorf("the loss report: %w", err)
		}
	}
	if sel != EachSnapshot {
		out, err := c.create(c.outName, c.plan.wrapper)
		if err != nil {
			return LossReport{}, err
		}
		c.outs = append(c.outs, out)
	}
	from := c.input.Format.Name
	var files []*ir.File
	var redacted ir.LossReport // what Redact replaced
	if len(c.more) > 0 {
		// Several inputs: written as one series as they are read (files
		// stays empty).
		out := c.outs[0]
		if redacted, err = c.writeSeries(out.name, ctxWriter{c.ctx, out.w}, c.plan.writeOptions(&o.Write)); err != nil {
			return LossReport{}, err
		}
		if err := out.finish(); err != nil {
			return LossReport{}, err
		}
	} else if i := sel.Index(); i >= 0 {
		// One snapshot: an input with an index of its snapshots is read
		// in part.
		g, err := c.input.ReadSnapshot(i)
		if err != nil {
			return LossReport{}, err
		}
		files = []*ir.File{g}
	} else {
		f, err := c.input.Read()
		if err != nil {
			return LossReport{}, err
		}
		if files, err = c.selected(f); err != nil {
			return LossReport{}, err
		}
	}
	if o.Redact {
		for i, g := range files {
			h, loss, err := g.Redact()
			if err != nil {
				return LossReport{}, c.input.named(err)
			}
			files[i] = h
			redacted.Merge(loss)
		}
	}
	r := LossReport{Input: c.inName, From: from, To: target.Name, Losses: redacted}
	if len(c.more) > 0 {
		r.Inputs = c.inputs()
		r.Outputs = append(r.Outputs, c.outs[0].name)
	}
	wopts := c.plan.writeOptions(&o.Write)
	for i, g := range files {
		if sel == EachSnapshot {
			name := c.pattern.name(i)
			if c.report != nil && sameName(c.report.name, name) {
				return LossReport{}, fmt.Errorf("%w: the loss report and the output are the same file (%s)", ErrOutputName, name)
			}
			out, err := c.create(name, c.plan.wrapper)
			if err != nil {
				return LossReport{}, err
			}
			c.outs = append(c.outs, out)
		}
		out := c.outs[len(c.outs)-1]
		loss, err := target.Write(ctxWriter{c.ctx, out.w}, g, wopts)
		if err != nil {
			return LossReport{}, fmt.Errorf("writing %s: %w", out.name, err)
		}
		if err := out.finish(); err != nil {
			return LossReport{}, err
		}
		r.Losses = append(r.Losses, loss...)
		r.Outputs = append(r.Outputs, out.name)
	}
	r.Losses = mergedLosses(r.Losses)
	if c.report != nil {
		if err := writeLossReport(c.report, r); err != nil {
			return LossReport{}, err
		}
	}
	if err := publish(c.all()); err != nil {
		return LossReport{}, err
	}
	c.done = true
	return r, nil
}

// inputs returns the names of every input, the first first.
func (c *conversion) inputs() []string { return append([]string{c.inName}, c.more...) }

// checkSeries refuses what several inputs cannot be converted into: only
// the IR holds a series, whole.
func (c *conversion) checkSeries() error {
	switch {
	case c.plan.format.Name != ir.FormatIR:
		return fmt.Errorf("%w: several inputs make one series, which only the IR holds (%s); convert them one by one to %s", ErrOption, ir.FormatIR, c.plan.format.Name)
	case c.opts.Snapshots != WholeFile:
		return fmt.Errorf("%w: several inputs are written whole, as one series: no snapshot to select", ErrOption)
	}
	for _, name := range c.inputs() {
		if name == "-" {
			return fmt.Errorf("%w: several inputs are files: standard input (-) cannot be one", ErrOption)
		}
		if c.outName != "-" && sameName(name, c.outName) {
			return fmt.Errorf("%w: %s is an input and the output", ErrOutputName, name)
		}
	}
	return nil
}

// writeSeries writes the inputs to w as one series (ir.SeriesBuilder),
// reading each twice so that one input at a time is in memory: first for
// the strings and classes, then for the snapshots, which w receives one
// by one (irstream.Writer). With Redact, each input is redacted as it is
// read (the same way both times); it returns what that replaced.
func (c *conversion) writeSeries(outName string, w io.Writer, wopts *WriteOptions) (ir.LossReport, error) {
	names := c.inputs()
	var redacted ir.LossReport
	read := func(i int, first bool) (*ir.File, error) {
		in := c.input
		if i > 0 || in == nil {
			var err error
			if in, err = openFile(c.ctx, names[i], &c.opts.Read); err != nil {
				return nil, err
			}
		}
		c.input = nil
		defer in.Close()
		f, err := in.Read()
		if err != nil || !c.opts.Redact {
			return f, err
		}
		f, loss, err := f.Redact()
		if err != nil {
			return nil, in.named(err)
		}
		if first {
			redacted.Merge(loss)
		}
		return f, nil
	}
	b := ir.NewSeriesBuilder()
	for i, name := range names {
		f, err := read(i, true)
		if err != nil {
			return nil, err
		}
		if err := b.AddTables(f); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	head := b.Head()
	written := func(err error) error { return fmt.Errorf("writing %s: %w", outName, err) }
	sw, err := irstream.NewWriter(w, head, b.SnapshotCount(), irstream.WriterOptions{Compress: wopts.Compress, Level: zstdLevels[wopts.Level]})
	if err != nil {
		return nil, written(err)
	}
	for i, name := range names {
		f, err := read(i, false)
		if err != nil {
			return nil, err
		}
		snaps, err := b.Snapshots(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		for _, s := range snaps {
			// What is written reads back: each snapshot is checked with
			// the series' tables before it goes out.
			one := *head
			one.Snapshots = []*ir.Snapshot{s}
			if err := one.Validate(); err != nil {
				return nil, fmt.Errorf("%s: as a snapshot of the series: %w", name, err)
			}
			if err := sw.WriteSnapshot(s); err != nil {
				return nil, written(err)
			}
		}
	}
	if err := sw.Close(); err != nil {
		return nil, written(err)
	}
	return redacted, nil
}

// open opens the input ("-": Stdin).
func (c *conversion) open() error {
	o := c.opts
	var err error
	if c.inName == "-" {
		c.input, err = open(c.ctx, o.Stdin, &o.Read)
	} else {
		c.input, err = openFile(c.ctx, c.inName, &o.Read)
	}
	return err
}

// selected returns the files to write, one per output.
func (c *conversion) selected(f *ir.File) ([]*ir.File, error) {
	sel, target := c.opts.Snapshots, c.plan.format
	switch {
	case sel == EachSnapshot:
		var files []*ir.File
		for i := range f.Snapshots {
			g, err := f.Select(i)
			if err != nil {
				return nil, err
			}
			files = append(files, g)
		}
		return files, nil
	case sel.Index() >= len(f.Snapshots):
		return nil, &SnapshotError{Err: ErrNoSnapshot, Name: c.input.Name, Snapshot: sel.Index(), Snapshots: describeSnapshots(f)}
	case sel.Index() >= 0:
		g, err := f.Select(sel.Index())
		if err != nil {
			return nil, c.input.named(err)
		}
		return []*ir.File{g}, nil
	case !target.MultiSnapshot && len(f.Snapshots) > 1:
		return nil, &SnapshotError{Err: ErrTooManySnapshots, Name: c.input.Name, Snapshots: describeSnapshots(f), Format: target.Name}
	case f.IsSeries() && target.Name != ir.FormatIR && len(f.Snapshots) == 1:
		// The one snapshot of a series is the file it came from.
		g, err := f.Select(0)
		if err != nil {
			return nil, c.input.named(err)
		}
		return []*ir.File{g}, nil
	case f.IsSeries() && target.Name != ir.FormatIR:
		return []*ir.File{f.Plain()}, nil
	}
	return []*ir.File{f}, nil
}

// checkOutput refuses an output name that may not be written.
func (c *conversion) checkOutput(name string) error {
	return checkOutput(name, c.opts.Overwrite, c.input.info)
}

// create starts writing an output ("-": Stdout), compressed with wr at
// the level asked for when wr is not nil.
func (c *conversion) create(name string, wr *wrapper) (*atomicFile, error) {
	return createOutput(name, wr, c.opts, c.input.info)
}

// all lists every output, the loss report first.
func (c *conversion) all() []*atomicFile {
	if c.report == nil {
		return c.outs
	}
	return append([]*atomicFile{c.report}, c.outs...)
}

// abort takes back every output of a conversion that did not succeed.
func (c *conversion) abort() {
	if c.input != nil {
		c.input.Close()
	}
	if c.done {
		return
	}
	for _, out := range c.all() {
		out.abort()
	}
}

// sameName reports whether two output names are the same path.
func sameName(a, b string) bool {
	x, err1 := filepath.Abs(a)
	y, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && x == y
}

// numbered is an output name with one number verb — %d, or %0Nd to pad
// with zeros so the files sort — where EachSnapshot puts each snapshot's
// number; %% is a %.
type numbered struct {
	before, after string // with %% made %
	width         int
}

// parseNumbered parses the output name of EachSnapshot.
func parseNumbered(name string) (*numbered, error) {
	var n *numbered
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		if name[i] != '%' {
			b.WriteByte(name[i])
			continue
		}
		j := i + 1
		if j < len(name) && name[j] == '%' {
			b.WriteByte('%')
			i = j
			continue
		}
		width := 0
		if j < len(name) && name[j] == '0' {
			for j++; j < len(name) && name[j] >= '0' && name[j] <= '9' && width < 100; j++ {
				width = width*10 + int(name[j]-'0')
			}
		}
		if j >= len(name) || name[j] != 'd' || n != nil {
			return nil, fmt.Errorf("%w: one file per snapshot needs a name with one %%d (or %%03d to pad with zeros; %%%% for a %%), not %q", ErrOutputName, name)
		}
		n = &numbered{before: b.String(), width: width}
		b.Reset()
		i = j
	}
	if n == nil {
		return nil, fmt.Errorf("%w: one file per snapshot needs a name with a %%d (or %%03d to pad with zeros) for the snapshot number, not %q", ErrOutputName, name)
	}
	n.after = b.String()
	return n, nil
}

func (n *numbered) name(i int) string { return fmt.Sprintf("%s%0*d%s", n.before, n.width, i, n.after) }

// Convert returns f as it will be once written in the named format and
// read back — what a conversion would hold — with what the format could
// not hold. It works in memory. A file of several snapshots needs a
// format that holds several (select one with ir.File.Select).
func Convert(f *ir.File, format string, opts *WriteOptions) (*ir.File, ir.LossReport, error) {
	fm := FormatByName(format)
	if fm == nil {
		return nil, nil, fmt.Errorf("%w %q (formats: %s)", ErrUnknownFormat, format, formatNames())
	}
	if !fm.MultiSnapshot && len(f.Snapshots) > 1 {
		return nil, nil, &SnapshotError{Err: ErrTooManySnapshots, Name: "the file", Snapshots: describeSnapshots(f), Format: fm.Name}
	}
	var b strings.Builder
	loss, err := fm.Write(&b, f, opts)
	if err != nil {
		return nil, nil, err
	}
	data := b.String()
	back, err := fm.Read(strings.NewReader(data), &ReadOptions{Size: int64(len(data))})
	if err != nil {
		return nil, nil, fmt.Errorf("reading the converted file back: %w", err)
	}
	return back, loss, nil
}
