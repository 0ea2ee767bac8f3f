package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/heapconv/heapconv/readers/moarvm"
)

// TestVersion: heapconv --version and heapconv version print the same line.
func TestVersion(t *testing.T) {
	code, a, stderr := cliRun(t, nil, "--version")
	if code != 0 || !regexp.MustCompile(`^heapconv \S+.*, IR schema \d+`).MatchString(a) {
		t.Errorf("--version: exit %d, %q %q", code, a, stderr)
	}
	code, b, _ := cliRun(t, nil, "version")
	if code != 0 || a != b {
		t.Errorf("version: exit %d, %q; --version said %q", code, b, a)
	}
	if code, _, _ := cliRun(t, nil, "version", "x"); code != 2 {
		t.Errorf("version x: exit %d, want 2", code)
	}
}

// TestHelpCommand: heapconv help CMD is CMD --help.
func TestHelpCommand(t *testing.T) {
	for _, c := range commands {
		code, stdout, _ := cliRun(t, nil, "help", c.name)
		if code != 0 || stdout != c.usage {
			t.Errorf("help %s: exit %d, printed %.60q…, want the command's usage", c.name, code, stdout)
		}
	}
	if code, _, stderr := cliRun(t, nil, "help", "frobnicate"); code != 2 || !strings.Contains(stderr, "unknown command") {
		t.Errorf("help frobnicate: exit %d, %q", code, stderr)
	}
}

// TestFromEverywhere: every command that reads IN takes --from.
func TestFromEverywhere(t *testing.T) {
	in := filepath.Join(smallDir, "rows.heapsnapshot")
	for _, args := range [][]string{{"info"}, {"validate"}, {"roundtrip"}, {"dump"}, {"convert", "--to", "ir"}} {
		args := append(args, "--from", "v8", in)
		if args[0] == "convert" {
			args = append(args, "-")
		}
		if code, _, stderr := cliRun(t, nil, args...); code != 0 {
			t.Errorf("%s: exit %d: %s", strings.Join(args, " "), code, stderr)
		}
	}
	// --from names the format when detection cannot: a pprof profile
	// whose first field is not a sample type.
	if code, _, stderr := cliRun(t, nil, "info", "--from", "nope", in); code != 2 || !strings.Contains(stderr, `unknown format "nope"`) {
		t.Errorf("--from nope: exit %d, %q", code, stderr)
	}
}

