package irtest_test

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/irstream"
	"github.com/heapconv/heapconv/ir/irtest"
	v8ir "github.com/heapconv/heapconv/ir/v8"
)

var v8All = &irtest.V8Options{Layout: v8ir.LayoutRows, Escape: v8ir.EscapeRaw, TraceNodeID: true, Detachedness: true,
	EdgeExtra: true, Trace: true, Locations: true, ExtraNativeBytes: true, ExtraKeys: true, ShuffleFields: true}

var optionCases = []struct {
	name string
	opts irtest.Options
}{
	{"zero", irtest.Options{}},
	{"v8-shaped", irtest.V8Shaped(1, 300)},
	{"everything", irtest.Everything(0, 300)},
	{"custom-kinds", irtest.Options{Kinds: irtest.KindsCustom, IDs: irtest.IDsAny, Strings: irtest.AllStrings}},
	{"v8-section", func() irtest.Options { o := irtest.V8Shaped(1, 200); o.V8 = v8All; return o }()},
	{"v8-section-custom", irtest.Options{Kinds: irtest.KindsMixed, IDs: irtest.IDsAny, BigSizes: true, V8: v8All}},
}

// TestRandomValid: every generated file validates, and the same seed gives
// the same file.
func TestRandomValid(t *testing.T) {
	for _, tc := range optionCases {
		t.Run(tc.name, func(t *testing.T) {
			for seed := int64(0); seed < 40; seed++ {
				f := irtest.Random(seed, tc.opts)
				if err := f.Validate(); err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				if d := ir.Diff(f, irtest.Random(seed, tc.opts), 5); len(d) > 0 {
					t.Fatalf("seed %d: not deterministic: %v", seed, d)
				}
				for _, s := range f.Snapshots {
					if n := s.Nodes.Len(); n < tc.opts.MinNodes || n > max(tc.opts.MaxNodes, 64) {
						t.Fatalf("seed %d: %d nodes outside [%d, %d]", seed, n, tc.opts.MinNodes, tc.opts.MaxNodes)
					}
				}
			}
		})
	}
}

// TestOptionsHonoured checks that each option shows in the output, over a
// handful of seeds (a feature that is random per node must appear in at
// least one of them).
func TestOptionsHonoured(t *testing.T) {
	const seeds = 30
	files := func(o irtest.Options) []*ir.File {
		var fs []*ir.File
		for s := int64(0); s < seeds; s++ {
			fs = append(fs, irtest.Random(s, o))
		}
		return fs
	}
	anyString := func(fs []*ir.File, pred func(string) bool) bool {
		for _, f := range fs {
			for _, s := range f.Strings {
				if pred(s) {
					return true
				}
			}
		}
		return false
	}
	hasLone := func(s string) bool {
		for i := 0; i+2 < len(s); i++ {
			if s[i] == 0xED && s[i+1] >= 0xA0 && s[i+1] <= 0xBF {
				return true
			}
		}
		return false
	}
	hasAstral := func(s string) bool {
		for _, r := range s {
			if r > 0xFFFF {
				return true
			}
		}
		return false
	}
	hasControl := func(s string) bool {
		return strings.IndexFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0
	}
	hasNonASCII := func(s string) bool {
		for _, r := range s {
			if r >= 0x80 && r <= 0xFFFF && r != utf8.RuneError {
				return true
			}
		}
		return false
	}

	plain := files(irtest.Options{MaxNodes: 100})
	all := files(irtest.Everything(1, 100))
	checks := []struct {
		name string
		ok   bool
	}{
		{"plain strings are printable ASCII", !anyString(plain, func(s string) bool {
			return hasLone(s) || hasAstral(s) || hasControl(s) || hasNonASCII(s)
		})},
		{"lone surrogates", anyString(all, hasLone)},
		{"astral", anyString(all, hasAstral)},
		{"control", anyString(all, hasControl)},
		{"non-ASCII", anyString(all, hasNonASCII)},
		{"no surrogate pairs in WTF-8", !anyString(all, func(s string) bool {
			b := []byte(s)
			for i := 0; i+5 < len(b); i++ {
				if b[i] == 0xED && b[i+1] >= 0xA0 && b[i+1] <= 0xAF && b[i+3] == 0xED && b[i+4] >= 0xB0 {
					return true
				}
			}
			return false
		})},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("%s: not as expected", c.name)
		}
	}

	for i, f := range plain {
		s := f.Snapshots[0]
		if s.Root == 0 {
			t.Errorf("seed %d: root is node 0 without RootFirst", i)
		}
		if len(s.Nodes.Class) != 0 || s.Nodes.ExternalSize.Len() != 0 || s.Values.Len() != 0 || len(s.Roots) != 0 || v8ir.Of(s) != nil {
			t.Errorf("seed %d: optional data without the option", i)
		}
		if len(f.Snapshots) != 1 {
			t.Errorf("seed %d: %d snapshots", i, len(f.Snapshots))
		}
	}
	var classes, external, values, roots, bigID, evenID, dupID, custom, multi int
	for _, f := range all {
		if len(f.Snapshots) > 1 {
			multi++
		}
		for _, s := range f.Snapshots {
			if len(s.Nodes.Class) > 0 {
				classes++
			}
			if s.Nodes.ExternalSize.Len() > 0 {
				external++
			}
			values += s.Values.Len()
			roots += len(s.Roots)
			seen := map[uint64]bool{}
			for i := 0; i < s.Nodes.Len(); i++ {
				id := s.Nodes.ID.At(i)
				if id >= 1<<32 {
					bigID++
				}
				if id%2 == 0 {
					evenID++
				}
				if seen[id] {
					dupID++
				}
				seen[id] = true
			}
			for _, k := range s.NodeKinds {
				if strings.HasPrefix(k, "custom") {
					custom++
				}
			}
		}
	}
	for name, n := range map[string]int{"classes": classes, "external sizes": external, "values": values,
		"GC roots": roots, "64-bit ids": bigID, "even ids": evenID, "duplicate ids": dupID,
		"custom kinds": custom, "several snapshots": multi} {
		if n == 0 {
			t.Errorf("Everything: no %s in %d files", name, seeds)
		}
	}

	for i, f := range files(irtest.V8Shaped(1, 500)) {
		s := f.Snapshots[0]
		if s.Root != 0 {
			t.Errorf("V8Shaped seed %d: root %d", i, s.Root)
		}
		seen := map[uint64]bool{}
		for j := 0; j < s.Nodes.Len(); j++ {
			id := s.Nodes.ID.At(j)
			if id%2 == 0 || id >= 1<<32 || seen[id] {
				t.Fatalf("V8Shaped seed %d: node %d id %d is not a unique odd 32-bit id", i, j, id)
			}
			seen[id] = true
			if s.Nodes.SelfSize.At(j) >= 1<<32 {
				t.Fatalf("V8Shaped seed %d: self size %d", i, s.Nodes.SelfSize.At(j))
			}
		}
	}
}

