package heapconv_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	v8ir "github.com/heapconv/heapconv/ir/v8"

	"github.com/klauspost/compress/gzip"

	"github.com/heapconv/heapconv"
)

// TestConvertFileRefusals: what ConvertFile refuses, it refuses with the
// sentinel callers branch on, and leaves the directory as it was: no
// output, no temporary file, an existing file untouched.
func TestConvertFileRefusals(t *testing.T) {
	const (
		v8In   = "testdata/v8/small/rows.heapsnapshot"
		moarvm = "testdata/moarvm/nqp-3snap.mvmheap"
	)
	tests := []struct {
		name    string
		in, out string // out relative to the test's directory, "" for in itself
		opts    heapconv.ConvertOptions
		want    error
	}{
		{"existing output", v8In, "existing.heapir", heapconv.ConvertOptions{}, heapconv.ErrExists},
		{"the input as output", v8In, "", heapconv.ConvertOptions{Overwrite: true, To: "v8"}, heapconv.ErrSameFile},
		{"no such snapshot", moarvm, "x.heapsnapshot", heapconv.ConvertOptions{Snapshots: heapconv.Snapshot(3)}, heapconv.ErrNoSnapshot},
		{"three snapshots into one", moarvm, "x.heapsnapshot", heapconv.ConvertOptions{}, heapconv.ErrTooManySnapshots},
		{"a negative snapshot", moarvm, "x.heapsnapshot", heapconv.ConvertOptions{Snapshots: heapconv.Snapshot(-1)}, heapconv.ErrOption},
		{"each snapshot without a number verb", moarvm, "x.heapsnapshot", heapconv.ConvertOptions{Snapshots: heapconv.EachSnapshot}, heapconv.ErrOutputName},
		{"NoGzip for a .pb.gz", v8In, "x.pb.gz", heapconv.ConvertOptions{Write: heapconv.WriteOptions{NoGzip: true}}, heapconv.ErrOption},
		{"NoGzip for a FIDL stream", v8In, "x.fidlstream", heapconv.ConvertOptions{Write: heapconv.WriteOptions{NoGzip: true}}, heapconv.ErrOption},
		{"the loss report as output", v8In, "x.heapir", heapconv.ConvertOptions{LossReportFile: "x.heapir"}, heapconv.ErrOutputName},
		{"an unknown output format", v8In, "x.heapir", heapconv.ConvertOptions{To: "hprof"}, heapconv.ErrUnknownFormat},
		{"no format in the name", v8In, "x.txt", heapconv.ConvertOptions{}, heapconv.ErrNoFormat},
		{"scan pointers without contents", "testdata/fuchsia/ffx-test-2023.pb", "x.heapir",
			heapconv.ConvertOptions{Read: heapconv.ReadOptions{ScanPointers: true}}, heapconv.ErrNeedsContents},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			existing := filepath.Join(dir, "existing.heapir")
			if err := os.WriteFile(existing, []byte("keep"), 0o644); err != nil {
				t.Fatal(err)
			}
			in, out := tc.in, filepath.Join(dir, tc.out)
			if tc.out == "" {
				// The input itself, copied into the directory.
				data, err := os.ReadFile(tc.in)
				if err != nil {
					t.Fatal(err)
				}
				in = filepath.Join(dir, "in.heapsnapshot")
				if err := os.WriteFile(in, data, 0o644); err != nil {
					t.Fatal(err)
				}
				out = in
			}
			if tc.opts.LossReportFile != "" {
				tc.opts.LossReportFile = filepath.Join(dir, tc.opts.LossReportFile)
			}
			before := dirList(t, dir)
			_, err := heapconv.ConvertFile(in, out, &tc.opts)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err %v, want %v", err, tc.want)
			}
			if after := dirList(t, dir); !slices.Equal(after, before) {
				t.Errorf("the directory holds %q, before %q", after, before)
			}
			if data, _ := os.ReadFile(existing); string(data) != "keep" {
				t.Errorf("the existing file was changed")
			}
		})
	}
}

