package conformance

import (
	"bytes"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
)

// TestConcurrentUse reads and writes a fixture of every format from
// several goroutines at once, each on its own copy: the library's readers
// and writers keep no shared state, so every goroutine gets what a read
// and write on its own gives (and `go test -race` finds no race).
func TestConcurrentUse(t *testing.T) {
	type job struct {
		fm   format
		data []byte
		want []byte
	}
	var jobs []job
	for _, fm := range table {
		if fm.fixtures == "" || fm.write == nil {
			continue
		}
		paths, err := filepath.Glob(filepath.Join(moduleRoot, fm.fixtures))
		if err != nil || len(paths) == 0 {
			t.Fatalf("%s: no fixtures", fm.name)
		}
		// The smallest fixture, to keep the race detector's run short.
		var data []byte
		for _, p := range paths {
			if d := loadFixture(t, p); data == nil || len(d) < len(data) {
				data = d
			}
		}
		want, _ := write(t, fm, read(t, fm, data))
		jobs = append(jobs, job{fm, data, want})
	}
	const copies = 4
	var wg sync.WaitGroup
	errs := make(chan error, len(jobs)*copies)
	for _, j := range jobs {
		for c := 0; c < copies; c++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				f, err := j.fm.read(bytes.NewReader(append([]byte(nil), j.data...)))
				if err != nil {
					errs <- fmt.Errorf("%s: read: %v", j.fm.name, err)
					return
				}
				var b bytes.Buffer
				if _, err := j.fm.write(&b, f); err != nil {
					errs <- fmt.Errorf("%s: write: %v", j.fm.name, err)
					return
				}
				if !bytes.Equal(b.Bytes(), j.want) {
					errs <- fmt.Errorf("%s: concurrent output differs from a lone one", j.fm.name)
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if len(jobs) < 5 {
		t.Fatalf("only %d formats with fixtures and a writer", len(jobs))
	}
}
