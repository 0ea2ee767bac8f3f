package ir_test

import (
	"slices"
	"testing"

	"github.com/heapconv/heapconv/ir"
)

func TestLossString(t *testing.T) {
	tests := []struct {
		loss ir.Loss
		want string
	}{
		{ir.Loss{Kind: "v8-section", What: "the V8 section has no place here"}, "the V8 section has no place here"},
		{ir.Loss{Kind: "values", Count: 1, What: "primitive values"}, "1 × primitive values"},
		{ir.Loss{Kind: "values", Count: 999, What: "values"}, "999 × values"},
		{ir.Loss{Kind: "values", Count: 1000, What: "values"}, "1,000 × values"},
		{ir.Loss{Kind: "values", Count: 1234567, What: "values"}, "1,234,567 × values"},
		{ir.Loss{Kind: "values", Count: 123456789012, What: "values"}, "123,456,789,012 × values"},
		{ir.Loss{Kind: "totals", Count: 2, What: "totals", Example: "a=1, b=2"}, "2 × totals (e.g. a=1, b=2)"},
		{ir.Loss{Kind: "recovered", What: "damaged", Example: "offset 7"}, "damaged (e.g. offset 7)"},
	}
	for _, tc := range tests {
		if got := tc.loss.String(); got != tc.want {
			t.Errorf("%#v: %q, want %q", tc.loss, got, tc.want)
		}
	}
}

// add is one call of Add, with the example set after it as writers do.
type add struct {
	kind    string
	count   int64
	what    string
	example string
}

func report(adds ...add) ir.LossReport {
	var l ir.LossReport
	for _, a := range adds {
		e := l.Add(a.kind, a.count, a.what)
		if a.example != "" {
			e.WithExample(a.example)
		}
	}
	return l
}

func TestLossReportAdd(t *testing.T) {
	tests := []struct {
		name string
		adds []add
		want ir.LossReport
	}{
		{"empty", nil, nil},
		{"one", []add{{"values", 3, "values", ""}}, ir.LossReport{{Kind: "values", Count: 3, What: "values"}}},
		{"kinds in order of first add",
			[]add{{"b", 1, "bees", ""}, {"a", 2, "ants", ""}},
			ir.LossReport{{Kind: "b", Count: 1, What: "bees"}, {Kind: "a", Count: 2, What: "ants"}}},
		{"a kind added per snapshot: counts summed, first what and example kept",
			[]add{
				{"capture-time", 1, "capture times", "snapshot 0: t0"},
				{"values", 5, "values", ""},
				{"capture-time", 1, "capture times again", "snapshot 1: t1"},
				{"capture-time", 1, "capture times", "snapshot 2: t2"},
			},
			ir.LossReport{
				{Kind: "capture-time", Count: 3, What: "capture times", Example: "snapshot 0: t0"},
				{Kind: "values", Count: 5, What: "values"},
			}},
		{"the first example, even when the first add had none",
			[]add{{"edges", 4, "edges", ""}, {"edges", 2, "edges", "e1"}, {"edges", 1, "edges", "e2"}},
			ir.LossReport{{Kind: "edges", Count: 7, What: "edges", Example: "e1"}}},
		{"a whole feature (count 0) twice",
			[]add{{"v8-section", 0, "the V8 section", ""}, {"v8-section", 0, "the V8 section", ""}},
			ir.LossReport{{Kind: "v8-section", What: "the V8 section"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := report(tc.adds...); !slices.Equal(got, tc.want) {
				t.Errorf("report\n%#v\nwant\n%#v", got, tc.want)
			}
		})
	}
}

func TestLossReportAddf(t *testing.T) {
	var l ir.LossReport
	l.Addf("sizes-capped", 2, "nodes above %d bytes", 65535).WithExample("node 3")
	want := ir.LossReport{{Kind: "sizes-capped", Count: 2, What: "nodes above 65535 bytes", Example: "node 3"}}
	if !slices.Equal(l, want) {
		t.Errorf("%#v, want %#v", l, want)
	}
}

func TestLossReportMerge(t *testing.T) {
	tests := []struct {
		name        string
		into, other ir.LossReport
		want        ir.LossReport
	}{
		{"into empty", nil, report(add{"a", 1, "ants", "x"}), report(add{"a", 1, "ants", "x"})},
		{"empty other", report(add{"a", 1, "ants", ""}), nil, report(add{"a", 1, "ants", ""})},
		{"shared kind summed, new kinds appended",
			report(add{"a", 1, "ants", ""}, add{"b", 2, "bees", "b0"}),
			report(add{"b", 3, "other bees", "b1"}, add{"c", 0, "cats", ""}, add{"a", 4, "other ants", "a1"}),
			ir.LossReport{
				{Kind: "a", Count: 5, What: "ants", Example: "a1"},
				{Kind: "b", Count: 5, What: "bees", Example: "b0"},
				{Kind: "c", What: "cats"},
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := slices.Clone(tc.into)
			got.Merge(tc.other)
			if !slices.Equal(got, tc.want) {
				t.Errorf("merged\n%#v\nwant\n%#v", got, tc.want)
			}
		})
	}
}

func TestLossReportQueries(t *testing.T) {
	l := report(add{"values", 1234, "primitive values", ""}, add{"v8-section", 0, "the V8 section", ""},
		add{"totals", 2, "totals", "a=1"})
	if got := l.Kinds(); !slices.Equal(got, []string{"values", "v8-section", "totals"}) {
		t.Errorf("Kinds %q", got)
	}
	for _, tc := range []struct {
		kind  string
		has   bool
		count int64
	}{
		{"values", true, 1234},
		{"v8-section", true, 0},
		{"edges", false, 0},
	} {
		got, ok := l.Get(tc.kind)
		if ok != tc.has || l.Has(tc.kind) != tc.has || got.Count != tc.count || ok && got.Kind != tc.kind {
			t.Errorf("%s: Get %v %v, Has %v", tc.kind, got, ok, l.Has(tc.kind))
		}
	}
	want := "1,234 × primitive values\nthe V8 section\n2 × totals (e.g. a=1)"
	if got := l.String(); got != want {
		t.Errorf("String\n%s\nwant\n%s", got, want)
	}
	if got := ir.LossReport(nil).String(); got != "" {
		t.Errorf("empty report: %q", got)
	}
}

// TestTotalsChanged counts the totals not carried as they are: lost,
// changed (lost and added) and computed.
func TestTotalsChanged(t *testing.T) {
	a := ir.Total{Name: "a", Value: 1}
	for _, c := range []struct {
		from, to []ir.Total
		n        int
		example  string
	}{
		{nil, nil, 0, ""},
		{[]ir.Total{a}, []ir.Total{a}, 0, ""},
		{[]ir.Total{a}, nil, 1, "not kept: a=1"},
		{nil, []ir.Total{a, {Name: "b"}}, 2, "computed: a=1, b=0"},
		{[]ir.Total{a, {Name: "b", Value: 2}}, []ir.Total{{Name: "b", Value: 3}, a}, 2, "not kept: b=2; computed: b=3"},
	} {
		if n, ex := ir.TotalsChanged(c.from, c.to); n != c.n || ex != c.example {
			t.Errorf("TotalsChanged(%v, %v) = %d, %q; want %d, %q", c.from, c.to, n, ex, c.n, c.example)
		}
	}
}
