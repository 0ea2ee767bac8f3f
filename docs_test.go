package heapconv_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestDocsPathsExist: every path the README and the docs name exists in
// the repository (a repository path in backquotes, or a link), and every
// file name they name in backquotes is some file's; so the layout table
// cannot drift from the tree.
func TestDocsPathsExist(t *testing.T) {
	files, err := exec.Command("git", "ls-files").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err) // a source archive has no index to compare with
	}
	base := map[string]bool{}
	for _, f := range strings.Fields(string(files)) {
		base[filepath.Base(f)] = true
	}
	docs, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	formatDocs, _ := filepath.Glob("docs/formats/*.md")
	docs = append(append([]string{"README.md"}, docs...), formatDocs...)
	quoted := regexp.MustCompile("`([^`\\s]+)`")
	link := regexp.MustCompile(`\]\(([^)#\s]+)\)`)
	repoPath := regexp.MustCompile(`^(\.ci|cmd|conformance|docs|internal|ir|readers|scripts|testdata|writers)(/[\w./*-]*)?$`)
	fileName := regexp.MustCompile(`^[\w-]+\.(go|md|txt|js|sh)$`)
	// The directories .gitignore names from the root are what the tests
	// install on their first run (the Dart VMs, the pinned Nodes).
	ignore, err := os.ReadFile(".gitignore")
	if err != nil {
		t.Fatal(err)
	}
	var installed []string
	for _, l := range strings.Split(string(ignore), "\n") {
		if l, ok := strings.CutPrefix(strings.TrimSpace(l), "/"); ok && strings.HasSuffix(l, "/") {
			installed = append(installed, strings.TrimSuffix(l, "/"))
		}
	}
	for _, doc := range docs {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range quoted.FindAllStringSubmatch(string(data), -1) {
			p := m[1]
			switch {
			case strings.Contains(p, "node_modules") || slices.ContainsFunc(installed, func(dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }):
				// Installed by the tests on their first run, not tracked.
			case repoPath.MatchString(p):
				// A Go name in a package (writers/dart.Convert) names the
				// package's directory.
				if dir, sym, ok := strings.Cut(filepath.Base(p), "."); ok && sym != "" && sym[0] >= 'A' && sym[0] <= 'Z' {
					p = filepath.Join(filepath.Dir(p), dir)
				}
				matches, _ := filepath.Glob(strings.TrimSuffix(p, "/"))
				if len(matches) == 0 {
					t.Errorf("%s names %s, which does not exist", doc, p)
				}
			case fileName.MatchString(p) && !base[p]:
				t.Errorf("%s names the file %s, which the repository does not have", doc, p)
			}
		}
		for _, m := range link.FindAllStringSubmatch(string(data), -1) {
			if strings.Contains(m[1], "://") {
				continue
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(doc), m[1])); err != nil {
				t.Errorf("%s links to %s: %v", doc, m[1], err)
			}
		}
	}
}

// TestNothingOutsideTheRepository: no file refers to the research notes,
// samples or seeds the project was started from, which are not part of
// it: the repository stands on its own.
func TestNothingOutsideTheRepository(t *testing.T) {
	files, err := exec.Command("git", "ls-files").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	outside := regexp.MustCompile(`\.\./shared\b|\bshared/(formats|samples|seeds|style)\b`)
	for _, f := range strings.Fields(string(files)) {
		if f == "docs_test.go" {
			continue // the pattern itself
		}
		data, err := os.ReadFile(f)
		if err != nil || strings.IndexByte(string(data[:min(len(data), 8000)]), 0) >= 0 {
			continue // a binary file
		}
		if loc := outside.FindIndex(data); loc != nil {
			line := 1 + strings.Count(string(data[:loc[0]]), "\n")
			t.Errorf("%s:%d refers outside the repository: %q", f, line, data[loc[0]:loc[1]])
		}
	}
}
