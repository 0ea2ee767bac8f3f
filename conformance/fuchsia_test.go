package conformance

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"

	"github.com/google/pprof/profile"

	"github.com/heapconv/heapconv/internal/fuchsiagen"
	"github.com/heapconv/heapconv/internal/gotool"
	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/analysis"
	"github.com/heapconv/heapconv/ir/devtools"
	"github.com/heapconv/heapconv/ir/irtest"
	rfuchsia "github.com/heapconv/heapconv/readers/fuchsia"
	wfuchsia "github.com/heapconv/heapconv/writers/fuchsia"
)

// pprofRaw runs `go tool pprof -raw` on a profile, the judge of pprof
// output, and returns what it prints. A profile is run once per test
// binary (pprofSeen): the suite often has the same bytes twice (a write,
// then samePprof on it).
func pprofRaw(t *testing.T, data []byte) string {
	t.Helper()
	h := sha256.Sum256(data)
	pprofSeen.Lock()
	r, ok := pprofSeen.m[h]
	pprofSeen.Unlock()
	if !ok {
		r.out, r.err = runPprofRaw(t, data)
		pprofSeen.Lock()
		pprofSeen.m[h] = r
		pprofSeen.Unlock()
	}
	if r.err != "" {
		t.Fatal(r.err)
	}
	return r.out
}

// pprofSeen holds what pprof -raw printed, or its failure, per profile.
var pprofSeen = struct {
	sync.Mutex
	m map[[32]byte]struct{ out, err string }
}{m: map[[32]byte]struct{ out, err string }{}}

// runPprofRaw runs the tool (or, without it, its parser: gotool.UsesTool);
// err is the failure, "" if none.
func runPprofRaw(t *testing.T, data []byte) (out, err string) {
	t.Helper()
	if !gotool.UsesTool() {
		raw, rerr := gotool.Raw(data)
		if rerr != nil {
			return "", fmt.Sprintf("pprof's parser refuses the profile: %v", rerr)
		}
		return raw, ""
	}
	pprof, perr := gotool.Pprof()
	if perr != nil {
		return "", perr.Error()
	}
	path := filepath.Join(t.TempDir(), "profile.pb")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var outb, errb bytes.Buffer
	cmd := exec.Command(pprof, "-raw", path)
	cmd.Stdout, cmd.Stderr = &outb, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Sprintf("go tool pprof -raw refuses the profile: %v\n%s", err, errb.String())
	}
	return outb.String(), ""
}

