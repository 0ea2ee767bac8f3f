package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"math"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	dartir "github.com/heapconv/heapconv/ir/dart"
	v8ir "github.com/heapconv/heapconv/ir/v8"

	pq "github.com/parquet-go/parquet-go"

	"github.com/klauspost/compress/zstd"

	"github.com/heapconv/heapconv"
	"github.com/heapconv/heapconv/ir"
)

// The secrets the programs of TestConvertRedactSecrets store: a string and
// a number, both made at run time, so that the source (itself a string of
// the heap) does not hold them.
const (
	secretString = "SECRET-4f1d9c-token"
	secretNumber = 7340032.75
)

// secretScript stores the secrets in globals and writes a heap snapshot
// with numbers' values (exposeNumericValues: Node names number nodes by
// their value, and gives each a string node of it).
const secretScript = `globalThis.kept = ["SECRET", "4f1d9c", "token"].join("-");
globalThis.amount = 0.5 + 7340032.25;
require("v8").writeHeapSnapshot(process.argv[1], {exposeNumericValues: true});`

// TestConvertRedactSecrets: a V8 snapshot Node takes of a program that
// keeps a secret string and a secret number in globals, and a Dart heap
// holding them as a Latin-1 string and a double, converted with --redact
// into every format and into Parquet tables, hold neither anywhere: not in
// the output's bytes (decompressed), not in what the output reads back as
// (strings and values), not in the tables' values. Converted without
// --redact into the formats that keep strings, they hold them, so that the
// search would see them.
func TestConvertRedactSecrets(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is not on PATH: the test makes a real V8 snapshot with it")
	}
	dir := t.TempDir()
	v8In := filepath.Join(dir, "secret.heapsnapshot")
	if out, err := exec.Command("node", "-e", secretScript, v8In).CombinedOutput(); err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	dartIn := plantedDart(t, dir)
	outputs := []struct {
		name  string
		keeps bool // whether the format keeps strings' contents and numbers
	}{
		{"out.heapsnapshot", true}, {"out.dartheap", true}, {"out.mvmheap", false}, {"out.pb.gz", false},
		{"out.fidlstream", false}, {"out.heapir", true}, {"out.heapir.zst", true}, {"out.parquet", true},
	}
	for _, in := range []string{v8In, dartIn} {
		for _, redact := range []bool{false, true} {
			for _, o := range outputs {
				name := filepath.Base(in) + "/" + o.name
				if redact {
					name += "/redacted"
				}
				t.Run(name, func(t *testing.T) {
					out := filepath.Join(t.TempDir(), o.name)
					args := []string{"convert", "-q", in, out}
					if redact {
						args = append(args, "--redact")
					}
					if code, _, stderr := cliRun(t, nil, args...); code != 0 {
						t.Fatalf("exit %d: %s", code, stderr)
					}
					found := secretsIn(t, out)
					switch {
					case redact && found != "":
						t.Errorf("redacted, the output still holds the secret: %s", found)
					case !redact && o.keeps && found == "":
						t.Errorf("not redacted, the search finds no secret in the output: it would not see one")
					}
				})
			}
		}
	}
}

// plantedDart writes the Dart fixture flutter-vm-3k with the secrets
// among its data: its first _OneByteString holds secretString, its first
// _Double secretNumber (classes whose values DevTools names their objects
// by, so that a V8 file keeps them).
func plantedDart(t *testing.T, dir string) string {
	t.Helper()
	f, err := heapconv.ReadFile(filepath.Join(root, "testdata", "dart", "flutter-vm-3k.dartheap.zst"), nil)
	if err != nil {
		t.Fatal(err)
	}
	s := f.Snapshots[0]
	str, num := -1, -1
	for j, node := range s.Values.Node {
		class := f.String(f.Classes.Name[s.Nodes.Class[node]-1])
		switch {
		case str < 0 && class == "_OneByteString" && s.Nodes.Kind[node] == dartir.Latin1Data:
			str = j
		case num < 0 && class == "_Double" && s.Nodes.Kind[node] == dartir.DoubleData:
			num = j
		}
	}
	if str < 0 || num < 0 {
		t.Fatal("the fixture has no _OneByteString or no _Double")
	}
	f.Strings = append(f.Strings, secretString)
	s.Values.Bits[str], s.Values.Aux[str] = uint64(len(f.Strings)-1), 0
	s.Values.Bits[num] = math.Float64bits(secretNumber)
	name := filepath.Join(dir, "secret.dartheap")
	if _, err := heapconv.WriteFile(name, f, nil); err != nil {
		t.Fatal(err)
	}
	return name
}