// TestV8Section checks the attached V8 section against the snapshot: the
// meta lists name the kind tables, extra columns follow meta order, and the
// flattened arrays come in whole rows.
func TestV8Section(t *testing.T) {
	for seed := int64(0); seed < 30; seed++ {
		f := irtest.Random(seed, irtest.Options{MaxNodes: 80, Kinds: irtest.KindsMixed, V8: v8All})
		s := f.Snapshots[0]
		v := v8ir.Of(s)
		if v == nil || s.Root != 0 {
			t.Fatalf("seed %d: no V8 section or root %d", seed, s.Root)
		}
		nt := v.Meta().Get("node_types").Elems[0].Strings()
		if strings.Join(nt, "|") != strings.Join(s.NodeKinds, "|") {
			t.Fatalf("seed %d: node_types[0] %q != kinds %q", seed, nt, s.NodeKinds)
		}
		for i, k := range s.EdgeKinds {
			if k.Indexed != ir.EdgeKindIndexed(k.Name) {
				t.Fatalf("seed %d: edge kind %d %q indexed=%v", seed, i, k.Name, k.Indexed)
			}
		}
		fields := v.MetaList("node_fields")
		last := -1
		for _, c := range v.NodeExtra {
			at := strings.Index(strings.Join(fields, "\x00")+"\x00", c.Name+"\x00")
			if at < last {
				t.Fatalf("seed %d: extra node columns out of meta order: %v", seed, fields)
			}
			last = at
		}
		if n, ok := v.Header.Get("node_count").Uint(); !ok || n != uint64(s.Nodes.Len()) {
			t.Fatalf("seed %d: node_count %d for %d nodes", seed, n, s.Nodes.Len())
		}
		if v.Locations.Len()%4 != 0 || v.Samples.Len()%2 != 0 || v.TraceFunctionInfos.Len()%6 != 0 {
			t.Fatalf("seed %d: arrays not in whole rows", seed)
		}
		if tfc, _ := v.Header.Get("trace_function_count").Uint(); tfc*6 != uint64(v.TraceFunctionInfos.Len()) {
			t.Fatalf("seed %d: trace_function_count %d for %d values", seed, tfc, v.TraceFunctionInfos.Len())
		}
		if len(v.Keys) == 0 || v.Keys[0].Name != v8ir.KeySnapshot || v.Keys[len(v.Keys)-1].Name != v8ir.KeyStrings {
			t.Fatalf("seed %d: key order %v", seed, v.Keys)
		}
		// The trace tree's pre-order flattening must be consumed exactly.
		pos := 0
		var walk func() bool
		walk = func() bool {
			if pos >= v.TraceTree.Len() {
				return false
			}
			k := int(v.TraceTree.At(pos))
			pos++
			for i := 0; i < k; i++ {
				pos += 4
				if !walk() {
					return false
				}
			}
			return true
		}
		if v.TraceTree.Len() > 0 && (!walk() || pos != v.TraceTree.Len()) {
			t.Fatalf("seed %d: malformed trace tree", seed)
		}
	}
}

// TestEncodable: every option set survives the IR encoding (a quick check
// that generated files are not only valid but complete).
func TestEncodable(t *testing.T) {
	for _, tc := range optionCases {
		f := irtest.Random(7, tc.opts)
		var b bytes.Buffer
		if err := irstream.Encode(&b, f); err != nil {
			t.Fatalf("%s: encode: %v", tc.name, err)
		}
		g, err := irstream.Decode(&b)
		if err != nil {
			t.Fatalf("%s: decode: %v", tc.name, err)
		}
		if d := ir.Diff(f, g, 5); len(d) > 0 {
			t.Fatalf("%s: %v", tc.name, d)
		}
	}
}