// samePprof requires two profiles to be the same for pprof: `go tool pprof
// -raw` prints them alike (samples, values, labels, locations, mappings),
// whatever their bytes or compression.
func samePprof(t *testing.T, got, want []byte) {
	t.Helper()
	g, w := pprofRaw(t, got), pprofRaw(t, want)
	if g != w {
		gl, wl := strings.Split(g, "\n"), strings.Split(w, "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("pprof -raw differs at line %d:\n got  %q\n want %q", i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("pprof -raw: %d lines, want %d", len(gl), len(wl))
	}
}

// pprofJudge is what go tool pprof does with a profile: the pprof
// library's Parse (gunzip, decode, postDecode) and CheckValid.
func pprofJudge(data []byte) error {
	p, err := profile.Parse(bytes.NewReader(data))
	if err != nil {
		return err
	}
	return p.CheckValid()
}

// TestFuchsiaDevTools reads the fixtures that have a contents directory with
// pointer scanning, converts each process to V8 and has DevTools' loader
// open it: its per-class retained sizes must equal heapconv's on the
// Fuchsia graph (blocks nothing points to as roots), and some class must
// retain more than itself, or the derived edges would be for nothing.
func TestFuchsiaDevTools(t *testing.T) {
	o := newOracle(t.TempDir())
	dir := filepath.Join(moduleRoot, "testdata", "fuchsia")
	contents, err := filepath.Glob(filepath.Join(dir, "*.contents"))
	if err != nil || len(contents) == 0 {
		t.Fatalf("no fixture with a contents directory in %s", dir)
	}
	type heap struct {
		base string
		f    *ir.File
	}
	var heaps []heap
	for _, cdir := range contents {
		base := strings.TrimSuffix(filepath.Base(cdir), ".contents")
		profiles, _ := filepath.Glob(filepath.Join(dir, base+".pb*"))
		if len(profiles) != 1 {
			t.Fatalf("%s: %d profiles next to it", cdir, len(profiles))
		}
		data, err := os.ReadFile(profiles[0])
		if err != nil {
			t.Fatal(err)
		}
		f, err := rfuchsia.ReadBytes(data, rfuchsia.Options{ContentsDir: cdir, ScanPointers: true})
		if err != nil {
			t.Fatalf("%s: %v", profiles[0], err)
		}
		heaps = append(heaps, heap{base, f})
	}
	// The FIDL streams with contents carry them in the stream.
	for _, name := range []string{"single-contents", "multi-contents"} {
		path := filepath.Join(moduleRoot, "testdata", "fuchsia-fidl", name+".fidlstream")
		r, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := rfuchsia.ReadFIDL(r, rfuchsia.Options{ScanPointers: true})
		r.Close()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		heaps = append(heaps, heap{"fidl-" + name, f})
	}
	nontrivial := 0
	for _, h := range heaps {
		base, f := h.base, h.f
		for k := range f.Snapshots {
			name := fmt.Sprintf("%s-process%d", base, k)
			g, err := f.Select(k)
			if err != nil {
				t.Fatal(err)
			}
			s := g.Snapshots[0]
			if s.Edges.Len() == 0 {
				t.Errorf("%s: no edges derived", name)
			}
			want, err := analysis.SummarizeBy(g, s, 1<<20, analysis.ByRetained) // every class
			if err != nil {
				t.Fatal(err)
			}
			if len(want.TopClasses) == 0 {
				t.Fatalf("%s: no classes", name)
			}
			for _, c := range want.TopClasses {
				if *c.Retained > c.SelfSize {
					nontrivial++
				}
			}
			conv, _, err := devtools.Convert(g)
			if err != nil {
				t.Fatalf("%s: Convert: %v", name, err)
			}
			out := convertAndCheck(t, g, conv)
			path := o.file(t, "fuchsia-"+name, out)
			o.expect("fuchsia/"+name, func(t *testing.T, sum func(string) *summary) {
				got := sum(path)
				if !loaded(t, got) {
					return
				}
				for _, c := range want.TopClasses {
					dc, ok := got.Classes[jsonName(c.Name)]
					if !ok {
						t.Errorf("class %q: not in DevTools' Summary", c.Name)
						continue
					}
					// (Counts may differ: DevTools leaves zero-size blocks out.)
					if uint64(dc.MaxRet) != *c.Retained || uint64(dc.Self) != c.SelfSize {
						t.Errorf("class %q: DevTools self %d retained %d; heapconv %d %d",
							c.Name, uint64(dc.Self), uint64(dc.MaxRet), c.SelfSize, *c.Retained)
					}
				}
			})
		}
	}
	if nontrivial == 0 {
		t.Error("no class retains more than its own blocks: the derived edges retain nothing")
	}
	t.Run("devtools", o.run)
}

// TestFuchsiaFIDLAsFFX checks that a FIDL stream maps into the IR as ffx
// maps it into a profile: every generated stream fixture, read and written
// as pprof, is the profile ffx --with-tags writes from the same snapshots
// (fuchsiagen reproduces it), as `go tool pprof -raw` prints them.
func TestFuchsiaFIDLAsFFX(t *testing.T) {
	n := 0
	for _, fx := range fuchsiagen.StreamFixtures() {
		data, snaps, so, err := fx.Make()
		if err != nil {
			t.Fatal(err)
		}
		if snaps == nil {
			continue // hand-made: no ffx profile to compare with
		}
		t.Run(fx.Name, func(t *testing.T) {
			f, err := rfuchsia.ReadFIDL(bytes.NewReader(data), rfuchsia.Options{Size: int64(len(data))})
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			loss, err := wfuchsia.Write(&got, f, wfuchsia.Options{NoGzip: true})
			if err != nil {
				t.Fatal(err)
			}
			// A profile holds all of the stream but the stream's own
			// details (and the contents, without a contents directory).
			loss = slices.DeleteFunc(loss, func(l ir.Loss) bool { return l.Kind == fuchsiair.LossStream })
			if len(loss) > 0 && fuchsiair.Of(f.Snapshots[0]).ContentsStart == nil {
				t.Errorf("loss report:\n%v", loss)
			}
			if so.APILevel != 0 && so.APILevel < 27 {
				// An old collector sends no region names: ffx has none to
				// write.
				for _, s := range snaps {
					for i := range s.Regions {
						s.Regions[i].Name = ""
					}
				}
			}
			want, err := fuchsiagen.ProfileBytes(snaps, fuchsiagen.WriteOptions{Era: fuchsiagen.EraNewest, WithTags: true, MultiProcess: so.MultiProcess})
			if err != nil {
				t.Fatal(err)
			}
			samePprof(t, got.Bytes(), want)
		})
		n++
	}
	if n < 4 {
		t.Fatalf("only %d generated stream fixtures", n)
	}
}

// TestFuchsiaFIDLStreamDetails writes random stream-shaped IR (every
// chunking, batching, field set and unknown field a stream may have) as a
// stream and reads it back: the stream details must come back as they were.
func TestFuchsiaFIDLStreamDetails(t *testing.T) {
	for seed := int64(1); seed < 200; seed++ {
		f := irtest.RandomFuchsia(seed, irtest.Options{MinNodes: 0, MaxNodes: 30, Snapshots: 1 + int(seed%3)}, irtest.FuchsiaOptions{Stream: true, Tags: true, MultiProcess: seed%2 == 0, Contents: true})
		var b bytes.Buffer
		if _, err := wfuchsia.WriteFIDL(&b, f); err != nil {
			t.Fatal(seed, err)
		}
		g, err := rfuchsia.ReadFIDL(bytes.NewReader(b.Bytes()), rfuchsia.Options{})
		if err != nil {
			t.Fatal(seed, err)
		}
		for k := range f.Snapshots {
			a, c := norm(fuchsiair.Of(f.Snapshots[k]).Stream), norm(fuchsiair.Of(g.Snapshots[k]).Stream)
			if !reflect.DeepEqual(a, c) {
				t.Fatalf("seed %d snap %d:\n%+v\n%+v", seed, k, a, c)
			}
		}
	}
}

// norm makes a struct's empty slices nil, for reflect.DeepEqual.
func norm(x any) any {
	v := reflect.ValueOf(x).Elem()
	for i := 0; i < v.NumField(); i++ {
		if f := v.Field(i); f.Kind() == reflect.Slice && f.Len() == 0 {
			f.Set(reflect.Zero(f.Type()))
		}
	}
	return x
}
