package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/heapconv/heapconv/ir/irstream"
	v8ir "github.com/heapconv/heapconv/ir/v8"

	"github.com/klauspost/compress/zstd"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/analysis"
	rv8 "github.com/heapconv/heapconv/readers/v8"
)

var smallDir = filepath.Join("..", "..", "testdata", "v8", "small")

// cliRun runs one command line in-process.
func cliRun(t *testing.T, stdin []byte, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{stdin: bytes.NewReader(stdin), stdout: &out, stderr: &errb}
	code = run(e, args)
	return code, out.String(), errb.String()
}

func cliReadFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// cliCopy copies a small fixture into dir and returns its path.
func cliCopy(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, cliReadFile(t, filepath.Join(smallDir, name)), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// cliDir lists the names in dir, sorted.
func cliDir(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

// cliFixture decompresses testdata/v8/NAME.heapsnapshot.zst into dir.
func cliFixture(t *testing.T, dir, name string) string {
	t.Helper()
	zr, err := zstd.NewReader(bytes.NewReader(cliReadFile(t, filepath.Join("..", "..", "testdata", "v8", name+".heapsnapshot.zst"))))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	data, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name+".heapsnapshot")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	in := cliCopy(t, dir, "rows.heapsnapshot")
	out := filepath.Join(dir, "out.heapsnapshot")
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string // substring of standard error
	}{
		{"no arguments", nil, 2, "Usage:"},
		{"help", []string{"help"}, 0, ""},
		{"--help", []string{"--help"}, 0, ""},
		{"unknown command", []string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{"convert without arguments", []string{"convert"}, 2, "convert needs IN and OUT"},
		{"convert with one argument", []string{"convert", in}, 2, "convert needs IN and OUT"},
		{"convert with one argument", []string{"convert", in}, 2, "convert needs IN and OUT"},
		{"convert of two inputs into a V8 file", []string{"convert", in, in, out}, 2, "only the IR holds"},
		{"convert of two inputs with --snapshot", []string{"convert", "--snapshot", "1", in, in, out + ".heapir"}, 2, "several inputs are written whole"},
		{"convert of standard input and a file", []string{"convert", "-", in, out + ".heapir"}, 2, "standard input (-) cannot be one"},
		{"convert with a bad flag", []string{"convert", "--bogus", in, out}, 2, "bogus"},
		{"convert with unknown --to", []string{"convert", "--to", "nope", in, out}, 2, `unknown format "nope"`},
		{"convert with unknown --from", []string{"convert", "--from", "nope", in, out}, 2, `unknown format "nope"`},
		{"convert to stdout without --to", []string{"convert", in, "-"}, 2, "needs --to"},
		{"convert to an unknown extension", []string{"convert", in, filepath.Join(dir, "x.txt")}, 2, "give --to"},
		{"convert with a bad --snapshot", []string{"convert", "--snapshot", "x", in, out}, 2, "--snapshot"},
		{"convert --snapshot all without %d", []string{"convert", "--snapshot", "all", in, out}, 2, "%d"},
		{"info without arguments", []string{"info"}, 2, "info needs IN"},
		{"info with a bad --top", []string{"info", "--top", "many", in}, 2, "top"},
		{"validate without arguments", []string{"validate"}, 2, "validate needs IN"},
		{"roundtrip of stdin", []string{"roundtrip", "-"}, 2, "roundtrip needs a file IN"},
		{"dump without arguments", []string{"dump"}, 2, "dump needs IN"},
		{"formats with an argument", []string{"formats", "v8"}, 2, "formats takes no arguments"},
		{"convert a missing file", []string{"convert", filepath.Join(dir, "missing"), out}, 1, "missing"},
		{"info of a missing file", []string{"info", filepath.Join(dir, "missing")}, 1, "missing"},
		{"info of a directory", []string{"info", dir}, 1, "is a directory"},
		{"info of an empty file", []string{"info", filepath.Join(dir, "empty")}, 1, "is empty"},
		{"info of an unknown format", []string{"info", filepath.Join(dir, "junk")}, 1, "unrecognized format"},
		{"convert to dart (with a loss report)", []string{"convert", in, filepath.Join(dir, "x.dartheap")}, 0, "warning: the dart file cannot hold everything"},
		{"convert to moarvm (with a loss report)", []string{"convert", in, filepath.Join(dir, "x.mvmheap")}, 0, "warning: the moarvm file cannot hold everything"},
		{"convert to fuchsia (with a loss report)", []string{"convert", in, filepath.Join(dir, "x.pb.gz")}, 0, "warning: the fuchsia file cannot hold everything"},
		{"convert to fuchsia-fidl (with a loss report)", []string{"convert", "--to", "fuchsia-fidl", in, filepath.Join(dir, "x.bin")}, 0, "warning: the fuchsia-fidl file cannot hold everything"},
		{"a fuchsia-fidl stream with --contents", []string{"convert", "--contents", dir, "../../testdata/fuchsia-fidl/ffx-test.fidlstream", filepath.Join(dir, "z.pb")}, 1, "carries its block contents"},
		{"--scan-pointers on a fuchsia-fidl stream", []string{"info", "--scan-pointers", "../../testdata/fuchsia-fidl/ffx-test.fidlstream"}, 0, ""},
		{"--scan-pointers without --contents", []string{"convert", "--scan-pointers", in, filepath.Join(dir, "y.heapsnapshot")}, 2, "--scan-pointers needs --contents"},
		{"convert", []string{"convert", in, out}, 0, ""},
		{"info", []string{"info", in}, 0, ""},
	}
	if err := os.WriteFile(filepath.Join(dir, "empty"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "junk"), []byte("hello, world"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := cliRun(t, nil, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tc.code, stderr)
			}
			if !strings.Contains(stderr, tc.stderr) {
				t.Errorf("stderr does not contain %q:\n%s", tc.stderr, stderr)
			}
			if tc.code == 2 && tc.args != nil && len(tc.args) > 0 && tc.args[0] != "frobnicate" && !strings.Contains(stderr, "Usage: heapconv "+tc.args[0]) {
				t.Errorf("usage error without the command's usage:\n%s", stderr)
			}
		})
	}
}

