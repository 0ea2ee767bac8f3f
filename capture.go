package heapconv

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/heapconv/heapconv/capture"
	"github.com/heapconv/heapconv/ir"
)

// CaptureOptions adjust CaptureFile. A nil *CaptureOptions means the zero
// value: one snapshot, written in the format out's name says, an
// existing out refused.
type CaptureOptions struct {
	// Capture adjusts the connection and each snapshot: garbage collected
	// first, the Dart isolate, the browser page, the port a pid:N target
	// opens, progress.
	Capture capture.Options
	// Count is how many snapshots to take, Interval apart (0 takes one).
	// More than one need an output name with a %d, which numbers them
	// from 0 (%03d pads with zeros).
	Count    int
	Interval time.Duration
	// Convert adjusts the outputs as it adjusts ConvertFile's: To,
	// Overwrite, LossReportFile, Redact, Write, Stdout. Its Read,
	// Snapshots and Stdin are not used.
	Convert ConvertOptions
	// Connected, when set, is called once connected, before the first
	// snapshot.
	Connected func(capture.Producer)
	// Written, when set, is called as each output is in place, with the
	// bytes the producer sent for it.
	Written func(i int, name string, bytes int64)
}

// CaptureReport is what CaptureFile took and wrote.
type CaptureReport struct {
	// LossReport names the target (Input), the producer's format (From),
	// the outputs and what their format could not hold (nothing, when it
	// is the producer's own). Its JSON form is what LossReportFile
	// receives.
	LossReport
	// Producer is the program snapshotted.
	Producer capture.Producer `json:"-"`
	// Received is the bytes of each snapshot as the producer sent them.
	Received []int64 `json:"-"`
}

// CaptureFile takes heap snapshots of a running program (a Node process,
// a Chrome page, a Dart VM: package capture's targets) and writes them to
// out in any format, as ConvertFile writes it. In the producer's own
// format (a .heapsnapshot of V8, a .dartheap of Dart, compressed or not)
// the snapshot goes to the file as it arrives, in memory that does not
// grow with it; another format, or any with Convert.Redact, is read from
// the stream as it arrives, so that the memory needed is the IR's. Each output is written to a
// temporary file and renamed when whole: a failed or interrupted capture
// leaves none behind (those of a series before it stay).
func CaptureFile(ctx context.Context, target, out string, opts *CaptureOptions) (CaptureReport, error) {
	var o CaptureOptions
	if opts != nil {
		o = *opts
	}
	count := max(1, o.Count)
	if o.Count < 0 || o.Interval < 0 {
		return CaptureReport{}, fmt.Errorf("%w: a negative count or interval", ErrOption)
	}
	plan, err := planOutputOrStream(out, o.Convert.To)
	if err != nil {
		return CaptureReport{}, err
	}
	if err := plan.check(&o.Convert.Write); err != nil {
		return CaptureReport{}, err
	}
	names := []string{out}
	if count > 1 {
		if out == "-" {
			return CaptureReport{}, fmt.Errorf("%w: a series of snapshots cannot go to %q", ErrOutputName, out)
		}
		pattern, err := parseNumbered(out)
		if err != nil {
			return CaptureReport{}, err
		}
		names = names[:0]
		for i := range count {
			names = append(names, pattern.name(i))
		}
	}
	for _, name := range names {
		if name == "-" {
			continue
		}
		if err := checkOutput(name, o.Convert.Overwrite, nil); err != nil {
			return CaptureReport{}, err
		}
		if f := o.Convert.LossReportFile; f != "" && f != "-" && sameName(f, name) {
			return CaptureReport{}, fmt.Errorf("%w: the loss report and the output are the same file (%s)", ErrOutputName, name)
		}
	}
	if f := o.Convert.LossReportFile; f == "-" && out == "-" {
		return CaptureReport{}, fmt.Errorf("%w: the loss report and the output would both go to standard output", ErrOutputName)
	} else if f != "" && f != "-" {
		if err := checkOutput(f, o.Convert.Overwrite, nil); err != nil {
			return CaptureReport{}, fmt.Errorf("the loss report: %w", err)
		}
	}
	if o.Convert.Stdout == nil {
		o.Convert.Stdout = os.Stdout
	}

	sess, err := capture.Connect(ctx, target, &o.Capture)
	if err != nil {
		return CaptureReport{}, err
	}
	defer sess.Close()
	r := CaptureReport{Producer: sess.Producer()}
	if o.Connected != nil {
		o.Connected(r.Producer)
	}
	r.Input, r.From, r.To = target, r.Producer.Format, plan.format.Name
	for i, name := range names {
		if i > 0 && o.Interval > 0 {
			select {
			case <-ctx.Done():
				return r, ctx.Err()
			case <-time.After(o.Interval):
			}
		}
		var n int64
		var loss ir.LossReport
		if r.Producer.Format == plan.format.Name && !o.Convert.Redact {
			n, err = captureDirect(ctx, sess, name, plan, &o.Convert)
		} else {
			n, loss, err = captureConverted(ctx, sess, name, plan, &o.Convert)
		}
		if err != nil {
			if ctx.Err() != nil {
				return r, ctx.Err()
			}
			return r, err
		}
		r.Received = append(r.Received, n)
		r.Outputs = append(r.Outputs, outputName(name))
		r.Losses = append(r.Losses, loss...)
		if o.Written != nil {
			o.Written(i, outputName(name), n)
		}
	}
	r.Losses = mergedLosses(r.Losses)
	if f := o.Convert.LossReportFile; f != "" {
		report, err := createOutput(f, nil, &o.Convert, nil)
		if err != nil {
			return r, fmt.Errorf("the loss report: %w", err)
		}
		if err := writeLossReport(report, r.LossReport); err != nil {
			report.abort()
			return r, err
		}
		if err := publish([]*atomicFile{report}); err != nil {
			report.abort()
			return r, fmt.Errorf("the loss report: writing %s: %w", report.name, err)
		}
	}
	return r, nil
}