// TestArgumentMessages: what a wrong command line is told.
func TestArgumentMessages(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(smallDir, "rows.heapsnapshot")
	tests := []struct {
		args   []string
		code   int
		stderr string
		not    string
	}{
		{[]string{"info", in, in}, 2, "info takes one IN, not 2", "needs IN"},
		{[]string{"dump", "a", "b", "c"}, 2, "dump takes one IN, not 3 (a b c)", ""},
		{[]string{"validate", in, in}, 2, "validate takes one IN", ""},
		{[]string{"convert", in, filepath.Join(dir, "missing", "x.heapsnapshot")}, 1, "directory " + filepath.Join(dir, "missing") + " does not exist", ".tmp-"},
		{[]string{"convert", in, filepath.Join(in, "x.heapsnapshot")}, 1, "is not a directory", ".tmp-"},
		{[]string{"info", "--top", "-1", in}, 2, "--top", ""},
	}
	for _, tc := range tests {
		code, _, stderr := cliRun(t, nil, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.stderr) || tc.not != "" && strings.Contains(stderr, tc.not) {
			t.Errorf("%s: exit %d, stderr %q; want %d and %q", strings.Join(tc.args, " "), code, stderr, tc.code, tc.stderr)
		}
	}
	// A read-only directory: the temporary file's name is not the user's.
	ro := filepath.Join(dir, "ro")
	if err := os.Mkdir(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	if f, err := os.CreateTemp(ro, "probe"); err == nil {
		// Running as root: permissions do not stop us.
		f.Close()
		os.Remove(f.Name())
	} else {
		code, _, stderr := cliRun(t, nil, "convert", in, filepath.Join(ro, "x.heapsnapshot"))
		if code != 1 || strings.Contains(stderr, ".tmp-") || !strings.Contains(stderr, "permission denied") {
			t.Errorf("a read-only directory: exit %d, %q", code, stderr)
		}
	}
}

// TestOneSnapshot: counts are said in the singular when there is one.
func TestOneSnapshot(t *testing.T) {
	for _, name := range []string{"nqp-1snap.mvmheap", "nqp-1snap-v002.mvmheap.gz"} {
		_, stdout, stderr := cliRun(t, nil, "info", filepath.Join(testdata, "moarvm", name))
		if !strings.Contains(stdout, ", 1 snapshot\n") || strings.Contains(stdout+stderr, "1 snapshots") {
			t.Errorf("%s:\n%s%s", name, stdout, stderr)
		}
	}
	_, stdout, _ := cliRun(t, nil, "info", filepath.Join(testdata, "fuchsia", "gen-current-tags.pb"))
	if strings.Contains(stdout, "1 processes") {
		t.Errorf("gen-current-tags.pb:\n%s", stdout)
	}
}

// smallWithName is the rows fixture with the object's class name (string
// 3) replaced by the JSON string literal lit.
func smallWithName(t *testing.T, dir, lit string) string {
	t.Helper()
	data := string(cliReadFile(t, filepath.Join(smallDir, "rows.heapsnapshot")))
	const old = `"Caf\u00E9 \u540D\u524D \uF600"`
	if !strings.Contains(data, old) {
		t.Fatal("the rows fixture has changed")
	}
	return writeFile(t, filepath.Join(dir, "named.heapsnapshot"), []byte(strings.Replace(data, old, lit, 1)))
}

// TestInfoLongName: a long class name is cut in info's table, not in its
// JSON.
func TestInfoLongName(t *testing.T) {
	name := strings.Repeat("VeryLongClassName", 36) // 612 characters
	in := smallWithName(t, t.TempDir(), `"`+name+`"`)
	_, stdout, _ := cliRun(t, nil, "info", in)
	for _, line := range strings.Split(stdout, "\n") {
		if len(line) > 200 {
			t.Errorf("a line of %d characters: %.80q…", len(line), line)
		}
	}
	if !strings.Contains(stdout, name[:100]+"… (612 characters)") {
		t.Errorf("the name is not shown cut:\n%s", stdout)
	}
	_, stdout, _ = cliRun(t, nil, "info", "--json", in)
	if !strings.Contains(stdout, `"name":"`+name+`"`) {
		t.Errorf("--json does not have the whole name:\n%s", stdout)
	}
}

// TestInfoLoneSurrogate: a name holding a lone UTF-16 surrogate (V8
// strings may) keeps it in info --json, as its \u escape.
func TestInfoLoneSurrogate(t *testing.T) {
	in := smallWithName(t, t.TempDir(), `"half \uD83D of an emoji, \"quoted\"\t"`)
	code, stdout, stderr := cliRun(t, nil, "info", "--json", in)
	if code != 0 {
		t.Fatal(stderr)
	}
	if !strings.Contains(stdout, `"name":"half \ud83d of an emoji, \"quoted\"\t"`) {
		t.Errorf("the surrogate is not kept as an escape:\n%s", stdout)
	}
	var v any
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Errorf("not JSON: %v", err)
	}
	_, stdout, _ = cliRun(t, nil, "info", in)
	if !strings.Contains(stdout, `half \ud83d of an emoji, "quoted"\t`) {
		t.Errorf("the table does not show the surrogate as an escape:\n%s", stdout)
	}
}

