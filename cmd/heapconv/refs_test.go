package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/heapconv/heapconv"
	"github.com/heapconv/heapconv/ir/analysis"
)

// dartNoHash is a Dart heap without identity hash codes: every object's
// id is 0.
var dartNoHash = filepath.Join(td, "dart", "flutter-nohash-3k.dartheap.zst")

// TestRefsFindTheirObjects: in a heap of every format, the reference
// paths, diff and report print for an object names that object alone, and
// only Fuchsia's are in hex.
func TestRefsFindTheirObjects(t *testing.T) {
	heaps := append(slices.Clone(oneHeapOfEachFormat), struct {
		format string
		heap   string
		flags  []string
	}{"dart without identity hash codes", dartNoHash, nil})
	for _, tc := range heaps {
		t.Run(tc.format, func(t *testing.T) {
			opts := &heapconv.ReadOptions{}
			if len(tc.flags) > 0 {
				opts.ContentsDir, opts.ScanPointers = tc.flags[1], true
			}
			h, err := heapconv.ReadHeap(tc.heap, opts)
			if err != nil {
				t.Fatal(err)
			}
			nv, err := analysis.NewNavigator(h)
			if err != nil {
				t.Fatal(err)
			}
			n := h.Snapshot.Nodes.Len()
			form := regexp.MustCompile(`^(@[0-9]+|#[0-9]+)$`)
			if strings.HasPrefix(tc.format, "fuchsia") {
				form = regexp.MustCompile(`^(@0x[0-9a-f]+|#[0-9]+)$`)
			}
			byIndex := 0
			for i := 0; i < n; i += max(1, n/2000) {
				ref := nv.Ref(i)
				got, err := nv.NodesByRef(ref)
				if err != nil || !slices.Equal(got, []int{i}) {
					t.Fatalf("node %d is %q, which names %v (%v)", i, ref, got, err)
				}
				if !form.MatchString(ref) {
					t.Fatalf("node %d is %q", i, ref)
				}
				if ref[0] == '#' {
					byIndex++
				}
			}
			if strings.HasPrefix(tc.format, "dart without") && byIndex == 0 {
				t.Errorf("no object of a heap without ids is named by its index")
			}
		})
	}
}

// TestPathsByRef: paths on a Dart heap without identity hash codes names
// every object by a reference --id takes (not "@0", which is every
// object), and --id finds the object again by it; what --id does not take
// is a usage error that says what it takes.
func TestPathsByRef(t *testing.T) {
	code, stdout, stderr := cliRun(t, nil, "paths", "--json", "--class", "_List", "--max", "2", dartNoHash)
	if code != 0 {
		t.Fatalf("paths: exit %d: %s", code, stderr)
	}
	var p pathsJSON
	if err := json.Unmarshal([]byte(stdout), &p); err != nil || len(p.Objects) != 2 {
		t.Fatalf("paths --json: %v\n%.500s", err, stdout)
	}
	steps := append(append([]analysis.PathStep{p.Objects[0].Object}, p.Objects[0].Path...), p.Objects[1].Dominators...)
	for _, st := range steps[:min(len(steps), 6)] {
		code, stdout, stderr := cliRun(t, nil, "paths", "--json", "--id", st.Ref, dartNoHash)
		var q pathsJSON
		if code != 0 || json.Unmarshal([]byte(stdout), &q) != nil || len(q.Objects) != 1 || q.Objects[0].Object.Node != st.Node {
			t.Errorf("--id %s (node %d): exit %d, %d objects: %s", st.Ref, st.Node, code, len(q.Objects), stderr)
		}
	}
	_, text, _ := cliRun(t, nil, "paths", "--class", "_List", "--max", "2", dartNoHash)
	if strings.Contains(text, "@0 ") || !regexp.MustCompile(`_List #\d+  self`).MatchString(text) {
		t.Errorf("paths names objects by an id that is not theirs:\n%s", text)
	}
	runCases(t, []cliCase{
		{"an id that is no number", nil, []string{"paths", "--id", "abc", dartNoHash}, 2, "", `--id takes an object as paths, diff and report show it`},
		{"an index beyond the snapshot", nil, []string{"paths", "--id", "#7525", dartNoHash}, 1, "", "no object #7525: the snapshot's objects are #0 to #7524"},
		{"an index", nil, []string{"paths", "--id", "#7524", dartNoHash}, 0, " #7524  self", ""},
		{"an id with its @", nil, []string{"paths", "--id", "@3", filepath.Join(smallDir, "rows.heapsnapshot")}, 0, " @3  self", ""},
		{"an id in hex", nil, []string{"paths", "--id", "0x3", filepath.Join(smallDir, "rows.heapsnapshot")}, 0, " @3  self", ""},
	})
	if _, _, stderr := cliRun(t, nil, "paths", "--id", "abc", dartNoHash); strings.Contains(stderr, "strconv") || !strings.Contains(stderr, "#1234") {
		t.Errorf("--id abc: %s", stderr)
	}
}

// TestFuchsiaAddressesInHex: a Fuchsia block's address, its id, is shown
// in hex wherever heapconv shows it: paths, and the loss report's example
// of ids V8 cannot keep.
func TestFuchsiaAddressesInHex(t *testing.T) {
	pb := filepath.Join(td, "fuchsia", "gen-current-tags.pb")
	code, stdout, stderr := cliRun(t, nil, "paths", "--class", "audio_core+0x66424", "--max", "1", pb)
	if code != 0 || !regexp.MustCompile(`^audio_core\+0x66424 @0x[0-9a-f]+  self`).MatchString(stdout) {
		t.Errorf("paths: exit %d, %s\n%s", code, stderr, stdout)
	}
	ref := strings.Fields(stdout)[1]
	if code, stdout, stderr := cliRun(t, nil, "paths", "--id", ref, pb); code != 0 || !strings.HasPrefix(stdout, "audio_core+0x66424 "+ref+" ") {
		t.Errorf("paths --id %s: exit %d, %s\n%s", ref, code, stderr, stdout)
	}
	_, _, stderr = cliRun(t, nil, "convert", pb, filepath.Join(t.TempDir(), "x.heapsnapshot"))
	if !regexp.MustCompile(`nodes are renumbered .*\(e\.g\. node 0: id 0x[0-9a-f]+\)`).MatchString(stderr) {
		t.Errorf("the loss report's example is not in hex:\n%s", stderr)
	}
}

// TestPathsOfAnUnreachableObject: paths says that an object no path from
// the roots reaches is unreachable, and where the dominator tree puts it.
func TestPathsOfAnUnreachableObject(t *testing.T) {
	h, err := heapconv.ReadHeap(dartNoHash, nil)
	if err != nil {
		t.Fatal(err)
	}
	nv, err := analysis.NewNavigator(h)
	if err != nil {
		t.Fatal(err)
	}
	i := -1
	for k := range h.Snapshot.Nodes.Len() {
		if nv.Distance(k) == analysis.NoDistance && len(nv.DominatorChain(k)) > 2 {
			i = k
			break
		}
	}
	if i < 0 {
		t.Fatal("the heap has no unreachable object held by another")
	}
	code, stdout, stderr := cliRun(t, nil, "paths", "--id", nv.Ref(i), dartNoHash)
	if code != 0 || strings.Contains(stdout, "nothing reachable from the roots holds it") ||
		!strings.Contains(stdout, "unreachable: no path of references leads to it from the roots") ||
		!strings.Contains(stdout, "dominators, from the root, which adopts what is unreachable") {
		t.Errorf("exit %d, %s\n%s", code, stderr, stdout)
	}
}