// outputName names an output in reports: "-" is standard output.
func outputName(name string) string {
	if name == "-" {
		return "standard output"
	}
	return name
}

// captureDirect writes a snapshot in the producer's format as it comes.
func captureDirect(ctx context.Context, sess *capture.Session, name string, plan *outputPlan, o *ConvertOptions) (int64, error) {
	out, err := createOutput(name, plan.wrapper, o, nil)
	if err != nil {
		return 0, err
	}
	n, err := sess.Snapshot(ctx, ctxWriter{ctx, out.w})
	if err == nil {
		err = out.finish()
	}
	if err == nil {
		err = publish([]*atomicFile{out})
	}
	if err != nil {
		out.abort()
		return n, err
	}
	return n, nil
}

// captureConverted reads a snapshot into the IR as it comes, and writes
// it in the planned format, as ConvertFile does.
func captureConverted(ctx context.Context, sess *capture.Session, name string, plan *outputPlan, o *ConvertOptions) (int64, ir.LossReport, error) {
	pr, pw := io.Pipe()
	type result struct {
		n   int64
		err error
	}
	done := make(chan result, 1)
	// A conversion that fails ends the snapshot: closing the pipe stops
	// its writes, but not its wait for the VM's next message, which a
	// broken VM may never send.
	snapCtx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		n, err := sess.Snapshot(snapCtx, pw)
		pw.CloseWithError(err)
		done <- result{n, err}
	}()
	co := *o
	co.To = plan.format.Name
	co.Snapshots = WholeFile
	co.LossReportFile = ""
	co.Stdin = pr
	co.Read = ReadOptions{Format: sess.Producer().Format, Name: sess.Producer().Target}
	rep, err := ConvertFileContext(ctx, "-", name, &co)
	ended := errors.New("the conversion ended")
	pr.CloseWithError(ended) // the snapshot's writer stops
	if err != nil {
		stop()
	}
	got := <-done
	stopped := err != nil && ctx.Err() == nil && errors.Is(got.err, context.Canceled)
	if got.err != nil && !errors.Is(got.err, ended) && !stopped {
		return got.n, nil, got.err // the capture's failure explains the conversion's
	}
	if err != nil {
		return got.n, nil, err
	}
	return got.n, rep.Losses, nil
}