// TestSnapshotOption: info --snapshot N summarizes one snapshot; convert
// --snapshot all pads numbers as OUT's verb says; a snapshot that does not
// exist is an error.
func TestSnapshotOption(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(testdata, "moarvm", "nqp-3snap.mvmheap")
	code, stdout, stderr := cliRun(t, nil, "info", "--json", "--snapshot", "1", in)
	if code != 0 {
		t.Fatal(stderr)
	}
	var info struct {
		Snapshots []struct{ Index, Nodes int }
	}
	if err := json.Unmarshal([]byte(stdout), &info); err != nil || len(info.Snapshots) != 1 || info.Snapshots[0].Index != 1 ||
		info.Snapshots[0].Nodes != 127190 {
		t.Errorf("info --snapshot 1: %v %+v", err, info)
	}
	_, stdout, _ = cliRun(t, nil, "info", "--snapshot", "all", in)
	if strings.Count(stdout, "\nsnapshot ") != 3 {
		t.Errorf("info --snapshot all:\n%s", stdout)
	}
	for _, args := range [][]string{{"info", "--snapshot", "3", in}, {"convert", "--snapshot", "3", in, filepath.Join(dir, "x.heapsnapshot")}} {
		if code, _, stderr := cliRun(t, nil, args...); code != 1 || !strings.Contains(stderr, "snapshot 3 does not exist (the file has 3 snapshots)") {
			t.Errorf("%s: exit %d, %q", args[0], code, stderr)
		}
	}
	if code, _, stderr := cliRun(t, nil, "info", "--snapshot", "first", in); code != 2 || !strings.Contains(stderr, "--snapshot takes") {
		t.Errorf("--snapshot first: exit %d, %q", code, stderr)
	}
	if code, _, stderr := cliRun(t, nil, "convert", "-q", "--snapshot", "all", in, filepath.Join(dir, "s-%03d.heapsnapshot.zst")); code != 0 {
		t.Fatal(stderr)
	}
	if got, want := cliDir(t, dir), []string{"s-000.heapsnapshot.zst", "s-001.heapsnapshot.zst", "s-002.heapsnapshot.zst"}; !slices.Equal(got, want) {
		t.Errorf("files %q, want %q", got, want)
	}
	for _, bad := range []string{"s.heapsnapshot", "s-%d-%d.heapsnapshot", "s-%s.heapsnapshot"} {
		if code, _, stderr := cliRun(t, nil, "convert", "--snapshot", "all", in, filepath.Join(dir, bad)); code != 2 || !strings.Contains(stderr, "%d") {
			t.Errorf("--snapshot all with OUT %s: exit %d, %q", bad, code, stderr)
		}
	}
}

// TestMultiSnapshotRefusedAtOnce: a multi-snapshot MoarVM file going to a
// one-snapshot format without --snapshot is refused from its tables of
// contents, before any snapshot is read: a copy whose snapshot data is
// destroyed (its tables of contents intact) gets the same answer.
func TestMultiSnapshotRefusedAtOnce(t *testing.T) {
	dir := t.TempDir()
	data := cliReadFile(t, filepath.Join(testdata, "moarvm", "nqp-3snap.mvmheap"))
	blocks, err := moarvm.Blocks(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range blocks {
		if b.Name == "colkind" || b.Name == "refdescr" {
			// Zero the zstd frames, leaving the block headers.
			for i := b.Offset + 18; i < b.Offset+18+64; i++ {
				data[i] = 0
			}
		}
	}
	in := writeFile(t, filepath.Join(dir, "gutted.mvmheap"), data)
	code, _, stderr := cliRun(t, nil, "convert", in, filepath.Join(dir, "x.heapsnapshot"))
	want := "holds 3 snapshots and v8 files hold one; choose with --snapshot N (or --snapshot all with %d in OUT):\n" +
		"  0: GC run 1: 86470 collectables, 317913 references, heap 9712036 bytes\n" +
		"  1: GC run 2: 127179 collectables, 374608 references, heap 11213792 bytes\n" +
		"  2: GC run 3: 144526 collectables, 440461 references, heap 12801448 bytes\n"
	if code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr:\n%s\nwant:\n%s", code, stderr, want)
	}
	if got := cliDir(t, dir); !slices.Equal(got, []string{"gutted.mvmheap"}) {
		t.Errorf("directory holds %q", got)
	}
}