// dirList lists a directory's file names.
func dirList(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// TestConvertFileEachSnapshot: one file per snapshot, numbered as the
// name says, and the loss report's JSON lists them.
func TestConvertFileEachSnapshot(t *testing.T) {
	dir := t.TempDir()
	report := filepath.Join(dir, "loss.json")
	r, err := heapconv.ConvertFile("testdata/moarvm/nqp-3snap.mvmheap", filepath.Join(dir, "s-%02d.heapsnapshot.zst"),
		&heapconv.ConvertOptions{Snapshots: heapconv.EachSnapshot, LossReportFile: report})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"loss.json", "s-00.heapsnapshot.zst", "s-01.heapsnapshot.zst", "s-02.heapsnapshot.zst"}
	if got := dirList(t, dir); !slices.Equal(got, want) {
		t.Fatalf("files %q, want %q", got, want)
	}
	for i, name := range r.Outputs {
		f, err := heapconv.ReadFile(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		if f.Format != v8ir.Format || len(f.Snapshots) != 1 || filepath.Base(name) != want[i+1] {
			t.Errorf("output %d: %s, a %s file of %d snapshots", i, name, f.Format, len(f.Snapshots))
		}
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var back heapconv.LossReport
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back.From != "moarvm" || back.To != "v8" || len(back.Outputs) != 3 || len(back.Losses) != len(r.Losses) || len(r.Losses) == 0 {
		t.Errorf("the report file says %+v; ConvertFile returned %+v", back, r)
	}
}

// TestInputLifecycle: an input's data is taken once; closing again does
// nothing; a stream is named by ReadOptions.Name in errors.
func TestInputLifecycle(t *testing.T) {
	in, err := heapconv.OpenFile("testdata/v8/small/rows.heapsnapshot", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := in.Read(); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Read(); err == nil {
		t.Error("read twice")
	}
	if errs := in.Validate(); len(errs) != 1 || !strings.Contains(errs[0].Error(), "read or closed already") {
		t.Errorf("Validate after Read: %v", errs)
	}
	if err := in.Close(); err != nil {
		t.Errorf("Close after Read: %v", err)
	}
	if err := in.Close(); err != nil {
		t.Errorf("Close again: %v", err)
	}

	_, err = heapconv.Read(bytes.NewReader(nil), &heapconv.ReadOptions{Name: "standard input"})
	if !errors.Is(err, heapconv.ErrEmpty) || err.Error() != "standard input is empty" {
		t.Errorf("empty stream: %v", err)
	}
	var gz bytes.Buffer
	gzip.NewWriter(&gz).Close()
	_, err = heapconv.Read(&gz, &heapconv.ReadOptions{Name: "e.gz"})
	if !errors.Is(err, heapconv.ErrEmpty) {
		t.Errorf("empty gzip stream: %v", err)
	}
	_, err = heapconv.Read(strings.NewReader("garbage"), &heapconv.ReadOptions{Name: "standard input"})
	if !errors.Is(err, heapconv.ErrUnrecognized) || !strings.HasPrefix(err.Error(), "standard input: ") {
		t.Errorf("garbage: %v", err)
	}
}

// TestWriteFileOneSnapshotFormats: WriteFile refuses several snapshots
// for a format of one, as ConvertFile does.
func TestWriteFileOneSnapshotFormats(t *testing.T) {
	f, err := heapconv.ReadFile("testdata/moarvm/nqp-3snap.mvmheap", nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	_, err = heapconv.WriteFile(filepath.Join(dir, "x.heapsnapshot"), f, nil)
	var se *heapconv.SnapshotError
	if !errors.As(err, &se) || se.Err != heapconv.ErrTooManySnapshots || len(se.Snapshots) != 3 {
		t.Errorf("%v", err)
	}
	if got := dirList(t, dir); len(got) != 0 {
		t.Errorf("left %q", got)
	}
}

// cancelAfter reads r and cancels a context once n bytes were read: an
// input the conversion is stopped in the middle of.
type cancelAfter struct {
	r      io.Reader
	n      int
	cancel context.CancelFunc
}

func (c *cancelAfter) Read(p []byte) (int, error) {
	if c.n <= 0 {
		c.cancel()
	}
	p = p[:min(len(p), 512)]
	k, err := c.r.Read(p)
	c.n -= k
	return k, err
}

// TestConvertFileContext: a conversion stops when its context is done,
// before it starts or in the middle of the read, with the context's error
// and no output left behind.
func TestConvertFileContext(t *testing.T) {
	data := readFile(t, "testdata/moarvm/nqp-1snap.mvmheap")
	t.Run("done before", func(t *testing.T) {
		dir := t.TempDir()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := heapconv.ConvertFileContext(ctx, "testdata/moarvm/nqp-1snap.mvmheap", filepath.Join(dir, "x.heapsnapshot"), nil)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err %v, want context.Canceled", err)
		}
		if got := dirList(t, dir); len(got) != 0 {
			t.Errorf("left %q", got)
		}
	})
	t.Run("during the read", func(t *testing.T) {
		dir := t.TempDir()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		in := &cancelAfter{r: bytes.NewReader(data), n: len(data) / 3, cancel: cancel}
		_, err := heapconv.ConvertFileContext(ctx, "-", filepath.Join(dir, "x.heapsnapshot"),
			&heapconv.ConvertOptions{Stdin: in, LossReportFile: filepath.Join(dir, "loss.json")})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err %v, want context.Canceled", err)
		}
		if got := dirList(t, dir); len(got) != 0 {
			t.Errorf("left %q", got)
		}
	})
}

// TestConvertFileEachSnapshotExists: one file per snapshot of an input
// without an index (a compressed V8 file, here on standard input) is
// refused before the read when the first output exists.
func TestConvertFileEachSnapshotExists(t *testing.T) {
	dir := t.TempDir()
	first := filepath.Join(dir, "s-0.heapir")
	if err := os.WriteFile(first, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	data := readFile(t, "testdata/v8/node20.heapsnapshot.zst")
	in := io.MultiReader(bytes.NewReader(data), endReader{t})
	_, err := heapconv.ConvertFile("-", filepath.Join(dir, "s-%d.heapir"),
		&heapconv.ConvertOptions{Snapshots: heapconv.EachSnapshot, Stdin: in})
	if !errors.Is(err, heapconv.ErrExists) {
		t.Errorf("err %v, want ErrExists", err)
	}
}

// endReader fails the test when it is read: the input was read to its end.
type endReader struct{ t *testing.T }

func (e endReader) Read([]byte) (int, error) {
	e.t.Error("the input was read to its end before the refusal")
	return 0, io.EOF
}
