package irstream

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/heapconv/heapconv/internal/sampling"
	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/irtest"
	v8ir "github.com/heapconv/heapconv/ir/v8"
)

func deepRecs(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = deepRecs(x[i])
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepRecs(e)
		}
		return out
	case []byte:
		return bytes.Clone(x)
	}
	return v
}

func basedFiles(t *testing.T) []*ir.File {
	o := irtest.V8Shaped(10, 30)
	o.V8 = &irtest.V8Options{Layout: v8ir.LayoutRows, TraceNodeID: true, EdgeExtra: true}
	f := irtest.Random(3, o)
	r := rand.New(rand.NewPCG(3, 7))
	for range 3 {
		f.Snapshots = append(f.Snapshots, evolve(f.Snapshots[len(f.Snapshots)-1], r))
	}
	fo := irtest.FuchsiaEverything()
	fo.MultiProcess, fo.Interleaved = false, false
	g := irtest.RandomFuchsia(4, irtest.Options{MinNodes: 5, MaxNodes: 30}, fo)
	for range 2 {
		g.Snapshots = append(g.Snapshots, nextFuchsia(t, g, r, false))
	}
	// Dart too, with a series (framed).
	do := irtest.Options{MinNodes: 5, MaxNodes: 30, Dart: &irtest.DartOptions{Hashes: true, ZeroRefs: true}}
	d := irtest.Random(5, do)
	d2 := *d
	s := deepCopy(t, d, 0)
	permuteIdentities(s, r, func(i, j int) bool { return s.Nodes.Class[i] == s.Nodes.Class[j] }, func(i, j int) {
		a, b := s.Nodes.ID.At(i), s.Nodes.ID.At(j)
		s.Nodes.ID.Set(i, b)
		s.Nodes.ID.Set(j, a)
	}, true)
	d2.Snapshots = []*ir.Snapshot{s}
	ser, err := ir.JoinSeries(d, &d2)
	if err != nil {
		t.Fatal(err)
	}
	return []*ir.File{f, g, ser}
}

func TestBaseMutated(t *testing.T) {
	files := basedFiles(t)
	const all = 3000
	iters := sampling.Count(all, 12)
	sampling.Logf(t, iters, all, "mutations of each file")
	for fi, f := range files {
		var buf bytes.Buffer
		if err := Encode(&buf, f); err != nil {
			t.Fatal(err)
		}
		orig := recordsOf(t, buf.Bytes())
		// names of every declared column of every snapshot
		var names []string
		var declsAll [][]any
		for _, r := range orig {
			a := r.([]any)
			if a[0] == "snapshot" {
				for _, d := range a[2].([]any) {
					names = append(names, d.([]any)[0].(string))
					declsAll = append(declsAll, d.([]any))
				}
			}
			if a[0] == "section" {
				for _, d := range a[5].([]any) {
					names = append(names, d.([]any)[0].(string))
					declsAll = append(declsAll, d.([]any))
				}
			}
		}
		rng := rand.New(rand.NewPCG(uint64(fi), 99))
		panics := map[string]int{}
		for it := range iters {
			recs := deepRecs(orig).([]any)
			nm := 1 + rng.IntN(3)
			for range nm {
				i := rng.IntN(len(recs))
				a := recs[i].([]any)
				switch a[0] {
				case "snapshot":
					fields := a[1].(map[string]any)
					switch rng.IntN(6) {
					case 0:
						b, _ := fields["based"].([]any)
						fields["based"] = append(b, names[rng.IntN(len(names))])
						if _, ok := fields["base"]; !ok {
							fields["base"] = 0
							a[2] = append([]any{[]any{"node.base", "uint", "node", ""}}, a[2].([]any)...)
						}
					case 1:
						fields["base"] = rng.IntN(4) - 1
					case 2:
						fields["nodes"] = uint64(rng.Uint32())
					case 3:
						fields["edges"] = uint64(rng.Uint32())
					case 4:
						// change a declaration's type
						ds := a[2].([]any)
						d := ds[rng.IntN(len(ds))].([]any)
						d[1] = []string{"uint", "int", "count", "index", "index+1", "bytes", "string"}[rng.IntN(7)]
					case 5:
						delete(fields, "based")
					}
				case "section":
					ds := a[5].([]any)
					if len(ds) > 0 {
						d := ds[rng.IntN(len(ds))].([]any)
						d[1] = []string{"uint", "int", "count", "index", "index+1", "bytes", "string"}[rng.IntN(7)]
					}
				case "col":
					switch rng.IntN(4) {
					case 0:
						bin := a[len(a)-1].([]byte)
						if len(bin) > 0 {
							bin[rng.IntN(len(bin))] = byte(rng.Uint32())
						}
					case 1:
						recs[i] = []any{"zeros", a[1], a[2], rng.IntN(70000)}
					case 2:
						a[len(a)-1] = append(a[len(a)-1].([]byte), make([]byte, 8*rng.IntN(100))...)
					case 3:
						// move it elsewhere
						j := rng.IntN(len(recs))
						recs[i], recs[j] = recs[j], recs[i]
					}
				case "zeros":
					a[3] = rng.IntN(70000)
				}
			}
			parts := partsOf(recs)
			pb := encParts(t, parts)
			data := framed(t, pb)
			plain := bytes.Join(pb, nil)
			func() {
				defer func() {
					if r := recover(); r != nil {
						k := fmt.Sprint(r)
						if panics[k] == 0 {
							t.Errorf("file %d it %d: Decode PANIC %v\n%s", fi, it, r, stack())
						}
						panics[k]++
					}
				}()
				Decode(bytes.NewReader(plain))
			}()
			for n := range len(f.Snapshots) {
				func() {
					defer func() {
						if r := recover(); r != nil {
							k := fmt.Sprint(r)
							if panics[k] == 0 {
								t.Errorf("file %d it %d: DecodeSnapshot(%d) PANIC %v\n%s", fi, it, n, r, stack())
							}
							panics[k]++
						}
					}()
					g, err := DecodeSnapshot(bytes.NewReader(data), int64(len(data)), n)
					if err == nil {
						whole, werr := Decode(bytes.NewReader(plain))
						if werr == nil {
							want, _ := whole.Select(n)
							if d := ir.Diff(want, g, 3); len(d) > 0 {
								k := "differs"
								if panics[k] == 0 {
									t.Errorf("file %d it %d: DecodeSnapshot(%d) differs from Decode().Select: %.300v", fi, it, n, d)
								}
								panics[k]++
							}
						}
					}
				}()
			}
		}
		if len(panics) > 0 {
			t.Logf("file %d: failures by kind %v", fi, panics)
		}
	}
}