// TestSnapshotAllAtomic: --snapshot all refuses an OUT it may not write
// before reading (with a table of contents to count the files), and when
// one file fails none is left, as for a single OUT.
func TestSnapshotAllAtomic(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(testdata, "moarvm", "nqp-3snap.mvmheap")
	existing := writeFile(t, filepath.Join(dir, "s-002.heapsnapshot"), []byte("mine"))
	code, _, stderr := cliRun(t, nil, "convert", "-q", "--snapshot", "all", in, filepath.Join(dir, "s-%03d.heapsnapshot"))
	if code != 1 || !strings.Contains(stderr, "s-002.heapsnapshot exists") {
		t.Errorf("an existing third OUT: exit %d, %q", code, stderr)
	}
	if got := cliDir(t, dir); !slices.Equal(got, []string{"s-002.heapsnapshot"}) || string(cliReadFile(t, existing)) != "mine" {
		t.Errorf("directory holds %q", got)
	}
	// Compressed, the file has no index: the second OUT is found to be a
	// directory only after the first was written, which must go too.
	gz := writeFile(t, filepath.Join(dir, "in.mvmheap.gz"), gzipBytes(t, cliReadFile(t, in)))
	if err := os.Mkdir(filepath.Join(dir, "t1.heapsnapshot"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = cliRun(t, nil, "convert", "-q", "--snapshot", "all", gz, filepath.Join(dir, "t%d.heapsnapshot"))
	if code != 1 || !strings.Contains(stderr, "t1.heapsnapshot is a directory") {
		t.Errorf("a directory as the second OUT: exit %d, %q", code, stderr)
	}
	if got, want := cliDir(t, dir), []string{"in.mvmheap.gz", "s-002.heapsnapshot", "t1.heapsnapshot"}; !slices.Equal(got, want) {
		t.Errorf("directory holds %q, want %q", got, want)
	}
	// %% is a %; other verbs are refused.
	if code, _, stderr := cliRun(t, nil, "convert", "-q", "--snapshot", "all", in, filepath.Join(dir, "100%%-%d.heapsnapshot.zst")); code != 0 {
		t.Fatal(stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "100%-2.heapsnapshot.zst")); err != nil {
		t.Error(err)
	}
	for _, bad := range []string{"r-%%d.heapsnapshot", "r-%5d.heapsnapshot", "r-%-3d.heapsnapshot", "r-%d-%03d.heapsnapshot"} {
		if code, _, stderr := cliRun(t, nil, "convert", "--snapshot", "all", in, filepath.Join(dir, bad)); code != 2 || !strings.Contains(stderr, "%03d to pad") {
			t.Errorf("OUT %s: exit %d, %q", bad, code, stderr)
		}
	}
}

// TestLossReportFile: --loss-report is an output like OUT: never the
// input, an existing file only with --force, and refused before anything
// is written.
func TestLossReportFile(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, filepath.Join(dir, "in.dartheap"), cliReadFile(t, filepath.Join(testdata, "dart", "synthetic_vm_layout.dartheap")))
	out := filepath.Join(dir, "out.heapsnapshot")
	for _, tc := range []struct {
		report, stderr string
	}{
		{in, "is the input file"},
		{writeFile(t, filepath.Join(dir, "old.json"), []byte("{}")), "old.json exists (use --force"},
		{filepath.Join(dir, "missing", "loss.json"), "does not exist"},
		{filepath.Join(dir, "./out.heapsnapshot"), "the same file"},
	} {
		code, _, stderr := cliRun(t, nil, "convert", "--loss-report", tc.report, in, out)
		if code == 0 || !strings.Contains(stderr, tc.stderr) {
			t.Errorf("--loss-report %s: exit %d, %q", tc.report, code, stderr)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("--loss-report %s: OUT was written", tc.report)
		}
	}
	if got, want := cliDir(t, dir), []string{"in.dartheap", "old.json"}; !slices.Equal(got, want) {
		t.Errorf("directory holds %q", got)
	}
	if code, _, stderr := cliRun(t, nil, "convert", "-q", "--force", "--loss-report", filepath.Join(dir, "old.json"), in, out); code != 0 {
		t.Fatal(stderr)
	}
	if data := cliReadFile(t, filepath.Join(dir, "old.json")); !bytes.Contains(data, []byte(`"losses"`)) {
		t.Errorf("--force: the report is %q", data)
	}
}

// TestUsageErrorsAreShort: a usage error is the error, the synopsis and
// where to find the rest, not the whole help.
func TestUsageErrorsAreShort(t *testing.T) {
	code, _, stderr := cliRun(t, nil, "convert", "in.heapsnapshot", "out.gz")
	if code != 2 || !strings.Contains(stderr, `cannot tell the output format from "out.gz"; give --to`) ||
		!strings.Contains(stderr, "Usage: heapconv convert") || strings.Contains(stderr, "Examples:") ||
		!strings.Contains(stderr, `Run "heapconv help convert"`) || strings.Count(stderr, "\n") > 10 {
		t.Errorf("exit %d:\n%s", code, stderr)
	}
	if code, _, _ := cliRun(t, nil, "help", "convert", "extra"); code != 2 {
		t.Errorf("help convert extra: exit %d, want 2", code)
	}
}

// TestLongOutputName: an OUT name as long as the file system allows is
// written (its temporary file's name is kept short enough).
func TestLongOutputName(t *testing.T) {
	dir := t.TempDir()
	name := strings.Repeat("n", 255-len(".heapsnapshot")) + ".heapsnapshot"
	if code, _, stderr := cliRun(t, nil, "convert", filepath.Join(smallDir, "rows.heapsnapshot"), filepath.Join(dir, name)); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got := cliDir(t, dir); !slices.Equal(got, []string{name}) {
		t.Errorf("directory holds %q", got)
	}
}

// TestInfoAs: info --as F shows what info shows of IN converted to F (each
// snapshot of a multi-snapshot IN on its own for a one-snapshot F, the
// whole file for another), with the conversion's loss report; an unknown
// or unwritable F is a usage error.
func TestInfoAs(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ in, as, ext string }{
		{"dart/flutter-nohash-3k.dartheap.zst", "v8", ".heapsnapshot"},
		{"moarvm/nqp-3snap.mvmheap", "v8", ".heapsnapshot"},
		{"fuchsia/gen-current-tags.pb", "v8", ".heapsnapshot"},
		{"v8/small/rows.heapsnapshot", "dart", ".dartheap"},
		{"dart/synthetic_vm_layout.dartheap", "fuchsia", ".pb.gz"},
		{"moarvm/nqp-3snap.mvmheap", "fuchsia", ".pb.gz"},
	} {
		t.Run(strings.ReplaceAll(c.in, "/", "-")+"-as-"+c.as, func(t *testing.T) {
			in := filepath.Join("..", "..", "testdata", c.in)
			code, stdout, stderr := cliRun(t, nil, "info", "--json", "--by", "retained", "--top", "0", "--as", c.as, in)
			if code != 0 {
				t.Fatal(stderr)
			}
			var as infoJSON
			if err := json.Unmarshal([]byte(stdout), &as); err != nil {
				t.Fatal(err)
			}
			if as.As != c.as {
				t.Errorf(`"as" is %q, want %q`, as.As, c.as)
			}
			if len(as.Snapshots) == 0 {
				t.Fatal("no snapshots")
			}
			whole := c.as == "fuchsia" // holds every snapshot: the file is converted once
			for _, s := range as.Snapshots {
				out := filepath.Join(dir, fmt.Sprintf("%s-%d%s", filepath.Base(t.Name()), s.Index, c.ext))
				args, k := []string{"convert", "-q", "--snapshot", strconv.Itoa(s.Index), in, out}, 0
				if whole {
					args, k = []string{"convert", "-q", in, out}, s.Index
				}
				if code, _, stderr := cliRun(t, nil, args...); code != 0 {
					t.Fatal(stderr)
				}
				_, stdout, _ := cliRun(t, nil, "info", "--json", "--by", "retained", "--top", "0", out)
				var conv infoJSON
				if err := json.Unmarshal([]byte(stdout), &conv); err != nil {
					t.Fatal(err)
				}
				if whole && (len(s.Loss) > 0) != (s.Index == 0) {
					t.Errorf("snapshot %d: %d losses; the file's report goes with the first snapshot", s.Index, len(s.Loss))
				}
				want := conv.Snapshots[k].SnapshotSummary
				if got := s.SnapshotSummary; !reflect.DeepEqual(got, want) {
					t.Errorf("snapshot %d: --as %s says %+v; the converted file %+v", s.Index, c.as, got, want)
				}
				if c.in != "v8/small/rows.heapsnapshot" && len(s.Loss) == 0 && (!whole || s.Index == 0) {
					t.Errorf("snapshot %d: no loss report", s.Index)
				}
			}
		})
	}
	for _, as := range []string{"nope", "ir-text"} {
		if code, _, stderr := cliRun(t, nil, "info", "--as", as, filepath.Join(smallDir, "rows.heapsnapshot")); code != 2 || !strings.Contains(stderr, "--as") {
			t.Errorf("--as %s: exit %d, %q; want a usage error", as, code, stderr)
		}
	}
	_, stdout, _ := cliRun(t, nil, "info", filepath.Join("..", "..", "testdata", "moarvm", "nqp-1snap.mvmheap"))
	if !strings.Contains(stdout, "heapconv info --as v8") {
		t.Errorf("info on a MoarVM file does not point to --as v8:\n%s", stdout)
	}
}

