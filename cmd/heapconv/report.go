package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/heapconv/heapconv/ir"
)

// lossReport is what a conversion could not carry into its output(s):
// the --loss-report file's contents (its field names are a contract) and
// what the warning on standard error says.
type lossReport struct {
	In      string        `json:"input"`
	From    string        `json:"from"`
	To      string        `json:"to"`
	Outputs []string      `json:"outputs"`
	Losses  ir.LossReport `json:"losses"`
}

// printLoss warns on standard error, unless quiet, of what the outputs
// could not hold: one line per kind of loss, for every output together.
func printLoss(e *env, r lossReport, quiet bool) {
	var losses ir.LossReport
	losses.Merge(r.Losses)
	if quiet || len(losses) == 0 {
		return
	}
	var b strings.Builder
	what := "the " + r.To + " file"
	if len(r.Outputs) > 1 {
		what = fmt.Sprintf("the %d %s files", len(r.Outputs), r.To)
	}
	kinds := "1 kind of loss"
	if len(losses) > 1 {
		kinds = fmt.Sprintf("%d kinds of loss", len(losses))
	}
	fmt.Fprintf(&b, "warning: %s cannot hold everything the %s input had; not kept (%s; -q hides this):\n", what, r.From, kinds)
	for _, l := range losses {
		fmt.Fprintf(&b, "  %s\n", l)
	}
	fmt.Fprint(e.stderr, b.String())
}

// writeLossReport writes the report as JSON into o (--loss-report) and
// finishes o.
func writeLossReport(o *output, r lossReport) error {
	var losses ir.LossReport
	losses.Merge(r.Losses)
	if losses == nil {
		losses = ir.LossReport{}
	}
	r.Losses = losses
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if _, err := o.w.Write(append(data, '\n')); err != nil {
		return fmt.Errorf("--loss-report: writing %s: %w", o.name, err)
	}
	if err := o.finish(); err != nil {
		return fmt.Errorf("--loss-report: %w", err)
	}
	return nil
}