func TestHelp(t *testing.T) {
	for _, c := range commands {
		for _, flag := range []string{"--help", "-h"} {
			t.Run(c.name+" "+flag, func(t *testing.T) {
				code, stdout, stderr := cliRun(t, nil, c.name, flag)
				if code != 0 {
					t.Errorf("exit %d, want 0", code)
				}
				if stderr != "" {
					t.Errorf("stderr: %q", stderr)
				}
				if !strings.HasPrefix(stdout, "Usage: heapconv "+c.name) {
					t.Errorf("stdout does not start with the usage line:\n%s", stdout)
				}
				if !strings.Contains(stdout, "\nExamples:\n  heapconv "+c.name) {
					t.Errorf("usage has no Examples section with a %q example:\n%s", c.name, stdout)
				}
			})
		}
	}
	code, stdout, _ := cliRun(t, nil, "--help")
	if code != 0 || !strings.Contains(stdout, "Examples:") {
		t.Errorf("heapconv --help: exit %d\n%s", code, stdout)
	}
	for _, c := range commands {
		if !strings.Contains(stdout, "  "+c.name+" ") {
			t.Errorf("main usage does not list %s", c.name)
		}
	}
}

func TestFormats(t *testing.T) {
	code, stdout, _ := cliRun(t, nil, "formats")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	rows := map[string][]string{}
	table, notes, _ := strings.Cut(stdout, "\n\n")
	if !strings.Contains(notes, "gzip (.gz) or zstd (.zst)") {
		t.Errorf("formats does not say that any format may come compressed:\n%s", stdout)
	}
	for _, line := range strings.Split(strings.TrimSpace(table), "\n")[1:] {
		fs := strings.Fields(line)
		rows[fs[0]] = fs
	}
	tests := []struct {
		name         string
		read, write  string
		notAvailable bool
	}{
		{"v8", "yes", "yes", false},
		{"ir", "yes", "yes", false},
		{"dart", "yes", "yes", false},
		{"moarvm", "yes", "yes", false},
		{"fuchsia", "yes", "yes", false},
		{"fuchsia-fidl", "yes", "yes", false},
	}
	for _, tc := range tests {
		r := rows[tc.name]
		if len(r) < 3 {
			t.Errorf("no row for %s:\n%s", tc.name, stdout)
			continue
		}
		if r[1] != tc.read || r[2] != tc.write {
			t.Errorf("%s: read %s write %s, want %s %s", tc.name, r[1], r[2], tc.read, tc.write)
		}
		line := strings.Join(r, " ")
		if got := strings.Contains(line, "not available"); got != tc.notAvailable {
			t.Errorf("%s: says not available = %v:\n%s", tc.name, got, line)
		}
	}
	if !strings.Contains(strings.Join(rows["v8"], " "), ".heapsnapshot") {
		t.Errorf("v8 row lacks its extension: %q", rows["v8"])
	}
}

// TestConvertRoundTrip converts V8 -> IR -> V8 (plain and zstd IR) and gets
// the input's bytes back.
func TestConvertRoundTrip(t *testing.T) {
	dir := t.TempDir()
	inputs := []string{cliCopy(t, dir, "rows.heapsnapshot"), cliCopy(t, dir, "compact.heapsnapshot"), cliFixture(t, dir, "node26")}
	for _, in := range inputs {
		for _, ext := range []string{".heapir", ".heapir.zst"} {
			t.Run(filepath.Base(in)+ext, func(t *testing.T) {
				mid := in + ext
				back := in + ext + ".heapsnapshot"
				if code, _, stderr := cliRun(t, nil, "convert", in, mid); code != 0 {
					t.Fatalf("to IR: exit %d: %s", code, stderr)
				}
				magic := irstream.Magic
				if ext == ".heapir.zst" {
					magic = irstream.ZstdMagic
				}
				if m := cliReadFile(t, mid); !bytes.HasPrefix(m, magic) {
					t.Errorf("%s starts with % x, want % x", mid, m[:min(8, len(m))], magic)
				}
				if code, _, stderr := cliRun(t, nil, "convert", mid, back); code != 0 {
					t.Fatalf("to V8: exit %d: %s", code, stderr)
				}
				if !bytes.Equal(cliReadFile(t, back), cliReadFile(t, in)) {
					t.Errorf("%s differs from %s", back, in)
				}
			})
		}
	}
}