// TestFromTwice: --from and --contents say something of every IN; given
// twice with different values (as if for the IN after each) they are a
// usage error in every command, and the same value twice is the value.
func TestFromTwice(t *testing.T) {
	in := filepath.Join(smallDir, "rows.heapsnapshot")
	pb := filepath.Join(td, "fuchsia", "gen-current-tags.pb")
	contents := filepath.Join(td, "fuchsia", "gen-current-tags.contents")
	for _, args := range [][]string{
		{"info", in},
		{"validate", in},
		{"roundtrip", in},
		{"dump", in},
		{"convert", "--to", "ir", in, "-"},
		{"diff", in, in},
		{"paths", "--class", "(string)", in},
		{"report", in, "-"},
	} {
		twice := append([]string{args[0], "--from", "v8"}, args[1:len(args)-1]...)
		twice = append(twice, "--from", "dart", args[len(args)-1])
		code, _, stderr := cliRun(t, nil, twice...)
		if code != 2 || !strings.Contains(stderr, "--from is given twice (v8, then dart), but it applies to every IN") {
			t.Errorf("%s: exit %d, %s", strings.Join(twice, " "), code, stderr)
		}
		same := append([]string{args[0], "--from", "v8", "--from", "v8"}, args[1:]...)
		if code, _, stderr := cliRun(t, nil, same...); code != 0 {
			t.Errorf("%s: exit %d, %s", strings.Join(same, " "), code, stderr)
		}
	}
	code, _, stderr := cliRun(t, nil, "diff", "--contents", contents, pb, "--contents", td, pb)
	if code != 2 || !strings.Contains(stderr, "--contents is given twice") {
		t.Errorf("--contents twice: exit %d, %s", code, stderr)
	}
}

