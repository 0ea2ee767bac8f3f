package fuchsia_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"

	"github.com/heapconv/heapconv/internal/fuchsiagen"
	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/readers/fuchsia"
	wfuchsia "github.com/heapconv/heapconv/writers/fuchsia"
)

func readFIDL(t *testing.T, data []byte) *ir.File {
	t.Helper()
	f, err := fuchsia.ReadFIDL(bytes.NewReader(data), fuchsia.Options{Size: int64(len(data))})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestReadFIDLEdges checks the hand-made stream whose elements come in
// every order the receive rules allow.
func TestReadFIDLEdges(t *testing.T) {
	var b bytes.Buffer
	if _, err := fuchsiagen.ReassemblyEdgeStream().WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	f := readFIDL(t, b.Bytes())
	if len(f.Snapshots) != 2 {
		t.Fatalf("%d snapshots, want 2", len(f.Snapshots))
	}
	s := f.Snapshots[0]
	fs, x := fuchsiair.Of(s), fuchsiair.Of(s).Stream
	if f.Strings[s.Name] != "edge-process" || fs.ProcessKoid != 4242 {
		t.Errorf("process %q %d", f.Strings[s.Name], fs.ProcessKoid)
	}
	if s.Nodes.Len() != 2 || s.Nodes.ID.At(0) != 0x7f0010 || s.Nodes.ID.At(1) != 0 || fs.Count.At(1) != 3 {
		t.Fatalf("nodes: %d, ids %#x %#x, count %d", s.Nodes.Len(), s.Nodes.ID.At(0), s.Nodes.ID.At(1), fs.Count.At(1))
	}
	// The two chunks, the first sent before the allocation, joined.
	if got, ok := fs.ContentsOf(0); !ok || string(got) != "\x20\x00\x01\x00\xab\x00\x00\x00\x00\x00\x7f\x00\x00\x00\x00\x00" {
		t.Errorf("contents %q", got)
	}
	if len(x.OrphanAddress) != 1 || x.OrphanAddress[0] != 0x900000 || string(x.OrphanContents) != "orphan" {
		t.Errorf("orphan chunks %#x %q", x.OrphanAddress, x.OrphanContents)
	}
	// The stack sent in two chunks, and the empty unused one.
	if fs.Stacks() != 2 || len(fs.StackOf(0)) != 3 || len(fs.StackOf(1)) != 0 || len(x.StackChunkStack) != 3 {
		t.Errorf("%d stacks, chunks %v", fs.Stacks(), x.StackChunkStack)
	}
	if len(fs.ThreadName) != 1 || f.Strings[fs.ThreadName[0]] != "edge-worker" || fs.Thread[1] != 1 || fs.Thread[0] != 1 {
		t.Errorf("threads %v of nodes %v", fs.ThreadName, fs.Thread)
	}
	// Regions sorted into mappings; the first sent has no vaddr.
	mp := &fuchsiair.FileOf(f).Mappings
	if mp.Len() != 2 || x.RegionFields[0]&fuchsiair.RegionVaddr != 0 || x.RegionVaddr[1] != 0x2000 || f.Strings[mp.BuildID[x.RegionMapping[0]]] != "deadbeef00010203" {
		t.Errorf("regions %v %v %v", x.RegionMapping, x.RegionFields, x.RegionVaddr)
	}
	if len(x.UnknownRecord) != 2 || x.UnknownOrdinal[0] != 9 || x.UnknownOrdinal[1] != 4 {
		t.Errorf("unknown fields %v %v", x.UnknownRecord, x.UnknownOrdinal)
	}
	if y := fuchsiair.Of(f.Snapshots[1]).Stream; len(y.UnknownRecord) != 1 || y.UnknownRecord[0] != fuchsiair.HeaderRecord {
		t.Errorf("second process's unknown fields %v", y.UnknownRecord)
	}
	var out bytes.Buffer
	if _, err := wfuchsia.WriteFIDL(&out, f); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), b.Bytes()) {
		t.Error("written again, the stream differs")
	}
}

// TestReadFIDLCut reads every prefix of two small streams: each is an
// error naming an offset, never a panic or a snapshot.
func TestReadFIDLCut(t *testing.T) {
	for _, name := range []string{"ffx-test", "reassembly-edges"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "fuchsia-fidl", name+".fidlstream"))
		if err != nil {
			t.Fatal(err)
		}
		for cut := 0; cut < len(data); cut++ {
			_, err := fuchsia.ReadFIDL(bytes.NewReader(data[:cut]), fuchsia.Options{Size: int64(cut)})
			if err == nil {
				t.Fatalf("%s cut at %d: no error", name, cut)
			}
			if !strings.Contains(err.Error(), "offset") {
				t.Fatalf("%s cut at %d: error without an offset: %v", name, cut, err)
			}
		}
	}
}

func TestReadFIDLRefusesContentsDir(t *testing.T) {
	_, err := fuchsia.ReadFIDL(strings.NewReader(""), fuchsia.Options{ContentsDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "carries its block contents") {
		t.Fatalf("err = %v", err)
	}
}

// FuzzReadFIDL checks that every stream ReadFIDL accepts is written back
// byte for byte, and as a profile pprof reads.
func FuzzReadFIDL(f *testing.F) {
	for _, fx := range fuchsiagen.StreamFixtures() {
		data, _, _, err := fx.Make()
		if err != nil {
			f.Fatal(err)
		}
		if len(data) < 30000 {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := fuchsia.ReadFIDL(bytes.NewReader(data), fuchsia.Options{Size: int64(len(data)), ScanPointers: true})
		if err != nil {
			return
		}
		var out bytes.Buffer
		if _, err := wfuchsia.WriteFIDL(&out, g); err != nil {
			t.Fatalf("write: %v", err)
		}
		if !bytes.Equal(out.Bytes(), data) {
			t.Fatalf("read and written, the stream differs")
		}
		out.Reset()
		if _, err := wfuchsia.Write(&out, g, wfuchsia.Options{NoGzip: true}); err != nil {
			t.Fatalf("write pprof: %v", err)
		}
		if _, err := fuchsia.ReadBytes(out.Bytes(), fuchsia.Options{}); err != nil {
			t.Fatalf("reading the profile written: %v", err)
		}
	})
}
