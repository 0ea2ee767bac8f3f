package main

import (
	"fmt"
	"strings"

	"github.com/heapconv/heapconv"
	"github.com/heapconv/heapconv/ir"
)

// printLoss warns on standard error, unless quiet, of what the outputs
// could not hold: one line per kind of loss, for every output together.
// What --redact (redact) replaced comes first, apart: it is no loss of
// the output format; that it found nothing to replace is said too.
func printLoss(e *env, r heapconv.LossReport, quiet, redact bool) {
	if quiet || len(r.Losses) == 0 && !redact {
		return
	}
	var redacted, losses []ir.Loss
	for _, l := range r.Losses {
		if ir.IsRedaction(l.Kind) {
			redacted = append(redacted, l)
		} else {
			losses = append(losses, l)
		}
	}
	var b strings.Builder
	if redact && len(redacted) == 0 {
		fmt.Fprintf(&b, "redacted (--redact): nothing; the %s input holds nothing the program stored\n", r.From)
	}
	if len(redacted) > 0 {
		fmt.Fprintf(&b, "redacted (--redact; %s; -q hides this):\n", plural(len(redacted), "kind"))
		for _, l := range redacted {
			fmt.Fprintf(&b, "  %s\n", l)
		}
	}
	if len(losses) == 0 {
		fmt.Fprint(e.stderr, b.String())
		return
	}
	what := "the " + r.To + " file"
	if r.To == heapconv.FormatParquet {
		what = "the Parquet tables"
	}
	if len(r.Outputs) > 1 {
		what = fmt.Sprintf("the %d %s files", len(r.Outputs), r.To)
	}
	if r.From == r.To {
		// Written in its own format, a file changes only where it breaks
		// what its readers need (a V8 header DevTools cannot load).
		fmt.Fprintf(&b, "warning: %s differs from the %s input (%s; -q hides this):\n", what, r.From, plural(len(losses), "change"))
	} else {
		kinds := "1 kind of loss"
		if len(losses) > 1 {
			kinds = fmt.Sprintf("%d kinds of loss", len(losses))
		}
		fmt.Fprintf(&b, "warning: %s cannot hold everything the %s input had; not kept (%s; -q hides this):\n", what, r.From, kinds)
	}
	for _, l := range losses {
		fmt.Fprintf(&b, "  %s\n", l)
	}
	fmt.Fprint(e.stderr, b.String())
}