func TestConvertStdio(t *testing.T) {
	in := cliReadFile(t, filepath.Join(smallDir, "rows.heapsnapshot"))
	code, irData, stderr := cliRun(t, in, "convert", "--to", "ir", "-", "-")
	if code != 0 {
		t.Fatalf("V8 -> IR on stdio: exit %d: %s", code, stderr)
	}
	if !strings.HasPrefix(irData, string(irstream.Magic)) {
		t.Fatalf("stdout is not an IR stream: %q", irData[:min(16, len(irData))])
	}
	code, back, stderr := cliRun(t, []byte(irData), "convert", "--to", "v8", "-", "-")
	if code != 0 {
		t.Fatalf("IR -> V8 on stdio: exit %d: %s", code, stderr)
	}
	if back != string(in) {
		t.Errorf("stdio round trip changed the file")
	}
	// stdin to a file, and the other commands on stdin.
	dir := t.TempDir()
	out := filepath.Join(dir, "out.heapir.zst")
	if code, _, stderr := cliRun(t, in, "convert", "-", out); code != 0 {
		t.Fatalf("stdin -> file: exit %d: %s", code, stderr)
	}
	if !bytes.HasPrefix(cliReadFile(t, out), irstream.ZstdMagic) {
		t.Errorf("%s is not zstd", out)
	}
	for _, cmd := range [][]string{{"info", "-"}, {"dump", "-"}, {"validate", "-"}} {
		code, stdout, stderr := cliRun(t, in, cmd...)
		if code != 0 || stdout == "" {
			t.Errorf("%v on stdin: exit %d, stdout %q, stderr %q", cmd, code, stdout, stderr)
		}
	}
}

