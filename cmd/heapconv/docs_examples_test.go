package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heapconv/heapconv"
	"github.com/heapconv/heapconv/ir"
)

// root is the repository's root, where the documents' commands run.
var root = filepath.Join("..", "..")

// docCommand turns a command line of the documents into arguments that run
// here: their /tmp/heapconv is dir, and their repository paths are
// relative to the root. The documents' commands need no shell: a quote or
// a variable would need one, and is refused.
func docCommand(t *testing.T, line, dir string) []string {
	t.Helper()
	if strings.ContainsAny(line, `'"$|<>;&`) {
		t.Fatalf("the test runs commands without a shell; this one needs one: %s", line)
	}
	args := strings.Fields(strings.ReplaceAll(line, "/tmp/heapconv", dir))
	for i, a := range args {
		if strings.HasPrefix(a, "testdata/") {
			args[i] = filepath.Join(root, a)
		}
	}
	return args
}

// section returns the part of a markdown document under the heading, up to
// the next heading of its level.
func section(t *testing.T, doc, heading string) string {
	t.Helper()
	data := string(cliReadFile(t, filepath.Join(root, doc)))
	_, s, ok := strings.Cut(data, "\n"+heading+"\n")
	if !ok {
		t.Fatalf("%s has no %q", doc, heading)
	}
	level := heading[:strings.IndexByte(heading, ' ')+1]
	s, _, _ = strings.Cut(s, "\n"+level)
	return s
}

// readmeCommands returns the command lines of a section of the README:
// its lines indented by four spaces (not more).
func readmeCommands(t *testing.T, heading string) []string {
	var lines []string
	for _, l := range strings.Split(section(t, "README.md", heading), "\n") {
		if l, ok := strings.CutPrefix(l, "    "); ok && !strings.HasPrefix(l, " ") {
			lines = append(lines, l)
		}
	}
	return lines
}

// TestREADMEExamples runs the README's examples, as a reader pastes them,
// twice: they all succeed, and again once their outputs exist.
func TestREADMEExamples(t *testing.T) {
	dir := t.TempDir()
	lines := readmeCommands(t, "## Examples")
	if len(lines) < 10 {
		t.Fatalf("the README's examples: %d commands", len(lines))
	}
	for round := 1; round <= 2; round++ {
		for _, line := range lines {
			args := docCommand(t, line, dir)
			switch args[0] {
			case "heapconv":
				if code, _, stderr := cliRun(t, nil, args[1:]...); code != 0 {
					t.Errorf("run %d: %s: exit %d: %s", round, line, code, stderr)
				}
			case "mkdir":
				if len(args) != 3 || args[1] != "-p" {
					t.Fatalf("%s: only mkdir -p DIR is known here", line)
				}
				if err := os.MkdirAll(args[2], 0o755); err != nil {
					t.Fatal(err)
				}
			case "node":
				if out, err := exec.Command("node", args[1:]...).CombinedOutput(); err != nil {
					t.Errorf("run %d: %s: %v\n%s", round, line, err, out)
				}
			default:
				t.Fatalf("the README runs %s, which the test does not know: %s", args[0], line)
			}
		}
	}
}

// TestREADMEArchives runs the commands of the README's section on
// archives, as a shell would (its one glob expanded), and checks what the
// section promises: the snapshot converted back from the archive is the
// file it came from, byte for byte.
func TestREADMEArchives(t *testing.T) {
	dir := t.TempDir()
	lines := readmeCommands(t, "## Archives")
	if len(lines) < 4 {
		t.Fatalf("the README's archive section: %d commands", len(lines))
	}
	for _, line := range lines {
		var args []string
		for _, a := range docCommand(t, line, dir) {
			if strings.Contains(a, "*") {
				matches, err := filepath.Glob(a)
				if err != nil || len(matches) == 0 {
					t.Fatalf("%s: %s matches nothing", line, a)
				}
				args = append(args, matches...)
				continue
			}
			if strings.HasPrefix(a, "scripts/") {
				a = filepath.Join(root, a)
			}
			args = append(args, a)
		}
		switch args[0] {
		case "heapconv":
			if code, _, stderr := cliRun(t, nil, args[1:]...); code != 0 {
				t.Fatalf("%s: exit %d: %s", line, code, stderr)
			}
		case "node":
			if out, err := exec.Command("node", args[1:]...).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", line, err, out)
			}
		default:
			t.Fatalf("the README runs %s, which the test does not know: %s", args[0], line)
		}
	}
	got := cliReadFile(t, filepath.Join(dir, "snap-10.heapsnapshot"))
	want := cliReadFile(t, filepath.Join(dir, "server", "snap-10.heapsnapshot"))
	if !bytes.Equal(got, want) {
		t.Errorf("snap-10.heapsnapshot converted back from the archive differs from the file archived (%d and %d bytes)", len(got), len(want))
	}
	// Every command that reads one snapshot takes the archive's: paths
	// and report print of snapshot 10 what they print of the file.
	archive := filepath.Join(dir, "server.heapir.zst")
	file := filepath.Join(dir, "server", "snap-10.heapsnapshot")
	for _, args := range [][]string{
		{"paths", "--class", "Session", "--max", "1", "--json"},
		{"info", "--json", "--top", "5"},
	} {
		_, fromArchive, stderr := cliRun(t, nil, append(args, archive+"#10")...)
		_, fromFile, _ := cliRun(t, nil, append(args, file)...)
		if stderr != "" || len(fromArchive) == 0 {
			t.Fatalf("%v %s#10: %s", args, archive, stderr)
		}
		// What is about the heap compares; the name and number of the
		// input, and the format it was read from, differ.
		field := map[string]string{"paths": "objects", "info": "snapshots"}[args[0]]
		fromArchive, fromFile = jsonField(t, fromArchive, field), jsonField(t, fromFile, field)
		if fromArchive != fromFile {
			t.Errorf("%v: of %s#10\n%s\nof the file\n%s", args, archive, fromArchive, fromFile)
		}
	}
	report := filepath.Join(dir, "server.html")
	if code, _, stderr := cliRun(t, nil, "report", archive+"#0", archive+"#10", report); code != 0 {
		t.Fatalf("report of two snapshots of the archive: exit %d: %s", code, stderr)
	}
	if page := cliReadFile(t, report); !bytes.Contains(page, []byte("Session")) {
		t.Error("the report of the archive's snapshots does not name the leaking class")
	}
}

