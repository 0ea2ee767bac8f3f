package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"heapconv/ir"
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

// reportLoss warns on standard error (unless quiet) and writes the
// report as JSON to file (unless ""; "-" is standard output). The losses
// of every output (--snapshot all) make one report, one line per kind.
func reportLoss(e *env, r lossReport, quiet bool, file string) error {
	var merged ir.LossReport
	merged.Merge(r.Losses)
	r.Losses = merged
	if r.Losses == nil {
		r.Losses = ir.LossReport{}
	}
	if !quiet && len(r.Losses) > 0 {
		var b strings.Builder
		what := "the " + r.To + " file"
		if len(r.Outputs) > 1 {
			what = fmt.Sprintf("the %d %s files", len(r.Outputs), r.To)
		}
		kinds := "1 kind of loss"
		if len(r.Losses) > 1 {
			kinds = fmt.Sprintf("%d kinds of loss", len(r.Losses))
		}
		fmt.Fprintf(&b, "warning: %s cannot hold everything the %s input had; not kept (%s; -q hides this):\n", what, r.From, kinds)
		for _, l := range r.Losses {
			fmt.Fprintf(&b, "  %s\n", l)
		}
		fmt.Fprint(e.stderr, b.String())
	}
	if file == "" {
		return nil
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	o, err := createOutput(e, file, true, nil, nil)
	if err != nil {
		return fmt.Errorf("--loss-report: %w", err)
	}
	if _, err := o.w.Write(data); err != nil {
		o.abort()
		return fmt.Errorf("--loss-report: writing %s: %w", o.name, err)
	}
	return o.commit()
}