func TestConvertExistingOut(t *testing.T) {
	dir := t.TempDir()
	in := cliCopy(t, dir, "compact.heapsnapshot")
	out := filepath.Join(dir, "out.heapsnapshot")
	old := []byte("old contents")
	if err := os.WriteFile(out, old, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := cliRun(t, nil, "convert", in, out)
	if code != 1 || !strings.Contains(stderr, "exists") || !strings.Contains(stderr, "--force") {
		t.Errorf("without --force: exit %d, stderr %q", code, stderr)
	}
	if !bytes.Equal(cliReadFile(t, out), old) {
		t.Errorf("OUT changed without --force")
	}
	code, _, stderr = cliRun(t, nil, "convert", "--force", in, out)
	if code != 0 {
		t.Fatalf("with --force: exit %d: %s", code, stderr)
	}
	if !bytes.Equal(cliReadFile(t, out), cliReadFile(t, in)) {
		t.Errorf("OUT not replaced by the conversion")
	}
	if got := cliDir(t, dir); !slices.Equal(got, []string{"compact.heapsnapshot", "out.heapsnapshot"}) {
		t.Errorf("directory holds %q", got)
	}
	// A directory is never replaced.
	sub := filepath.Join(dir, "sub.heapsnapshot")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := cliRun(t, nil, "convert", "--force", in, sub); code != 1 || !strings.Contains(stderr, "directory") {
		t.Errorf("OUT a directory: exit %d, stderr %q", code, stderr)
	}
}

func TestConvertOntoInput(t *testing.T) {
	tests := []struct {
		name string
		out  func(t *testing.T, in string) string
	}{
		{"same path", func(t *testing.T, in string) string { return in }},
		{"same path, spelled differently", func(t *testing.T, in string) string {
			return filepath.Join(filepath.Dir(in), ".", filepath.Base(in))
		}},
		{"symlink to IN", func(t *testing.T, in string) string {
			l := filepath.Join(filepath.Dir(in), "link.heapsnapshot")
			if err := os.Symlink(in, l); err != nil {
				t.Fatal(err)
			}
			return l
		}},
		{"hard link to IN", func(t *testing.T, in string) string {
			l := filepath.Join(filepath.Dir(in), "hard.heapsnapshot")
			if err := os.Link(in, l); err != nil {
				t.Fatal(err)
			}
			return l
		}},
	}
	for _, tc := range tests {
		for _, force := range []bool{false, true} {
			name := tc.name
			if force {
				name += " --force"
			}
			t.Run(name, func(t *testing.T) {
				dir := t.TempDir()
				in := cliCopy(t, dir, "rows.heapsnapshot")
				orig := cliReadFile(t, in)
				out := tc.out(t, in)
				before := cliDir(t, dir)
				args := []string{"convert", "--to", "ir", in, out}
				if force {
					args = []string{"convert", "--force", "--to", "ir", in, out}
				}
				code, _, stderr := cliRun(t, nil, args...)
				if code != 1 {
					t.Errorf("exit %d, want 1; stderr %q", code, stderr)
				}
				if force && !strings.Contains(stderr, "input file") {
					t.Errorf("stderr does not say OUT is the input: %q", stderr)
				}
				if !bytes.Equal(cliReadFile(t, in), orig) {
					t.Errorf("IN was changed")
				}
				if after := cliDir(t, dir); !slices.Equal(after, before) {
					t.Errorf("directory went from %q to %q", before, after)
				}
			})
		}
	}
}

func TestConvertFailureLeavesNothing(t *testing.T) {
	tests := []struct {
		name  string
		input func(t *testing.T) []byte
		want  string
	}{
		{"truncated V8 input", func(t *testing.T) []byte {
			b := cliReadFile(t, filepath.Join(smallDir, "rows.heapsnapshot"))
			return b[:len(b)/2]
		}, "unexpected end of file"},
		{"corrupt V8 input", func(t *testing.T) []byte {
			b := cliReadFile(t, filepath.Join(smallDir, "compact.heapsnapshot"))
			return bytes.Replace(b, []byte(`"edges":[1,1,7`), []byte(`"edges":[1,1,8`), 1)
		}, "to_node 8"},
		{"corrupt IR input", func(t *testing.T) []byte {
			var b bytes.Buffer
			if err := irstream.Encode(&b, cliSmallIR(t, "rows.heapsnapshot")); err != nil {
				t.Fatal(err)
			}
			return b.Bytes()[:b.Len()-3]
		}, "ir: offset"},
		{"write fails midway", func(t *testing.T) []byte {
			// A V8 section whose meta names a node field it has no column
			// for: reading succeeds, writing fails after it began.
			f := cliSmallIR(t, "rows.heapsnapshot")
			v := v8ir.Of(f.Snapshots[0])
			v.NodeExtra = v.NodeExtra[:1]
			var b bytes.Buffer
			if err := irstream.Encode(&b, f); err != nil {
				t.Fatal(err)
			}
			return b.Bytes()
		}, "has no column"},
	}
	for _, tc := range tests {
		for _, ext := range []string{".heapsnapshot", ".heapir.zst"} {
			t.Run(tc.name+ext, func(t *testing.T) {
				dir := t.TempDir()
				in := filepath.Join(dir, "in.data")
				if err := os.WriteFile(in, tc.input(t), 0o644); err != nil {
					t.Fatal(err)
				}
				if ext == ".heapir.zst" && tc.name == "write fails midway" {
					return // the IR writer has nothing to fail on
				}
				code, _, stderr := cliRun(t, nil, "convert", in, filepath.Join(dir, "out"+ext))
				if code != 1 {
					t.Errorf("exit %d, want 1", code)
				}
				if !strings.Contains(stderr, tc.want) {
					t.Errorf("stderr %q does not mention %q", stderr, tc.want)
				}
				if got := cliDir(t, dir); !slices.Equal(got, []string{"in.data"}) {
					t.Errorf("directory holds %q after a failed conversion", got)
				}
			})
		}
	}
}

// cliSmallIR reads a small V8 fixture.
func cliSmallIR(t *testing.T, name string) *ir.File {
	t.Helper()
	f, err := rv8.Read(bytes.NewReader(cliReadFile(t, filepath.Join(smallDir, name))), rv8.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestDartInput gives a Dart file the V8 extension, as Dart tools do: the
// content decides, for every command, and a V8 output name converts it.
func TestDartInput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "app.heapsnapshot")
	sample := cliReadFile(t, filepath.Join("..", "..", "testdata", "dart", "synthetic_vm_layout.dartheap"))
	if err := os.WriteFile(in, sample, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "app-devtools.heapsnapshot")
	for _, tc := range []struct {
		args []string
		want string // on stdout or stderr
	}{
		{[]string{"info", in}, "dartheap, VM 2022+ layout"},
		{[]string{"dump", in}, `format "dart"`},
		{[]string{"roundtrip", in}, "byte-exact (434 bytes)"},
		{[]string{"convert", in, filepath.Join(dir, "out.heapir")}, ""},
		{[]string{"convert", in, out}, ""},
	} {
		code, stdout, stderr := cliRun(t, nil, tc.args...)
		if code != 0 {
			t.Errorf("%v: exit %d; stderr %q", tc.args, code, stderr)
		}
		if !strings.Contains(stdout+stderr, tc.want) {
			t.Errorf("%v: output does not contain %q:\n%s%s", tc.args, tc.want, stdout, stderr)
		}
	}
	back, err := rv8.Read(bytes.NewReader(cliReadFile(t, out)), rv8.Options{})
	if err != nil {
		t.Fatalf("the V8 output does not read back: %v", err)
	}
	// The Dart root, its 9 other objects, and V8's (GC roots) or not: at
	// least every Dart object is there.
	if n := back.Snapshots[0].Nodes.Len(); n < 10 {
		t.Errorf("V8 output has %d nodes, want at least the 10 Dart objects", n)
	}
}

func TestSnapshotSelection(t *testing.T) {
	dir := t.TempDir()
	f := cliSmallIR(t, "rows.heapsnapshot")
	f.Snapshots = append(f.Snapshots, f.Snapshots[0])
	multi := filepath.Join(dir, "multi.heapir")
	var b bytes.Buffer
	if err := irstream.Encode(&b, f); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(multi, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	want := cliReadFile(t, filepath.Join(smallDir, "rows.heapsnapshot"))

	code, _, stderr := cliRun(t, nil, "convert", multi, filepath.Join(dir, "one.heapsnapshot"))
	if code != 1 || !strings.Contains(stderr, "holds 2 snapshots") || !strings.Contains(stderr, "1: 4 nodes, 4 edges") {
		t.Errorf("several snapshots to V8 without --snapshot: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = cliRun(t, nil, "convert", "--snapshot", "5", multi, filepath.Join(dir, "five.heapsnapshot"))
	if code != 1 || !strings.Contains(stderr, "snapshot 5 does not exist") {
		t.Errorf("--snapshot 5: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = cliRun(t, nil, "convert", "--snapshot", "1", multi, filepath.Join(dir, "one.heapsnapshot"))
	if code != 0 || !bytes.Equal(cliReadFile(t, filepath.Join(dir, "one.heapsnapshot")), want) {
		t.Errorf("--snapshot 1: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = cliRun(t, nil, "convert", "--snapshot", "all", multi, filepath.Join(dir, "s%d.heapsnapshot"))
	if code != 0 {
		t.Fatalf("--snapshot all: exit %d: %s", code, stderr)
	}
	for _, n := range []string{"s0.heapsnapshot", "s1.heapsnapshot"} {
		if !bytes.Equal(cliReadFile(t, filepath.Join(dir, n)), want) {
			t.Errorf("%s differs from the snapshot", n)
		}
	}
	// IR output keeps every snapshot.
	if code, _, stderr := cliRun(t, nil, "convert", multi, filepath.Join(dir, "copy.heapir")); code != 0 {
		t.Errorf("IR to IR: exit %d: %s", code, stderr)
	}
}

func TestInfoJSON(t *testing.T) {
	dir := t.TempDir()
	in := cliCopy(t, dir, "rows.heapsnapshot")
	irIn := filepath.Join(dir, "rows.heapir.zst")
	if code, _, stderr := cliRun(t, nil, "convert", in, irIn); code != 0 {
		t.Fatalf("convert: %s", stderr)
	}
	topKeys := []string{"format", "format_version", "snapshots"}
	snapKeys := []string{"classes", "edges", "external_size", "index", "nodes", "objects", "roots", "self_size", "top_classes"}
	classKeys := []string{"count", "name", "self_size"}
	// The object has an allocation location, which DevTools shows.
	locatedKeys := []string{"count", "location", "name", "self_size"}
	keysOf := func(m map[string]json.RawMessage) []string {
		var k []string
		for key := range m {
			k = append(k, key)
		}
		sort.Strings(k)
		return k
	}
	tests := []struct {
		name string
		file string
		via  bool
	}{{"v8 input", in, false}, {"IR input", irIn, true}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := cliRun(t, nil, "info", "--json", tc.file)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var top map[string]json.RawMessage
			if err := json.Unmarshal([]byte(stdout), &top); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, stdout)
			}
			want := slices.Clone(topKeys)
			if tc.via {
				want = append(want, "via", "compression") // .heapir.zst
			}
			sort.Strings(want)
			if got := keysOf(top); !slices.Equal(got, want) {
				t.Errorf("top-level keys %q, want %q", got, want)
			}
			if tc.via && string(top["via"]) != `"ir"` {
				t.Errorf("via = %s", top["via"])
			}
			if string(top["format"]) != `"v8"` {
				t.Errorf("format = %s", top["format"])
			}
			var snaps []map[string]json.RawMessage
			if err := json.Unmarshal(top["snapshots"], &snaps); err != nil || len(snaps) != 1 {
				t.Fatalf("snapshots: %v %s", err, top["snapshots"])
			}
			if got := keysOf(snaps[0]); !slices.Equal(got, snapKeys) {
				t.Errorf("snapshot keys %q, want %q", got, snapKeys)
			}
			var classes []map[string]json.RawMessage
			if err := json.Unmarshal(snaps[0]["top_classes"], &classes); err != nil || len(classes) == 0 {
				t.Fatalf("top_classes: %v %s", err, snaps[0]["top_classes"])
			}
			for i, c := range classes {
				want := classKeys
				if i == 0 {
					want = locatedKeys
				}
				if got := keysOf(c); !slices.Equal(got, want) {
					t.Errorf("class %d keys %q, want %q", i, got, want)
				}
			}
			// The values, for the rows fixture.
			var s analysis.SnapshotSummary
			if err := json.Unmarshal(mustJSON(t, snaps[0]), &s); err != nil {
				t.Fatal(err)
			}
			// DevTools' Summary rows: the synthetic nodes have no size,
			// so no row.
			if s.Nodes != 4 || s.Edges != 4 || s.SelfSize != 48 || s.ExternalSize != 0 || s.Classes != 2 || s.Roots != 2 {
				t.Errorf("summary %+v", s)
			}
			wantTop := []analysis.ClassStat{
				{Name: "Café 名前 \uf600", Count: 1, SelfSize: 32, Location: &analysis.SourceLocation{ScriptID: 3, Line: 10, Column: 4}},
				{Name: "(string)", Count: 1, SelfSize: 16}}
			if !reflect.DeepEqual(s.TopClasses, wantTop) {
				t.Errorf("top classes %s, want %s", mustJSON(t, s.TopClasses), mustJSON(t, wantTop))
			}
		})
	}
	code, stdout, _ := cliRun(t, nil, "info", "--json", "--top", "1", in)
	if code != 0 || strings.Count(stdout, `"name"`) != 1 {
		t.Errorf("--top 1: exit %d, %s", code, stdout)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestValidateCommand(t *testing.T) {
	dir := t.TempDir()
	good := cliCopy(t, dir, "compact.heapsnapshot")
	bad := filepath.Join(dir, "bad.heapsnapshot")
	data := string(cliReadFile(t, good))
	// node 2 type 99, node 1 id 2^32, edge 0 to_node 8.
	data = strings.Replace(data, `"nodes":[9,1,1,0,1,0,0,9,2,3,0,1,0,0,3,3,5,40,0,2,2]`, `"nodes":[9,1,1,0,1,0,0,9,2,4294967296,0,1,0,0,99,3,5,40,0,2,2]`, 1)
	data = strings.Replace(data, `"edges":[1,1,7,`, `"edges":[1,1,8,`, 1)
	if err := os.WriteFile(bad, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	irFile := filepath.Join(dir, "good.heapir")
	if code, _, stderr := cliRun(t, nil, "convert", good, irFile); code != 0 {
		t.Fatal(stderr)
	}
	code, stdout, stderr := cliRun(t, nil, "validate", good)
	if code != 0 || !strings.Contains(stdout, "valid v8 file") || stderr != "" {
		t.Errorf("valid file: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, stdout, _ = cliRun(t, nil, "validate", irFile)
	if code != 0 || !strings.Contains(stdout, "valid ir file") {
		t.Errorf("valid IR file: exit %d, stdout %q", code, stdout)
	}
	code, stdout, stderr = cliRun(t, nil, "validate", bad)
	if code != 1 {
		t.Errorf("invalid file: exit %d, want 1", code)
	}
	if stdout != "" {
		t.Errorf("stdout %q", stdout)
	}
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	if len(lines) != 4 || !strings.HasSuffix(lines[3], ": 3 violations") {
		t.Fatalf("want 3 violation lines and a count, got:\n%s", stderr)
	}
	offsets := []string{
		"offset " + itoaIndex(data, "4294967296"),
		"offset " + itoaIndex(data, "99,3,5,40"),
		"offset " + itoaIndex(data, `8,1,1,14]`),
	}
	for i, l := range lines[:3] {
		if !strings.HasPrefix(l, bad+": ") || !strings.Contains(l, "offset") {
			t.Errorf("violation line %q does not name the file and an offset", l)
		}
		if !strings.Contains(stderr, offsets[i]) {
			t.Errorf("no violation at %s:\n%s", offsets[i], stderr)
		}
	}
}

func itoaIndex(s, sub string) string {
	i := strings.Index(s, sub)
	if i < 0 {
		panic("missing " + sub)
	}
	return strconv.Itoa(i)
}

func TestRoundtripCommand(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		file      string
		byteExact bool
	}{
		{cliFixture(t, dir, "node20"), true},
		{cliFixture(t, dir, "node22"), true},
		{cliFixture(t, dir, "node24"), true},
		{cliFixture(t, dir, "node26"), true},
		{cliFixture(t, dir, "node26-tracking"), true},
		{cliCopy(t, dir, "rows.heapsnapshot"), true},
		{cliCopy(t, dir, "compact.heapsnapshot"), true},
		{cliCopy(t, dir, "other.heapsnapshot"), false},
	}
	for _, tc := range tests {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			code, stdout, stderr := cliRun(t, nil, "roundtrip", tc.file)
			if !strings.Contains(stdout, "IR msgpack+zstd round trip: identical") {
				t.Errorf("IR round trip not identical:\n%s%s", stdout, stderr)
			}
			if tc.byteExact {
				if code != 0 || !strings.Contains(stdout, "v8 -> IR -> v8: byte-exact") {
					t.Errorf("exit %d:\n%s%s", code, stdout, stderr)
				}
				return
			}
			if code != 0 || !strings.Contains(stdout, "v8 -> IR -> v8: the same data") {
				t.Errorf("a non-V8 layout: exit %d, want 0 and the same data:\n%s%s", code, stdout, stderr)
			}
		})
	}
	// An IR input has only the IR round trip.
	irFile := filepath.Join(dir, "rows.heapir.zst")
	if code, _, stderr := cliRun(t, nil, "convert", filepath.Join(dir, "rows.heapsnapshot"), irFile); code != 0 {
		t.Fatal(stderr)
	}
	code, stdout, _ := cliRun(t, nil, "roundtrip", irFile)
	if code != 0 || !strings.Contains(stdout, "identical") || strings.Contains(stdout, "byte-exact") {
		t.Errorf("IR input: exit %d:\n%s", code, stdout)
	}
}

// TestInfoV8Location: info's table names a V8 class DevTools splits by
// allocation location with its location, line and column counted from 1
// (the rows fixture's object is at script 3, zero-based line 10 column 4).
func TestInfoV8Location(t *testing.T) {
	code, stdout, stderr := cliRun(t, nil, "info", "--by", "retained", filepath.Join(smallDir, "rows.heapsnapshot"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// (U+F600, a private-use character, is shown as its escape.)
	if !regexp.MustCompile(`\n\s+1\s+32\s+48\s+` + regexp.QuoteMeta(`Café 名前 \uf600 at script 3 line 11 column 5`) + `\n`).MatchString(stdout) {
		t.Errorf("info does not show the class's location:\n%s", stdout)
	}
}

// TestInfoBy orders classes by retained size and count, and refuses an
// unknown order as a usage error.
func TestInfoBy(t *testing.T) {
	in := filepath.Join("..", "..", "testdata", "dart", "synthetic_vm_layout.dartheap")
	code, stdout, stderr := cliRun(t, nil, "info", "--by", "retained", in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// Foo holds its string, Mint and double and 1024 external bytes.
	if !strings.Contains(stdout, "retained size") || !regexp.MustCompile(`\n\s+1\s+48\s+1136\s+Foo\n`).MatchString(stdout) {
		t.Errorf("info --by retained does not list Foo retaining 1136 bytes:\n%s", stdout)
	}
	code, stdout, _ = cliRun(t, nil, "info", "--json", "--by", "retained", in)
	var out struct {
		Snapshots []struct {
			TopClasses []struct {
				Name     string  `json:"name"`
				Retained *uint64 `json:"retained_size"`
			} `json:"top_classes"`
		} `json:"snapshots"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil || code != 0 {
		t.Fatalf("info --json --by retained: exit %d, %v", code, err)
	}
	if top := out.Snapshots[0].TopClasses; len(top) == 0 || top[0].Name != "Foo" || top[0].Retained == nil || *top[0].Retained != 1136 {
		t.Errorf("JSON top class %+v, want Foo retaining 1136", top)
	}
	code, stdout, _ = cliRun(t, nil, "info", "--by", "count", in)
	if code != 0 || !regexp.MustCompile(`\n\s+2\s+0\s+_Smi\n`).MatchString(stdout) {
		t.Errorf("info --by count: exit %d, the two Smis do not lead:\n%s", code, stdout)
	}
	// No objects, so no root: nothing is retained, and that is no error.
	empty := filepath.Join(t.TempDir(), "empty.dartheap")
	if err := os.WriteFile(empty, append([]byte("dartheap"), make([]byte, 9)...), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := cliRun(t, nil, "info", "--by", "retained", empty); code != 0 {
		t.Errorf("info --by retained of a heap without objects: exit %d: %s", code, stderr)
	}
	if code, stdout, _ := cliRun(t, nil, "roundtrip", empty); code != 0 || !strings.Contains(stdout, "identical") {
		t.Errorf("roundtrip of a heap without objects: exit %d:\n%s", code, stdout)
	}
	if code, _, stderr := cliRun(t, nil, "info", "--by", "size", in); code != 2 || !strings.Contains(stderr, "--by") {
		t.Errorf("info --by size: exit %d, stderr %q; want a usage error", code, stderr)
	}
}

// TestMoarVMInput: a MoarVM file with several snapshots lists them, goes to
// V8 one snapshot at a time, to MoarVM whole, and a truncated copy reads
// with a recovery report.
func TestMoarVMInput(t *testing.T) {
	dir := t.TempDir()
	data := cliReadFile(t, filepath.Join("..", "..", "testdata", "moarvm", "nqp-3snap.mvmheap"))
	in := filepath.Join(dir, "nqp.mvmheap")
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := cliRun(t, nil, "info", in)
	if code != 0 || !strings.Contains(stdout, "snapshots: 3") || !strings.Contains(stdout, "snapshot 2\n  nodes 144538  edges 440461") {
		t.Errorf("info: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, _, stderr = cliRun(t, nil, "convert", in, filepath.Join(dir, "x.heapsnapshot"))
	if code != 1 || !strings.Contains(stderr, "holds 3 snapshots") || !strings.Contains(stderr, "2: GC run 3: 144526 collectables, 440461 references") {
		t.Errorf("to V8 without --snapshot: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = cliRun(t, nil, "convert", "--snapshot", "all", in, filepath.Join(dir, "s%d.heapsnapshot"))
	if code != 0 {
		t.Fatalf("--snapshot all: exit %d: %s", code, stderr)
	}
	for k, collectables := range []int{86481, 127190, 144538} {
		// The V8 file has MoarVM's collectables, a root in front and native
		// nodes for unmanaged sizes behind.
		_, stdout, _ := cliRun(t, nil, "info", filepath.Join(dir, "s"+strconv.Itoa(k)+".heapsnapshot"))
		_, rest, _ := strings.Cut(stdout, "  nodes ")
		nodes, _ := strconv.Atoi(strings.Fields(rest + " x")[0])
		if !strings.Contains(stdout, "format:   v8") || nodes <= collectables+1 {
			t.Errorf("s%d: %d nodes for %d collectables: %q", k, nodes, collectables, stdout)
		}
	}
	out := filepath.Join(dir, "copy.mvmheap")
	if code, _, stderr := cliRun(t, nil, "convert", in, out); code != 0 || stderr != "" {
		t.Fatalf("MoarVM to MoarVM: exit %d: %q", code, stderr)
	}
	code, stdout, _ = cliRun(t, nil, "info", out)
	if code != 0 || !strings.Contains(stdout, "snapshots: 3") {
		t.Errorf("info of the copy: exit %d: %q", code, stdout)
	}
	cut := filepath.Join(dir, "cut.mvmheap")
	if err := os.WriteFile(cut, data[:1_200_000], 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = cliRun(t, nil, "info", cut)
	if code != 0 || !strings.Contains(stdout, "recovered from a damaged file: 2 of 3 snapshots read, damage at offset") {
		t.Errorf("info of a truncated file: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if code, _, stderr := cliRun(t, nil, "validate", cut); code != 1 || !strings.Contains(stderr, "damaged file") || !strings.Contains(stderr, "2 snapshots recovered, 1 lost") {
		t.Errorf("validate of a truncated file: exit %d, stderr %q", code, stderr)
	}
	if code, stdout, _ := cliRun(t, nil, "validate", in); code != 0 || !strings.Contains(stdout, "valid moarvm file") {
		t.Errorf("validate of the whole file: exit %d, stdout %q", code, stdout)
	}
}

// TestFuchsiaInput: a heapdump with its contents directory, read with
// pointer scanning, written as pprof (gzipped or not) with its contents,
// and as V8 for DevTools.
func TestFuchsiaInput(t *testing.T) {
	dir := t.TempDir()
	fx := filepath.Join("..", "..", "testdata", "fuchsia")
	in, contents := filepath.Join(fx, "gen-current-tags.pb"), filepath.Join(fx, "gen-current-tags.contents")
	code, stdout, stderr := cliRun(t, nil, "info", "--contents", contents, "--scan-pointers", "--by", "retained", in)
	if code != 0 || !strings.Contains(stdout, "format:   fuchsia") || strings.Contains(stdout, "edges 0 ") {
		t.Fatalf("info: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	out, outContents := filepath.Join(dir, "copy.pb.gz"), filepath.Join(dir, "copy.contents")
	if code, _, stderr := cliRun(t, nil, "convert", "--contents", contents, "--out-contents", outContents, in, out); code != 0 {
		t.Fatalf("to pprof: exit %d: %s", code, stderr)
	}
	if b := cliReadFile(t, out); len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Error("the profile is not gzipped")
	}
	want, err := os.ReadDir(contents)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range want {
		if !bytes.Equal(cliReadFile(t, filepath.Join(outContents, e.Name())), cliReadFile(t, filepath.Join(contents, e.Name()))) {
			t.Fatalf("block %s written differently", e.Name())
		}
	}
	raw := filepath.Join(dir, "raw.pb")
	if code, _, stderr := cliRun(t, nil, "convert", "--no-gzip", in, raw); code != 0 {
		t.Fatalf("--no-gzip: exit %d: %s", code, stderr)
	}
	if b := cliReadFile(t, raw); len(b) < 1 || b[0] != 0x0a {
		t.Error("--no-gzip: not a plain protobuf")
	}
	v8 := filepath.Join(dir, "native.heapsnapshot")
	code, _, stderr = cliRun(t, nil, "convert", "--contents", contents, "--scan-pointers", in, v8)
	if code != 0 {
		t.Fatalf("to V8: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "heuristic") {
		t.Errorf("the loss report does not say the edges are heuristic: %q", stderr)
	}
}

// TestValidateEveryFormat: validate accepts a fixture of every format, and
// refuses the same file cut in the middle with its offset (a MoarVM file
// cut in its second snapshot reads, recovered, and is a violation).
func TestValidateEveryFormat(t *testing.T) {
	td := filepath.Join("..", "..", "testdata")
	dir := t.TempDir()
	irFile := filepath.Join(dir, "small.heapir")
	if code, _, stderr := cliRun(t, nil, "convert", filepath.Join(smallDir, "rows.heapsnapshot"), irFile); code != 0 {
		t.Fatal(stderr)
	}
	for _, tc := range []struct {
		format, path string
		cut          float64
	}{
		{"v8", filepath.Join(smallDir, "rows.heapsnapshot"), 0.5},
		{"ir", irFile, 0.5},
		{"dart", filepath.Join(td, "dart", "synthetic_vm_layout.dartheap"), 0.5},
		{"moarvm", filepath.Join(td, "moarvm", "nqp-3snap.mvmheap"), 0.9},
		{"fuchsia", filepath.Join(td, "fuchsia", "ffx-test-current-tags.pb"), 0.5},
		{"gzip-compressed fuchsia", filepath.Join(td, "fuchsia", "ffx-test-newest-tags.pb.gz"), 0.5},
		{"fuchsia-fidl", filepath.Join(td, "fuchsia-fidl", "ffx-test.fidlstream"), 0.5},
	} {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			code, stdout, stderr := cliRun(t, nil, "validate", tc.path)
			if code != 0 || !strings.Contains(stdout, ": valid "+tc.format+" file") {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
			}
			data := cliReadFile(t, tc.path)
			cut := filepath.Join(dir, "cut-"+filepath.Base(tc.path))
			if err := os.WriteFile(cut, data[:int(float64(len(data))*tc.cut)], 0o644); err != nil {
				t.Fatal(err)
			}
			code, _, stderr = cliRun(t, nil, "validate", cut)
			if code != 1 || !strings.Contains(stderr, "offset") || !strings.HasSuffix(stderr, ": 1 violation\n") ||
				strings.Count(stderr, cut) != 2 {
				t.Errorf("cut file: exit %d, stderr %q; want 1 and one violation with its offset, naming the file once a line", code, stderr)
			}
		})
	}
}

// TestInfoCountsAllocations: a Fuchsia profile's sample counts the
// allocations it merges; info's count column counts those (ffx's test
// profile: stack B's 4 blocks in one sample, stack A's one), and its
// snapshot line says how many objects the samples stand for.
func TestInfoCountsAllocations(t *testing.T) {
	in := "../../testdata/fuchsia/ffx-test-current-agg.pb"
	code, stdout, stderr := cliRun(t, nil, "info", "--json", in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var out struct {
		Snapshots []struct {
			Nodes, Objects uint64
			TopClasses     []struct {
				Count    uint64
				SelfSize uint64 `json:"self_size"`
			} `json:"top_classes"`
		}
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil || len(out.Snapshots) != 1 {
		t.Fatalf("%v\n%s", err, stdout)
	}
	s := out.Snapshots[0]
	if s.Nodes != 2 || s.Objects != 5 || len(s.TopClasses) != 2 ||
		s.TopClasses[0].Count != 4 || s.TopClasses[0].SelfSize != 49200 || s.TopClasses[1].Count != 1 {
		t.Errorf("info --json: %+v; want 2 samples of 5 objects, 4 of 49,200 bytes in the first class", s)
	}
	code, stdout, stderr = cliRun(t, nil, "info", in)
	if code != 0 || !strings.Contains(stdout, "nodes 2  objects 5  edges 0") {
		t.Errorf("exit %d; info does not say the 2 samples are 5 objects:\n%s%s", code, stdout, stderr)
	}
}
