package conformance

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/heapconv/heapconv/ir"
	dartir "github.com/heapconv/heapconv/ir/dart"
	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
	moarvmir "github.com/heapconv/heapconv/ir/moarvm"
	v8ir "github.com/heapconv/heapconv/ir/v8"
)

// everyFieldProfile is a heapdump profile that uses every field pprof
// has, as a producer other than ffx might: the sample types (ffx's two and
// a third, or a Go heap profile's four), comments, time, duration, period
// and its type, drop and keep frames, doc URL, default sample type; the
// process labels ffx writes with --multi-process, and --with-tags'
// address and bytes; symbolized functions with system (mangled) names and
// start lines, and locations of inlined functions.
func everyFieldProfile(types [][2]string, defaultType string) *profile.Profile {
	p := &profile.Profile{
		Comments:          []string{"written by heapconv's tests", "every field"},
		TimeNanos:         1_700_000_000_123_456_789,
		DurationNanos:     5_000_000_000,
		PeriodType:        &profile.ValueType{Type: "space", Unit: "bytes"},
		Period:            512 * 1024,
		DropFrames:        `runtime\..*`,
		KeepFrames:        `main\..*`,
		DocURL:            "https://example.com/heap-profiles",
		DefaultSampleType: defaultType,
	}
	for _, t := range types {
		p.SampleType = append(p.SampleType, &profile.ValueType{Type: t[0], Unit: t[1]})
	}
	app := &profile.Mapping{ID: 1, Start: 0x10000, Limit: 0x20000, File: "libapp.so", BuildID: "0123456789abcdef0123456789abcdef",
		HasFunctions: true, HasFilenames: true, HasLineNumbers: true, HasInlineFrames: true}
	libc := &profile.Mapping{ID: 2, Start: 0x30000, Limit: 0x40000, File: "libc.so", BuildID: "fedcba9876543210",
		HasFunctions: true}
	p.Mapping = []*profile.Mapping{app, libc}
	fn := func(name, system, file string, start int64) *profile.Function {
		f := &profile.Function{ID: uint64(len(p.Function) + 1), Name: name, SystemName: system, Filename: file, StartLine: start}
		p.Function = append(p.Function, f)
		return f
	}
	malloc := fn("malloc", "", "", 0)
	opNew := fn("operator new(unsigned long)", "_Znwm", "", 0)
	grow := fn("app::Cache::grow()", "_ZN3app5Cache4growEv", "src/cache.cc", 80)
	insert := fn("app::Cache::insert()", "_ZN3app5Cache6insertEv", "src/cache.cc", 40)
	mainFn := fn("main", "main", "src/main.cc", 10)
	loc := func(m *profile.Mapping, addr uint64, lines ...profile.Line) *profile.Location {
		l := &profile.Location{ID: uint64(len(p.Location) + 1), Mapping: m, Address: addr, Line: lines}
		p.Location = append(p.Location, l)
		return l
	}
	lMalloc := loc(libc, 0x30010, profile.Line{Function: malloc})
	lNew := loc(app, 0x10010, profile.Line{Function: opNew})
	// Inlined functions, innermost first.
	lGrow := loc(app, 0x10100, profile.Line{Function: grow, Line: 85, Column: 7}, profile.Line{Function: insert, Line: 45, Column: 3})
	lMain := loc(app, 0x10200, profile.Line{Function: mainFn, Line: 12})
	lAll := loc(app, 0x10300, profile.Line{Function: grow, Line: 90}, profile.Line{Function: insert, Line: 50},
		profile.Line{Function: mainFn, Line: 14})
	stacks := [][]*profile.Location{{lMalloc, lNew, lGrow, lMain}, {lMalloc, lNew, lAll}, {lMalloc, lMain}}
	for k := range 9 {
		size := int64(16 << (k % 4))
		values := []int64{1, size}
		for j := range types[2:] {
			values = append(values, size*int64(j+2)+int64(k))
		}
		p.Sample = append(p.Sample, &profile.Sample{Location: stacks[k%len(stacks)], Value: values,
			Label:    map[string][]string{fuchsiair.ProcessNameLabel: {"cache_server"}, fuchsiair.AddressLabel: {fmt.Sprintf("0x%x", 0x7000+64*k)}},
			NumLabel: map[string][]int64{fuchsiair.ProcessKoidLabel: {4242}, fuchsiair.BytesLabel: {size}},
			NumUnit:  map[string][]string{fuchsiair.ProcessKoidLabel: {""}, fuchsiair.BytesLabel: {fuchsiair.BytesUnit}}})
	}
	return p
}

