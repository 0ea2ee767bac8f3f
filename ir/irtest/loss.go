package irtest

import (
	"strings"
	"testing"

	"github.com/heapconv/heapconv/ir"
)

// WantLoss checks that a loss report has count items of the kind of loss,
// its line mentioning each of texts.
func WantLoss(t testing.TB, loss ir.LossReport, kind string, count int64, texts ...string) {
	t.Helper()
	l, ok := loss.Get(kind)
	if !ok {
		t.Errorf("no %s loss in\n%v", kind, loss)
		return
	}
	if l.Count != count {
		t.Errorf("%s loss of %d, want %d: %v", kind, l.Count, count, l)
	}
	for _, w := range texts {
		if !strings.Contains(l.String(), w) {
			t.Errorf("%s loss does not mention %q: %v", kind, w, l)
		}
	}
}
