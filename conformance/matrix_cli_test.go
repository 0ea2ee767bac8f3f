package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/heapconv/heapconv"
	"github.com/heapconv/heapconv/internal/sampling"
	"github.com/heapconv/heapconv/ir"
)

// commandLine is a route through the built command: heapconv convert with
// --loss-report, from the source's own file (compressed as it is stored),
// and back from the file it wrote.
// The files are written in dir, which outlives the conversion.
func commandLine(bin, dir string, src matrixSource, wrote func(tg format, path string)) route {
	n := 0
	run := func(tg format, in string, k int) (*ir.File, ir.LossReport, string, error) {
		n++
		out := filepath.Join(dir, fmt.Sprintf("%d%s", n, heapconv.FormatByName(tg.name).Extensions[0]))
		report := filepath.Join(dir, fmt.Sprintf("%d.loss.json", n))
		args := []string{"convert", "-q", "--to", tg.name, "--loss-report", report}
		if k >= 0 {
			args = append(args, "--snapshot", strconv.Itoa(k))
		}
		cmd := exec.Command(bin, append(args, in, out)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			return nil, nil, "", fmt.Errorf("heapconv %v: %v\n%s", args, err, stderr.Bytes())
		}
		if stderr.Len() > 0 {
			return nil, nil, "", fmt.Errorf("heapconv %v -q printed %q", args, stderr.Bytes())
		}
		var rep struct {
			Losses ir.LossReport `json:"losses"`
		}
		js, err := os.ReadFile(report)
		if err != nil {
			return nil, nil, "", err
		}
		if err := json.Unmarshal(js, &rep); err != nil {
			return nil, nil, "", fmt.Errorf("%s: %v", report, err)
		}
		loss := rep.Losses
		data, err := os.ReadFile(out)
		if err != nil {
			return nil, nil, "", err
		}
		got, err := tg.read(bytes.NewReader(data))
		if err != nil {
			return nil, nil, "", fmt.Errorf("reading back %s: %w", out, err)
		}
		wrote(tg, out)
		return got, loss, out, nil
	}
	return func(tg format, _ *ir.File, k int) (*ir.File, ir.LossReport, func(format) (*ir.File, ir.LossReport, error), error) {
		got, loss, out, err := run(tg, src.path, k)
		return got, loss, func(back format) (*ir.File, ir.LossReport, error) {
			f, l, _, err := run(back, out, -1)
			return f, l, err
		}, err
	}
}

// TestMatrixCommandLine runs a sample of the matrix's cells through the
// built command, as a user runs them, and requires of each what TestMatrix
// requires in memory: no silent loss, and the same verdict on every aspect
// (a loss the command's report names differently, or an aspect only the
// command loses, fails). The sample is every source of every format with a
// writer into every target, on a fixed subset of the sources (all with
// HEAPCONV_EXHAUSTIVE=1).
func TestMatrixCommandLine(t *testing.T) {
	t.Parallel()
	bin := buildHeapconv(t)
	sources, targets := matrixFormats()
	picked, all := matrixSources(t, sources, func(name string) bool {
		return sampling.Exhaustive() || slices.Contains(commandLineSample, name)
	})
	t.Logf("sampled: %d of %d sources, into each of %d formats; HEAPCONV_EXHAUSTIVE=1 for all", len(picked), all, len(targets))
	// Every V8 file the command writes, there or back, DevTools loads.
	o := newOracle(t.TempDir())
	devtools := func(t *testing.T) func(tg format, path string) {
		return func(tg format, path string) {
			if !tg.v8Output {
				return
			}
			o.load(path)
			name := strings.TrimPrefix(t.Name(), "TestMatrixCommandLine/cells/") + "/" + filepath.Base(path)
			o.expect(name, func(t *testing.T, sum func(string) *summary) { loaded(t, sum(path)) })
		}
	}
	files := t.TempDir()
	t.Cleanup(sourceMeasures.Clear)
	t.Run("cells", func(t *testing.T) { matrixCommandLineCells(t, bin, files, picked, targets, devtools) })
	t.Run("devtools", o.run)
}

// matrixCommandLineCells runs TestMatrixCommandLine's conversions, in
// parallel, writing below files; wrote is told of every file the command
// writes.
func matrixCommandLineCells(t *testing.T, bin, files string, picked []matrixSource, targets []format,
	wrote func(t *testing.T) func(tg format, path string)) {
	for _, src := range picked {
		for _, tg := range targets {
			t.Run(src.fm.name+"/"+src.name+"/"+tg.name, func(t *testing.T) {
				t.Parallel()
				dir, err := os.MkdirTemp(files, "cell")
				if err != nil {
					t.Fatal(err)
				}
				cli := convert(t, src.fm, tg, src.name, src.f, commandLine(bin, dir, src, wrote(t)))
				mem := convert(t, src.fm, tg, src.name, src.f, inMemory)
				if t.Failed() || len(cli) != len(mem) {
					t.Fatalf("%d conversions through the command, %d in memory", len(cli), len(mem))
				}
				for k := range cli {
					for j, r := range cli[k].results {
						switch {
						case r == silent:
							t.Errorf("%s: %s changed and the command's loss report does not say so: %s",
								cli[k].fixture, allAspects[j].name, cli[k].details[j])
						case r != mem[k].results[j]:
							t.Errorf("%s: %s is %s through the command, %s in memory (%s)", cli[k].fixture,
								allAspects[j].name, r, mem[k].results[j], cli[k].details[j])
						}
					}
				}
			})
		}
	}
}

// commandLineSample names the sources TestMatrixCommandLine converts by
// default: sources of three formats (V8, MoarVM, a FIDL stream) whose
// conversions lose many kinds of things. TestMatrix converts every source
// in memory; this test holds the command's path to it, which is the same
// for every source, into every format.
var commandLineSample = []string{"node26-tracking", "nqp-1snap", "multi-contents"}

func (r cellResult) String() string { return [...]string{"kept", "named", "silent"}[r] }
