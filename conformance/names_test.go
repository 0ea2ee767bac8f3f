package conformance

import (
	"bytes"
	"strings"
	"testing"

	dartir "github.com/heapconv/heapconv/ir/dart"
	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
	v8ir "github.com/heapconv/heapconv/ir/v8"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/devtools"

	"github.com/google/pprof/profile"
)

// longSymbols are two C++ allocation sites whose names share their first
// 1,100 characters, as template instantiations do; the second is 5,000
// characters long.
func longSymbols() [2]string {
	common := "std::__2::unique_ptr<" + strings.Repeat("fidl::internal::WireResponseContext<fuchsia_io::Node>, ", 18)
	common += strings.Repeat("x", 1100-len(common))
	beta := common + "Beta>::make()"
	return [2]string{common + "Alpha>::make()", beta + strings.Repeat("&", 5000-len(beta))}
}

// longSymbolProfile is a symbolized Fuchsia heapdump profile with one
// block allocated at each of longSymbols' sites.
func longSymbolProfile(t *testing.T) []byte {
	t.Helper()
	syms := longSymbols()
	m := &profile.Mapping{ID: 1, Start: 0x1000, Limit: 0x100000, File: "libapp.so", HasFunctions: true}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: fuchsiair.ObjectsType, Unit: fuchsiair.CountUnit},
			{Type: fuchsiair.AllocatedType, Unit: fuchsiair.BytesUnit}},
		Mapping: []*profile.Mapping{m},
	}
	for k, sym := range syms {
		fn := &profile.Function{ID: uint64(k + 1), Name: sym, SystemName: sym, Filename: "app.cc"}
		loc := &profile.Location{ID: uint64(k + 1), Mapping: m, Address: 0x1100 + 0x10*uint64(k), Line: []profile.Line{{Function: fn, Line: int64(10 + k)}}}
		p.Function = append(p.Function, fn)
		p.Location = append(p.Location, loc)
		p.Sample = append(p.Sample, &profile.Sample{Location: []*profile.Location{loc}, Value: []int64{1, 64 >> k}})
	}
	var b bytes.Buffer
	if err := p.WriteUncompressed(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestLongClassNamesInDevTools: allocation sites whose names differ only
// after V8's 1,024-unit string limit stay two classes in DevTools, each
// with its whole name (DevTools has no limit: one is 5,000 units long): a
// Fuchsia heap converted to V8, loaded by DevTools' loader, shows one
// Summary row per site, and the loss report names no cut.
func TestLongClassNamesInDevTools(t *testing.T) {
	syms := longSymbols()
	src := read(t, formatByName(fuchsiair.Format), longSymbolProfile(t))
	out, loss := write(t, formatByName(v8ir.Format), src)
	if loss.Has(ir.LossTruncatedNames) {
		t.Errorf("the loss report names a cut: %v", loss)
	}
	o := newOracle(t.TempDir())
	path := o.file(t, "long-symbols", out)
	o.expect("long-symbols", func(t *testing.T, sum func(string) *summary) {
		s := sum(path)
		if !loaded(t, s) {
			return
		}
		rows := byClassName(s)
		for k, sym := range syms {
			if r := rows[sym]; r.Count != 1 || r.Self != int64(64>>k) {
				t.Errorf("DevTools' row of site %d (%d units): %+v, want 1 object of %d bytes", k, len(sym), r, 64>>k)
			}
		}
		for name := range rows {
			if strings.HasPrefix(name, syms[0][:1000]) && name != syms[0] && name != syms[1] {
				t.Errorf("DevTools shows a row of %d units named like the sites", len(name))
			}
		}
	})
	t.Run("devtools", o.run)
}

// TestV8StringsThroughDart: the strings of a V8 heap come back from Dart
// as V8 wrote them, V8's own longest (1,023 units and a surrogate pair the
// cut split, written "???": 1,026 units) included, and no step names a
// cut.
func TestV8StringsThroughDart(t *testing.T) {
	v8, dart := formatByName(v8ir.Format), formatByName(dartir.Format)
	for name, f := range fixtures(t, v8) {
		s := f.Snapshots[0]
		var long []int // string nodes named by more than the limit
		for i := range s.Nodes.Len() {
			if isString(s.NodeKindName(i)) && ir.UTF16Len(f.String(s.Nodes.Name[i])) > devtools.MaxStringUnits {
				long = append(long, i)
			}
		}
		if len(long) == 0 {
			t.Errorf("%s: no string node is named by more than %d units; the fixture should have V8's 1,026-unit string", name, devtools.MaxStringUnits)
			continue
		}
		d, loss1 := mustThrough(t, dart, f)
		back, loss2 := mustThrough(t, v8, d)
		for _, loss := range []ir.LossReport{loss1, loss2} {
			if loss.Has(ir.LossTruncatedNames) {
				t.Errorf("%s: the loss report names a cut: %v", name, loss)
			}
		}
		b := back.Snapshots[0]
		for _, i := range long {
			if want, got := f.String(s.Nodes.Name[i]), back.String(b.Nodes.Name[i]); got != want {
				t.Errorf("%s: v8 → dart → v8: string node %d of %d units came back with %d", name, i, ir.UTF16Len(want), ir.UTF16Len(got))
			}
		}
	}
}