// profileFacts lists, by the loss kind that names them, what a profile
// says that a graph format may not hold, one string per item, so that what
// a conversion lost is what the source lists and the profile made of it
// again lacks. It reads the profile with google/pprof's library, not with
// heapconv's reader.
func profileFacts(p *profile.Profile) map[string][]string {
	out := map[string][]string{}
	add := func(kind, format string, args ...any) { out[kind] = append(out[kind], fmt.Sprintf(format, args...)) }
	for _, s := range p.Sample {
		for j, v := range s.Value[min(2, len(s.Value)):] {
			add(fuchsiair.LossSampleValues, "%s=%d", p.SampleType[j+2].Type, v)
		}
	}
	for _, t := range p.SampleType {
		add(fuchsiair.LossProfile, "sample type %s", valueType(t))
	}
	for _, c := range p.Comments {
		add(fuchsiair.LossProfile, "comment %s", c)
	}
	for _, f := range []struct {
		set   bool
		field string
		value any
	}{
		{p.DurationNanos != 0, "duration", p.DurationNanos},
		{p.PeriodType != nil && (p.PeriodType.Type != "" || p.PeriodType.Unit != ""), "period type", valueType(p.PeriodType)},
		{p.Period != 0, "period", p.Period},
		{p.DropFrames != "", "drop frames", p.DropFrames},
		{p.KeepFrames != "", "keep frames", p.KeepFrames},
		{p.DocURL != "", "doc url", p.DocURL},
		{p.DefaultSampleType != "", "default sample type", p.DefaultSampleType},
	} {
		if f.set {
			add(fuchsiair.LossProfile, "%s %v", f.field, f.value)
		}
	}
	if p.TimeNanos != 0 {
		add(ir.LossCaptureTime, "%d", p.TimeNanos)
	}
	koids := map[int64]bool{}
	for _, s := range p.Sample {
		for _, k := range s.NumLabel[fuchsiair.ProcessKoidLabel] {
			if !koids[k] {
				koids[k] = true
				add(fuchsiair.LossProcessKoids, "%d", k)
			}
		}
	}
	for _, f := range p.Function {
		if f.SystemName != "" {
			add(fuchsiair.LossSystemNames, "%s %s", f.Name, f.SystemName)
		}
		if f.StartLine != 0 {
			add(fuchsiair.LossStartLines, "%s %d", f.Name, f.StartLine)
		}
	}
	for _, l := range p.Location {
		if len(l.Line) > 1 {
			var names []string
			for _, ln := range l.Line {
				names = append(names, ln.Function.Name)
			}
			add(fuchsiair.LossInlineFrames, "%s", strings.Join(names, " < "))
		}
	}
	return out
}

// valueType spells a pprof value type "type/unit".
func valueType(vt *profile.ValueType) string { return vt.Type + "/" + vt.Unit }

// notIn counts the items of want that got lacks (as multisets).
func notIn(want, got []string) int {
	have := map[string]int{}
	for _, g := range got {
		have[g]++
	}
	n := 0
	for _, w := range want {
		if have[w] > 0 {
			have[w]--
		} else {
			n++
		}
	}
	return n
}

// TestPprofFieldsIntoGraphs: a pprof profile that uses every field,
// converted to V8, Dart and MoarVM, loses exactly what the loss report
// says, kind by kind. What was lost is measured by reading the output
// back and writing it as a profile again: the items of the source
// (profileFacts) the new profile lacks. The process's name is kept where
// the target has a place for it (V8's title, Dart's snapshot name), and
// named (snapshot-names) where it has none (MoarVM).
func TestPprofFieldsIntoGraphs(t *testing.T) {
	fuchsia := formatByName(fuchsiair.Format)
	o := newOracle(t.TempDir())
	for _, src := range []struct {
		name        string
		types       [][2]string
		defaultType string
	}{
		{"ffx-and-a-third", [][2]string{{fuchsiair.ObjectsType, fuchsiair.CountUnit}, {fuchsiair.AllocatedType, fuchsiair.BytesUnit},
			{"inuse_space", "bytes"}}, fuchsiair.AllocatedType},
		{"go-heap", [][2]string{{"alloc_objects", "count"}, {"alloc_space", "bytes"}, {"inuse_objects", "count"},
			{"inuse_space", "bytes"}}, "inuse_space"},
	} {
		p := everyFieldProfile(src.types, src.defaultType)
		if err := p.CheckValid(); err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := p.Write(&b); err != nil {
			t.Fatal(err)
		}
		in := read(t, fuchsia, b.Bytes())
		want := profileFacts(p)
		for _, target := range []string{v8ir.Format, dartir.Format, moarvmir.Format} {
			t.Run(src.name+"/"+target, func(t *testing.T) {
				tf := formatByName(target)
				out, loss := write(t, tf, in)
				conv := read(t, tf, out)
				again, _ := write(t, fuchsia, conv)
				back, err := profile.ParseData(again)
				if err != nil {
					t.Fatal(err)
				}
				got := profileFacts(back)
				for kind, items := range want {
					lost := notIn(items, got[kind])
					l, named := loss.Get(kind)
					if kind == fuchsiair.LossProfile && lost > 0 {
						t.Logf("%s: %d of %d lost: %s", kind, lost, len(items), l.Example)
					}
					switch {
					case lost == 0 && named:
						t.Errorf("%s: the loss report says %d lost (%s); none is", kind, l.Count, l.String())
					case lost > 0 && l.Count != int64(lost):
						t.Errorf("%s: %d of %d lost; the loss report says %d (%q)\n source: %q\n back:   %q", kind, lost, len(items), l.Count, l.String(),
							items, got[kind])
					}
				}
				name := ir.SnapshotName(conv, conv.Snapshots[0])
				l, named := loss.Get(ir.LossSnapshotNames)
				switch target {
				case moarvmir.Format:
					if name != "" || !named || l.Count != 1 {
						t.Errorf("MoarVM has no place for the process name, read back as %q; the loss report says %v", name, l)
					}
				default:
					if name != "cache_server" || named {
						t.Errorf("the process name is read back as %q (loss report: %v)", name, l)
					}
				}
				if target == v8ir.Format {
					path := o.file(t, src.name, out)
					o.expect(src.name, func(t *testing.T, sum func(string) *summary) {
						if s := sum(path); loaded(t, s) && s.NodeCount != int64(conv.Snapshots[0].Nodes.Len()) {
							t.Errorf("DevTools loads %d nodes, heapconv %d", s.NodeCount, conv.Snapshots[0].Nodes.Len())
						}
					})
				}
			})
		}
	}
	t.Run("devtools", o.run)
}