// jsonField returns a field of a command's JSON output, without the
// "index" keys of the objects in it (a snapshot's number in its file).
func jsonField(t *testing.T, out, field string) string {
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if l, ok := v[field].([]any); ok {
		for _, x := range l {
			if m, ok := x.(map[string]any); ok {
				delete(m, "index")
			}
		}
	}
	b, err := json.Marshal(v[field])
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestCLIDocExamples: each example of docs/cli.md, a command line after
// "$ " and the lines it prints, is what the command prints (its standard
// error and output together), run here.
func TestCLIDocExamples(t *testing.T) {
	blocks := 0
	lines := strings.Split(string(cliReadFile(t, filepath.Join(root, "docs", "cli.md"))), "\n")
	for i := 0; i < len(lines); i++ {
		cmd, ok := strings.CutPrefix(lines[i], "    $ ")
		if !ok {
			continue
		}
		var want strings.Builder
		for i++; i < len(lines) && strings.HasPrefix(lines[i], "    ") && !strings.HasPrefix(lines[i], "    $ "); i++ {
			want.WriteString(strings.TrimPrefix(lines[i], "    ") + "\n")
		}
		i--
		blocks++
		t.Run(cmd, func(t *testing.T) {
			args := docCommand(t, cmd, t.TempDir())
			if args[0] != "heapconv" {
				t.Fatalf("not a heapconv command: %s", cmd)
			}
			var out bytes.Buffer
			code := run(&env{stdin: bytes.NewReader(nil), stdout: &out, stderr: &out}, args[1:])
			if code != 0 || out.String() != want.String() {
				t.Errorf("exit %d; docs/cli.md shows what the command no longer prints:\n%s", code, lineDiff(want.String(), out.String()))
			}
		})
	}
	if blocks == 0 {
		t.Fatal("docs/cli.md has no example")
	}
}

// TestREADMERedact runs the README's redaction example and checks what
// the section promises: the output holds none of the input's string
// values, and has its shape.
func TestREADMERedact(t *testing.T) {
	dir := t.TempDir()
	lines := readmeCommands(t, "## Sharing a production snapshot")
	if len(lines) != 1 {
		t.Fatalf("the README's redaction section: %d commands, want 1", len(lines))
	}
	args := docCommand(t, lines[0], dir)
	if args[0] != "heapconv" {
		t.Fatalf("the README runs %s: %s", args[0], lines[0])
	}
	code, _, stderr := cliRun(t, nil, args[1:]...)
	if code != 0 || !strings.Contains(stderr, "redacted (--redact") {
		t.Fatalf("%s: exit %d: %s", lines[0], code, stderr)
	}
	in, err := heapconv.ReadFile(args[len(args)-2], nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := heapconv.ReadFile(args[len(args)-1], nil)
	if err != nil {
		t.Fatal(err)
	}
	// Every string of the output (a V8 file, where a string object is
	// named by its contents) is a placeholder.
	o := out.Snapshots[0]
	strs := 0
	for n := range o.Nodes.Len() {
		if o.NodeKindName(n) != ir.KindString {
			continue
		}
		strs++
		if name := out.String(o.Nodes.Name[n]); strings.Trim(strings.TrimSuffix(name, "..."), "x") != "" { // "...": a string the VM truncated
			t.Errorf("string object %d of the redacted output is %q", n, name)
		}
	}
	if strs < 1000 {
		t.Errorf("the redacted output has %d string objects", strs)
	}
	if in.Snapshots[0].Nodes.Len() > out.Snapshots[0].Nodes.Len() {
		t.Errorf("%d objects became %d", in.Snapshots[0].Nodes.Len(), out.Snapshots[0].Nodes.Len())
	}
}
