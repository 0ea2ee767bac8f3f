package heapconv

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestLayering holds the package structure to its rules: the IR core
// names no other package of the module (a new format adds nothing to it),
// and a format's packages (ir/<format>, readers/<format>, writers/<format>)
// never import another format's. ir/devtools is not a format's package: it
// is the layer that shapes every format's heap for Chrome DevTools, for
// writers/v8 and `heapconv info --as v8`, so it knows them all, as the root
// package does.
func TestLayering(t *testing.T) {
	const module = "github.com/heapconv/heapconv"
	formats := []string{"v8", "dart", "moarvm", "fuchsia"}
	// formatOf returns the format a package of the module belongs to.
	formatOf := func(pkg string) string {
		parts := strings.Split(pkg, "/")
		if len(parts) == 2 && (parts[0] == "ir" || parts[0] == "readers" || parts[0] == "writers") {
			for _, f := range formats {
				if parts[1] == f {
					return f
				}
			}
		}
		return ""
	}
	checked := 0
	err := filepath.WalkDir(".", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); p != "." && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		pkg := filepath.ToSlash(filepath.Dir(p))
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			ip, _ := strconv.Unquote(imp.Path.Value)
			if ip == module && formatOf(pkg) != "" {
				t.Errorf("%s: a format's package imports the root package, which imports every format", p)
			}
			dep, ok := strings.CutPrefix(ip, module+"/")
			if !ok {
				continue
			}
			checked++
			if pkg == "ir" {
				t.Errorf("%s: the IR core imports %s; it names no other package of the module", p, dep)
			}
			if own, other := formatOf(pkg), formatOf(dep); own != "" && other != "" && own != other {
				t.Errorf("%s: %s's package imports %s, another format's", p, own, dep)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Fatal("no imports of the module's packages found: the walk checked nothing")
	}
}