// TestTopZeroIsAll: --top 0 lists every class in info, as in diff.
func TestTopZeroIsAll(t *testing.T) {
	in := filepath.Join(td, "dart", "synthetic_vm_layout.dartheap")
	var all, zero infoJSON
	for _, c := range []struct {
		top string
		out *infoJSON
	}{{"1000000", &all}, {"0", &zero}} {
		code, stdout, stderr := cliRun(t, nil, "info", "--json", "--top", c.top, in)
		if code != 0 || json.Unmarshal([]byte(stdout), c.out) != nil {
			t.Fatalf("--top %s: exit %d, %s", c.top, code, stderr)
		}
	}
	if n := len(zero.Snapshots[0].TopClasses); n == 0 || n != len(all.Snapshots[0].TopClasses) {
		t.Errorf("--top 0 lists %d classes, of %d", n, len(all.Snapshots[0].TopClasses))
	}
	if _, stdout, _ := cliRun(t, nil, "info", "--top", "0", in); !strings.Contains(stdout, "count      self size  class") {
		t.Errorf("info --top 0 lists no class:\n%s", stdout)
	}
}

// TestQuietHidesProgress: convert -q leaves standard error empty, the
// progress bar included (here drawn for every input, on a terminal).
func TestQuietHidesProgress(t *testing.T) {
	defer func(n int64) { progressMinSize = n }(progressMinSize)
	progressMinSize = 0
	in := filepath.Join(td, "v8", "node22.heapsnapshot.zst")
	dir := t.TempDir()
	for _, args := range [][]string{
		{"convert", in, filepath.Join(dir, "a.dartheap")},
		{"convert", "--to", "parquet", in, filepath.Join(dir, "t")},
	} {
		var out, errb bytes.Buffer
		e := &env{stdin: bytes.NewReader(nil), stdout: &out, stderr: &errb, stderrTerminal: true}
		if code := run(e, args); code != 0 || !strings.Contains(errb.String(), "reading [") {
			t.Fatalf("%q without -q: exit %d, no progress bar: %q", args, code, errb.String())
		}
		errb.Reset()
		quiet := append([]string{args[0], "-q", "--force"}, args[1:]...)
		if code := run(e, quiet); code != 0 || errb.Len() > 0 {
			t.Errorf("%q: exit %d, standard error %q", quiet, code, errb.String())
		}
	}
}

