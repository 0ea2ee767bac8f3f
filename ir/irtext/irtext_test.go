package irtext_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/irstream"
	"github.com/heapconv/heapconv/ir/irtest"
	"github.com/heapconv/heapconv/ir/irtext"
)

func text(t *testing.T, f *ir.File) string {
	t.Helper()
	var b strings.Builder
	if err := irtext.Write(&b, f); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestRoundTrip: a file of every format's sections, written as text and
// read back, is the same file, and writes the same text again.
func TestRoundTrip(t *testing.T) {
	v8 := &irtest.V8Options{TraceNodeID: true, Detachedness: true, EdgeExtra: true, Trace: true, Locations: true,
		ExtraNativeBytes: true, ExtraKeys: true, ShuffleFields: true}
	fuchsia, stream := irtest.FuchsiaEverything(), irtest.FuchsiaStreamEverything()
	files := map[string]*ir.File{
		"everything": irtest.Random(1, irtest.Everything(0, 0)),
		"v8": irtest.Random(2, irtest.Options{MaxNodes: 30, Kinds: irtest.KindsMixed, Values: true, Classes: true, GCRoots: true,
			Strings: irtest.AllStrings, Snapshots: 2, Totals: true, ExternalSizes: true, V8: v8}),
		"dart": irtest.Random(3, irtest.Options{Strings: irtest.AllStrings, MaxOutDegree: 12, Dart: &irtest.DartOptions{
			Hashes: true, Padding: true, ZeroRefs: true, External: true, Data: true}}),
		"moarvm":         irtest.Random(4, irtest.Options{Snapshots: 3, MoarVM: &irtest.MoarVMOptions{BadRefs: true, Recovery: true}}),
		"moarvm-v2":      irtest.Random(5, irtest.Options{Snapshots: 2, MoarVM: &irtest.MoarVMOptions{V2: true, NoPID: true}}),
		"fuchsia":        irtest.Random(6, irtest.Options{Snapshots: 3, Strings: irtest.AllStrings, Fuchsia: &fuchsia}),
		"fuchsia-stream": irtest.Random(7, irtest.Options{Snapshots: 3, Fuchsia: &stream}),
		"empty":          {Format: "x"},
	}
	for name, f := range files {
		t.Run(name, func(t *testing.T) {
			want := text(t, f)
			g, err := irtext.Read(strings.NewReader(want))
			if err != nil {
				t.Fatalf("reading the text back: %v", err)
			}
			if d := ir.Diff(f, g, 10); len(d) > 0 {
				t.Errorf("read back, the file differs:\n%s", strings.Join(d, "\n"))
			}
			if got := text(t, g); got != want {
				t.Errorf("written again, the text differs:\n%s", firstDiff(want, got))
			}
		})
	}
}

// firstDiff shows the first line where two texts differ.
func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < min(len(la), len(lb)); i++ {
		if la[i] != lb[i] {
			return fmt.Sprintf("line %d:\n- %s\n+ %s", i+1, la[i], lb[i])
		}
	}
	return fmt.Sprintf("%d lines != %d lines", len(la), len(lb))
}

// TestCases runs testdata/*.txtar: each holds a file in the text form
// ("in") and either the error reading it must give ("error", a substring)
// or the text it writes back ("out"; the input itself when absent). A file
// read is also encoded as IR and decoded again, unchanged.
func TestCases(t *testing.T) {
	paths, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(paths) == 0 {
		t.Fatal("no test cases")
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			files := parseTxtar(string(data))
			in, ok := files["in"]
			if !ok {
				t.Fatal("no \"in\" file")
			}
			f, err := irtext.Read(strings.NewReader(in))
			if want, ok := files["error"]; ok {
				want = strings.TrimSpace(want)
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("error %v, want one containing %q", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want, ok := files["out"]
			if !ok {
				want = in
			}
			if got := text(t, f); got != want {
				t.Errorf("written back:\n%s\n%s", got, firstDiff(want, got))
			}
			var buf bytes.Buffer
			if err := irstream.Encode(&buf, f); err != nil {
				t.Fatal(err)
			}
			g, err := irstream.Decode(&buf)
			if err != nil {
				t.Fatalf("decoding the encoded file: %v", err)
			}
			if d := ir.Diff(f, g, 10); len(d) > 0 {
				t.Errorf("through the IR stream, the file differs: %v", d)
			}
		})
	}
}

// parseTxtar splits a txtar archive into its files by name (the comment
// before the first file is dropped).
func parseTxtar(s string) map[string]string {
	files := map[string]string{}
	name := ""
	var b strings.Builder
	for _, line := range strings.SplitAfter(s, "\n") {
		if n, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "-- "); ok && strings.HasSuffix(n, " --") {
			if name != "" {
				files[name] = b.String()
			}
			name = strings.TrimSuffix(n, " --")
			b.Reset()
			continue
		}
		b.WriteString(line)
	}
	if name != "" {
		files[name] = b.String()
	}
	return files
}