// secretsIn returns what of the secrets the output holds ("" for
// nothing): in its bytes (decompressed; a directory of tables, in the
// tables' values), and in the strings and values it reads back as.
func secretsIn(t *testing.T, out string) string {
	t.Helper()
	if strings.HasSuffix(out, ".parquet") {
		return secretsInTables(t, out)
	}
	data := cliReadFile(t, out)
	switch {
	case strings.HasSuffix(out, ".zst"):
		zr, err := zstd.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		if data, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	case strings.HasSuffix(out, ".gz"):
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if data, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	if bytes.Contains(data, []byte(secretString)) {
		return "the secret string, in the bytes"
	}
	f, err := heapconv.ReadFile(out, nil)
	if err != nil {
		t.Fatalf("reading %s back: %v", out, err)
	}
	for _, s := range f.Strings {
		if found := secretText(s); found != "" {
			return found + ", in the strings read back"
		}
	}
	for _, s := range f.Snapshots {
		for j, k := range s.Values.Kind {
			if k == ir.ValueFloat && math.Float64frombits(s.Values.Bits[j]) == secretNumber {
				return "the secret number, in the values read back"
			}
		}
	}
	return ""
}

// secretText returns which secret a string is or holds, "" for none: the
// string, or the number however it is written.
func secretText(s string) string {
	if strings.Contains(s, secretString) {
		return "the secret string"
	}
	if x, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil && x == secretNumber {
		return "the secret number (" + strconv.Quote(s) + ")"
	}
	return ""
}

// secretsInTables returns what of the secrets the Parquet tables in dir
// hold, value by value (their pages may be compressed).
func secretsInTables(t *testing.T, dir string) string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.parquet"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no tables in %s: %v", dir, err)
	}
	for _, name := range names {
		data := cliReadFile(t, name)
		pf, err := pq.OpenFile(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		for _, rg := range pf.RowGroups() {
			rows := rg.Rows()
			buf := make([]pq.Row, 64)
			for {
				n, err := rows.ReadRows(buf)
				for _, row := range buf[:n] {
					for _, v := range row {
						var found string
						switch v.Kind() {
						case pq.ByteArray, pq.FixedLenByteArray:
							found = secretText(string(v.ByteArray()))
						case pq.Double:
							if v.Double() == secretNumber {
								found = "the secret number"
							}
						}
						if found != "" {
							rows.Close()
							return found + ", in " + filepath.Base(name)
						}
					}
				}
				if err == io.EOF || n == 0 {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			rows.Close()
		}
	}
	return ""
}

// TestConvertRedactPrints: convert --redact prints what it replaced on
// standard error, first and apart from what the output format cannot
// hold, and the loss report lists it first, in kinds a script tells
// apart; without --redact nothing says so.
func TestConvertRedactPrints(t *testing.T) {
	tests := []struct {
		in, out string
		lines   []string // what standard error says, in order
		kinds   []string // the loss report's first kinds
		counts  []int64
	}{
		{
			in: "dart/flutter-vm-3k.dartheap.zst", out: "out.heapsnapshot",
			lines: []string{
				"redacted (--redact; 2 kinds; -q hides this):\n",
				"  979 × strings the program stored (strings' contents, numbers' and regexps' names, string values) replaced by placeholders of as many characters (e.g. snapshot 0, the value of node 16: 6 characters)\n",
				"  555 × numbers and booleans the program stored, zeroed\n",
				"warning: the v8 file cannot hold everything the dart input had",
			},
			kinds: []string{ir.LossRedactedStrings, ir.LossRedactedValues}, counts: []int64{979, 555},
		},
		{
			in: "fuchsia-fidl/multi-contents.fidlstream", out: "out.fidlstream",
			lines: []string{
				"redacted (--redact; 1 kind; -q hides this):\n",
				"  19,042 × bytes of the blocks' contents (memory the program wrote), zeroed\n",
			},
			kinds: []string{ir.LossRedactedContents}, counts: []int64{19042},
		},
		{
			in: "v8/small/other.heapsnapshot", out: "out.heapsnapshot",
			lines: []string{
				"redacted (--redact; 1 kind; -q hides this):\n",
				"  1 × top-level keys V8 does not write (another producer's), whose meaning heapconv does not know: their strings replaced by placeholders, their numbers zeroed (e.g. x_producer)\n",
			},
			kinds: []string{v8ir.LossRedactedKeys}, counts: []int64{1},
		},
		{
			in: "moarvm/nqp-1snap.mvmheap", out: "out.mvmheap",
			lines: []string{"redacted (--redact): nothing; the moarvm input holds nothing the program stored\n"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			dir := t.TempDir()
			in := filepath.Join(root, "testdata", tc.in)
			report := filepath.Join(dir, "loss.json")
			code, _, stderr := cliRun(t, nil, "convert", "--redact", "--loss-report", report, in, filepath.Join(dir, tc.out))
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			at := 0
			for _, want := range tc.lines {
				i := strings.Index(stderr[at:], want)
				if i < 0 {
					t.Fatalf("standard error lacks %q after what came before:\n%s", want, stderr)
				}
				at += i + len(want)
			}
			var r heapconv.LossReport
			if err := json.Unmarshal(cliReadFile(t, report), &r); err != nil {
				t.Fatal(err)
			}
			for k, kind := range tc.kinds {
				if k >= len(r.Losses) || r.Losses[k].Kind != kind || r.Losses[k].Count != tc.counts[k] {
					t.Errorf("the loss report does not list %s (%d) at %d: %+v", kind, tc.counts[k], k, r.Losses)
				}
			}
			for _, l := range r.Losses[min(len(tc.kinds), len(r.Losses)):] {
				if ir.IsRedaction(l.Kind) {
					t.Errorf("the loss report lists %s among the losses", l.Kind)
				}
			}
			if _, _, stderr := cliRun(t, nil, "convert", in, filepath.Join(dir, "plain"+tc.out)); strings.Contains(stderr, "redacted") {
				t.Errorf("without --redact: %s", stderr)
			}
		})
	}
}
