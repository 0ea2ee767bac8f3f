package conformance

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/heapconv/heapconv/internal/fuchsiagen"
	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
	v8ir "github.com/heapconv/heapconv/ir/v8"

	"github.com/heapconv/heapconv/ir"

	"github.com/google/pprof/profile"
)

// matrixSource is one input of the conversion matrix: a fixture, or a file
// the suite makes because it holds what real producers write and no fixture
// has.
type matrixSource struct {
	fm   format
	name string
	// path is the file, for the command line.
	path string
	f    *ir.File
}

// madeSource makes one of the matrix's sources in dir and returns its path.
type madeSource struct {
	format string
	name   string
	make   func(t *testing.T, dir string) string
}

// madeSources are the sources the matrix makes, beside the fixtures.
var madeSources = []madeSource{
	// A snapshot with allocation tracking taken through the inspector
	// protocol by the machine's node (anonymous functions in its traces,
	// and Node 20's short trace_function_count).
	{v8ir.Format, "node-inspector-tracking", func(t *testing.T, dir string) string {
		return inspectorSnapshot(t, filepath.Join(dir, "inspector.heapsnapshot"))
	}},
	// C++ allocation sites whose symbols differ only after 1,100
	// characters.
	{fuchsiair.Format, "cxx-symbols", func(t *testing.T, dir string) string {
		return writeTemp(t, filepath.Join(dir, "cxx-symbols.pb"), longSymbolProfile(t))
	}},
	// Profiles that use every field pprof has (pproffields_test.go): ffx's
	// two sample types and a third, and a Go heap profile's four.
	{fuchsiair.Format, "every-field", func(t *testing.T, dir string) string {
		return writeProfile(t, filepath.Join(dir, "every-field.pb.gz"), everyFieldProfile([][2]string{
			{fuchsiair.ObjectsType, fuchsiair.CountUnit}, {fuchsiair.AllocatedType, fuchsiair.BytesUnit}, {"inuse_space", "bytes"}},
			fuchsiair.AllocatedType))
	}},
	{fuchsiair.Format, "go-heap-every-field", func(t *testing.T, dir string) string {
		return writeProfile(t, filepath.Join(dir, "go-heap.pb.gz"), everyFieldProfile([][2]string{
			{"alloc_objects", "count"}, {"alloc_space", "bytes"}, {"inuse_objects", "count"}, {"inuse_space", "bytes"}},
			"inuse_space"))
	}},
	// A per-block profile without symbols whose blocks come from four
	// call sites (fuchsiagen.CallSites), its stacks starting in Scudo:
	// each site is a class, named module+offset.
	{fuchsiair.Format, "unsymbolized-blocks", func(t *testing.T, dir string) string {
		data, err := fuchsiagen.ProfileBytes([]*fuchsiagen.Snapshot{fuchsiagen.CallSitesSnapshot(false, true)},
			fuchsiagen.WriteOptions{Era: fuchsiagen.EraNewest, WithTags: true})
		if err != nil {
			t.Fatal(err)
		}
		return writeTemp(t, filepath.Join(dir, "unsymbolized-blocks.pb.gz"), data)
	}},
}

// writeProfile writes p, gzipped as pprof writes it, to path and returns
// path.
func writeProfile(t *testing.T, path string, p *profile.Profile) string {
	t.Helper()
	if err := p.CheckValid(); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	return writeTemp(t, path, b.Bytes())
}

// writeTemp writes data to path and returns path.
func writeTemp(t *testing.T, path string, data []byte) string {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// matrixSources reads the fixtures of the formats and makes their made
// sources, those keep keeps (by name), and counts all there are.
func matrixSources(t *testing.T, formats []format, keep func(name string) bool) (kept []matrixSource, all int) {
	t.Helper()
	var out []matrixSource
	dir := t.TempDir()
	for _, fm := range formats {
		paths, err := filepath.Glob(filepath.Join(moduleRoot, fm.fixtures))
		if err != nil || len(paths) == 0 {
			t.Fatalf("%s: no fixtures", fm.name)
		}
		for _, path := range paths {
			all++
			if keep(fixtureName(path)) {
				out = append(out, matrixSource{fm, fixtureName(path), path, read(t, fm, loadFixture(t, path))})
			}
		}
		for _, m := range madeSources {
			if m.format != fm.name {
				continue
			}
			if all++; !keep(m.name) {
				continue
			}
			path := m.make(t, dir)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, matrixSource{fm, m.name, path, read(t, fm, data)})
		}
	}
	return out, all
}