// TestStdinOnce: standard input is one stream: naming it twice as the same
// heap is a usage error (it would be compared with itself); two snapshots
// of it may be named.
func TestStdinOnce(t *testing.T) {
	v8 := cliReadFile(t, filepath.Join(smallDir, "rows.heapsnapshot"))
	mvm := cliReadFile(t, filepath.Join(td, "moarvm", "nqp-3snap.mvmheap"))
	runCases(t, []cliCase{
		{"diff - -", v8, []string{"diff", "-", "-"}, 2, "", "standard input (-) is named twice"},
		{"diff - - -", v8, []string{"diff", "-", filepath.Join(smallDir, "rows.heapsnapshot"), "-"}, 2, "", "standard input (-) is named twice"},
		{"diff -#1 -#1", mvm, []string{"diff", "--", "-#1", "-#1"}, 2, "", "standard input (-) is named twice"},
		{"report - - OUT", v8, []string{"report", "-", "-", "-"}, 2, "", "standard input (-) is named twice"},
		{"diff -#0 -#2", mvm, []string{"diff", "--top", "1", "--", "-#0", "-#2"}, 0, "NEW    - (snapshot 2)", ""},
	})
}

// TestToNamesParquet: convert's help and its error for an unknown --to
// name parquet with the formats.
func TestToNamesParquet(t *testing.T) {
	_, help, _ := cliRun(t, nil, "convert", "--help")
	if !strings.Contains(help, "[--to F|parquet]") || !regexp.MustCompile(`--to F +output format \(ir, v8, dart, moarvm, fuchsia,\s+fuchsia-fidl\), or parquet`).MatchString(help) {
		t.Errorf("convert --help:\n%s", help)
	}
	code, _, stderr := cliRun(t, nil, "convert", "--to", "nope", filepath.Join(smallDir, "rows.heapsnapshot"), "-")
	if code != 2 || !strings.Contains(stderr, `unknown format "nope" (formats: ir, v8, dart, moarvm, fuchsia, fuchsia-fidl; or parquet`) {
		t.Errorf("--to nope: exit %d, %s", code, stderr)
	}
}
