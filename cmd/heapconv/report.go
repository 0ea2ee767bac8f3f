package main

import (
	"fmt"
	"strings"

	"github.com/heapconv/heapconv"
)

// printLoss warns on standard error, unless quiet, of what the outputs
// could not hold: one line per kind of loss, for every output together.
func printLoss(e *env, r heapconv.LossReport, quiet bool) {
	if quiet || len(r.Losses) == 0 {
		return
	}
	var b strings.Builder
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
		fmt.Fprintf(&b, "warning: %s differs from the %s input (%s; -q hides this):\n", what, r.From, plural(len(r.Losses), "change"))
	} else {
		kinds := "1 kind of loss"
		if len(r.Losses) > 1 {
			kinds = fmt.Sprintf("%d kinds of loss", len(r.Losses))
		}
		fmt.Fprintf(&b, "warning: %s cannot hold everything the %s input had; not kept (%s; -q hides this):\n", what, r.From, kinds)
	}
	for _, l := range r.Losses {
		fmt.Fprintf(&b, "  %s\n", l)
	}
	fmt.Fprint(e.stderr, b.String())
}
