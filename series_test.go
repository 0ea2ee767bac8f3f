package heapconv_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/heapconv/heapconv"
	"github.com/heapconv/heapconv/ir/irtest"
)

// TestSeriesByteExact archives real files of one program and variant as a
// series (ConvertFiles) and checks that each snapshot of the archive,
// converted back to its format, is byte for byte what the file alone
// converts to (and, for V8 and Dart, the file itself).
func TestSeriesByteExact(t *testing.T) {
	groups := []struct {
		format string
		files  []string
	}{
		{"v8", []string{"testdata/v8/small/rows.heapsnapshot", "testdata/v8/node22.heapsnapshot.zst"}},
		{"v8", []string{"testdata/v8/small/compact.heapsnapshot", "testdata/v8/node26-tracking.heapsnapshot.zst"}},
		{"dart", []string{"testdata/dart/flutter-vm-3k.dartheap.zst", "testdata/dart/synthetic_vm_layout.dartheap", "testdata/samples/flutter-counter.dartheap.zst"}},
	}
	dir := t.TempDir()
	for gi, g := range groups {
		out := filepath.Join(dir, g.format+string(rune('a'+gi))+".heapir.zst")
		if _, err := heapconv.ConvertFiles(g.files, out, nil); err != nil {
			t.Fatalf("archiving %v: %v", g.files, err)
		}
		series, err := heapconv.ReadFile(out, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !series.IsSeries() || len(series.Snapshots) != len(g.files) {
			t.Fatalf("%s: %d snapshots (a series: %v), want a series of %d", out, len(series.Snapshots), series.IsSeries(), len(g.files))
		}
		for i, name := range g.files {
			alone, err := heapconv.ReadFile(name, nil)
			if err != nil {
				t.Fatal(err)
			}
			var want, got bytes.Buffer
			if _, err := heapconv.Write(&want, alone, g.format, nil); err != nil {
				t.Fatal(err)
			}
			one, err := series.Select(i)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := heapconv.Write(&got, one, g.format, nil); err != nil {
				t.Fatal(err)
			}
			irtest.SameBytes(t, name+" from the series", got.Bytes(), want.Bytes())
			// And through the command's path: OUT#N and --snapshot N.
			back := filepath.Join(dir, "back."+g.format)
			if _, err := heapconv.ConvertFile(out, back, &heapconv.ConvertOptions{To: g.format, Snapshots: heapconv.Snapshot(i), Overwrite: true}); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(back)
			if err != nil {
				t.Fatal(err)
			}
			irtest.SameBytes(t, name+" converted from the series", b, want.Bytes())
			h, err := heapconv.ReadHeap(out+"#"+string(rune('0'+i)), nil)
			if err != nil {
				t.Fatal(err)
			}
			if h.Snapshot.Nodes.Len() != alone.Snapshots[0].Nodes.Len() {
				t.Errorf("%s#%d: %d nodes, %s has %d", out, i, h.Snapshot.Nodes.Len(), name, alone.Snapshots[0].Nodes.Len())
			}
		}
	}
	// Files of different variants are refused, before anything is written.
	out := filepath.Join(dir, "mixed.heapir.zst")
	_, err := heapconv.ConvertFiles([]string{"testdata/v8/node20.heapsnapshot.zst", "testdata/v8/node22.heapsnapshot.zst"}, out, nil)
	if err == nil {
		t.Fatal("a series of Node 20 and Node 22 snapshots was written")
	}
	if _, serr := os.Stat(out); serr == nil {
		t.Errorf("%s exists after %v", out, err)
	}
	t.Logf("refused: %v", err)
	if _, err := heapconv.ConvertFiles([]string{"testdata/v8/node20.heapsnapshot.zst", "testdata/v8/node20.heapsnapshot.zst"}, filepath.Join(dir, "x.heapsnapshot"), nil); err == nil {
		t.Error("several inputs were written as a V8 file")
	}
}
