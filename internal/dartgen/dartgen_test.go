package dartgen

import (
	"bytes"
	"math"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	dartir "github.com/heapconv/heapconv/ir/dart"
)

// gen caches generated files: several tests look at the same ones.
var (
	genMu    sync.Mutex
	genCache = map[Options]genResult{}
)

type genResult struct {
	heap *Heap
	data []byte
	sum  *Summary
}

func generate(t testing.TB, opts Options) genResult {
	t.Helper()
	genMu.Lock()
	defer genMu.Unlock()
	if r, ok := genCache[opts]; ok {
		return r
	}
	h, err := Build(opts)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := h.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	r := genResult{heap: h, data: buf.Bytes(), sum: h.Summary()}
	genCache[opts] = r
	return r
}

func hashMode(g Generation) int {
	if g == GenVMNoHash {
		return 0
	}
	return 1
}

var generations = []Generation{GenVM, GenVMNoHash, GenDevToolsExport}

func TestDeterministic(t *testing.T) {
	for _, tc := range []struct {
		gen        Generation
		objects    int
		seedA      int64
		seedB      int64
		isolates   int
		wantSameAB bool
	}{
		{GenVM, 20_000, 1, 1, 1, true},
		{GenVM, 20_000, 1, 2, 1, false},
		{GenVMNoHash, 20_000, 7, 8, 2, false},
		{GenDevToolsExport, 20_000, 3, 3, 1, true},
		{GenDevToolsExport, 20_000, 3, -3, 1, false},
	} {
		t.Run(tc.gen.String(), func(t *testing.T) {
			var out [3][]byte
			for i, seed := range []int64{tc.seedA, tc.seedA, tc.seedB} {
				var buf bytes.Buffer
				if _, err := Generate(&buf, Options{Seed: seed, Objects: tc.objects, Generation: tc.gen, Isolates: tc.isolates}); err != nil {
					t.Fatal(err)
				}
				out[i] = buf.Bytes()
			}
			if !bytes.Equal(out[0], out[1]) {
				t.Fatalf("seed %d: two runs differ", tc.seedA)
			}
			if same := bytes.Equal(out[0], out[2]); same != tc.wantSameAB {
				t.Fatalf("seeds %d and %d: identical=%v, want %v", tc.seedA, tc.seedB, same, tc.wantSameAB)
			}
		})
	}
}

// TestWalk parses every generated file with the test's own walker and
// checks the header counts, the reference bounds and sums, the summary and
// the end of the file.
func TestWalk(t *testing.T) {
	for _, gen := range generations {
		for _, tc := range []struct{ objects, isolates int }{{3_000, 1}, {60_000, 3}} {
			opts := Options{Seed: 42, Objects: tc.objects, Generation: gen, Isolates: tc.isolates}
			t.Run(gen.String()+"/"+strconv.Itoa(tc.objects), func(t *testing.T) {
				r := generate(t, opts)
				w, err := walk(r.data, hashMode(gen), gen == GenDevToolsExport)
				if err != nil {
					t.Fatal(err)
				}
				s := r.sum
				if w.flags != 0 || w.name != "main" {
					t.Errorf("flags %d name %q", w.flags, w.name)
				}
				if w.shallow != s.ShallowSize || w.capacity != s.Capacity || w.external != s.ExternalSize {
					t.Errorf("header sizes %d/%d/%d, summary %d/%d/%d", w.shallow, w.capacity, w.external, s.ShallowSize, s.Capacity, s.ExternalSize)
				}
				if w.capacity < w.shallow {
					t.Errorf("capacity %d < shallow size %d", w.capacity, w.shallow)
				}
				if len(w.classes) != s.ClassCount || len(w.objects) != s.ObjectCount {
					t.Errorf("classes %d objects %d, summary %d %d", len(w.classes), len(w.objects), s.ClassCount, s.ObjectCount)
				}
				var sum, zeros uint64
				n := uint64(len(w.objects))
				for i, o := range w.objects {
					sum += uint64(len(o.refs))
					if o.class < 1 || o.class > uint64(len(w.classes)) {
						t.Fatalf("object %d: class id %d out of range", i+1, o.class)
					}
					for _, ref := range o.refs {
						if ref > n {
							t.Fatalf("object %d: reference %d > object count %d", i+1, ref, n)
						}
						if ref == 0 {
							zeros++
						}
					}
				}
				if w.refCount != sum || int(sum) != s.ReferenceCount {
					t.Errorf("header referenceCount %d, sum of references %d, summary %d", w.refCount, sum, s.ReferenceCount)
				}
				if int(zeros) != s.ZeroReferences || zeros == 0 {
					t.Errorf("zero references %d, summary %d", zeros, s.ZeroReferences)
				}
				if len(w.ext) != s.ExternalPropertyCount {
					t.Errorf("external properties %d, summary %d", len(w.ext), s.ExternalPropertyCount)
				}
				var extSum uint64
				for _, e := range w.ext {
					extSum += e.size
					if e.object < 1 || e.object > n {
						t.Errorf("external property on object %d", e.object)
					}
				}
				if extSum != s.ExternalPropertySize {
					t.Errorf("external sizes %d, summary %d", extSum, s.ExternalPropertySize)
				}
				if gen != GenDevToolsExport && (w.external != (extSum+7)&^7 || len(w.ext) == 0) {
					t.Errorf("header externalSize %d, properties sum %d (%d properties)", w.external, extSum, len(w.ext))
				}
				if int64(len(r.data)) != s.FileSize || int64(len(r.data)-w.end) != s.PaddingBytes {
					t.Errorf("file %d bytes (walk ended at %d), summary %d + %d padding", len(r.data), w.end, s.FileSize, s.PaddingBytes)
				}
				var tags [9]int
				perClass := make([]int, len(w.classes))
				var shallowSum uint64
				for _, o := range w.objects {
					if o.tag < 9 {
						tags[o.tag]++
					}
					perClass[o.class-1]++
					shallowSum += o.size
				}
				if tags != s.DataTags {
					t.Errorf("data tags %v, summary %v", tags, s.DataTags)
				}
				if shallowSum != s.ShallowSizeSum {
					t.Errorf("shallow sum %d, summary %d", shallowSum, s.ShallowSizeSum)
				}
				for i, c := range s.Classes {
					if perClass[i] != c.Instances || w.classes[i].name != c.Name || w.classes[i].libURI != c.LibraryURI {
						t.Errorf("class %d %s: %d instances, summary %+v", i+1, w.classes[i].name, perClass[i], c)
					}
				}
				if hasHashes := w.hashes != nil; hasHashes != s.IdentityHashes {
					t.Errorf("hash section present %v, summary %v", hasHashes, s.IdentityHashes)
				}
				nonZero := 0
				for _, h := range w.hashes {
					if h != 0 {
						nonZero++
					}
				}
				if nonZero != s.NonZeroHashes {
					t.Errorf("non-zero hashes %d, summary %d", nonZero, s.NonZeroHashes)
				}
				if s.Isolates != tc.isolates || s.FirstVMObject != 3+tc.isolates {
					t.Errorf("isolates %d first VM object %d", s.Isolates, s.FirstVMObject)
				}
				if s.Reachable >= s.ObjectCount || s.Reachable < s.ObjectCount*9/10 {
					t.Errorf("reachable %d of %d objects: want some (not many) unreachable", s.Reachable, s.ObjectCount)
				}
			})
		}
	}
}

// TestObjectsMatchFile checks Heap.Object, Heap.Classes and
// Heap.ExternalProperties against what the walker reads.
func TestObjectsMatchFile(t *testing.T) {
	for _, gen := range generations {
		t.Run(gen.String(), func(t *testing.T) {
			r := generate(t, Options{Seed: 42, Objects: 60_000, Generation: gen, Isolates: 3})
			w, err := walk(r.data, hashMode(gen), gen == GenDevToolsExport)
			if err != nil {
				t.Fatal(err)
			}
			classes := r.heap.Classes()
			smiClass := 0
			for i, c := range classes {
				wc := w.classes[i]
				if c.Name == "_Smi" {
					smiClass = c.ID
				}
				if wc.name != c.Name || wc.libName != c.LibraryName || wc.libURI != c.LibraryURI || wc.flags != 0 || wc.reserved != "" || len(wc.fields) != len(c.Fields) {
					t.Fatalf("class %d: file %+v, heap %+v", i+1, wc, c)
				}
				for j, f := range c.Fields {
					wf := wc.fields[j]
					if wf.name != f.Name || wf.flags != uint64(f.Flags) || wf.index != uint64(j) || wf.reserved != "" {
						t.Fatalf("class %s field %d: file %+v, heap %+v", c.Name, j, wf, f)
					}
				}
			}
			for id := 1; id <= r.heap.NumObjects(); id++ {
				o, wo := r.heap.Object(id), w.objects[id-1]
				d, err := decodeData(wo, int(wo.class) == smiClass)
				if err != nil {
					t.Fatalf("object %d: %v", id, err)
				}
				wantD := o.Data
				if math.IsNaN(wantD.Float) && math.IsNaN(d.Float) {
					wantD.Float, d.Float = 0, 0
				}
				if len(wantD.Latin1) == 0 {
					wantD.Latin1 = nil
				}
				if len(d.Latin1) == 0 {
					d.Latin1 = nil
				}
				if uint64(o.ClassID) != wo.class || o.ShallowSize != wo.size || !reflect.DeepEqual(wantD, d) {
					t.Fatalf("object %d: heap %+v, file class %d size %d data %+v", id, o, wo.class, wo.size, d)
				}
				if len(o.References) != len(wo.refs) {
					t.Fatalf("object %d: %d references, file %d", id, len(o.References), len(wo.refs))
				}
				for j := range wo.refs {
					if uint64(o.References[j]) != wo.refs[j] {
						t.Fatalf("object %d reference %d: heap %d, file %d", id, j, o.References[j], wo.refs[j])
					}
				}
				if w.hashes != nil && o.IdentityHash != w.hashes[id-1] {
					t.Fatalf("object %d: hash %d, file %d", id, o.IdentityHash, w.hashes[id-1])
				}
			}
			ext := r.heap.ExternalProperties()
			if len(ext) != len(w.ext) {
				t.Fatalf("%d external properties, file %d", len(ext), len(w.ext))
			}
			for i, e := range ext {
				if uint64(e.Object) != w.ext[i].object || e.Size != w.ext[i].size || e.Name != w.ext[i].name {
					t.Fatalf("external property %d: heap %+v, file %+v", i, e, w.ext[i])
				}
			}
		})
	}
}

func TestExportPadding(t *testing.T) {
	for _, objects := range []int{1_000, 80_000} {
		r := generate(t, Options{Seed: 5, Objects: objects, Generation: GenDevToolsExport})
		if len(r.data)%DevToolsChunkSize != 0 {
			t.Errorf("%d objects: export is %d bytes, not a multiple of %d", objects, len(r.data), DevToolsChunkSize)
		}
		w, err := walk(r.data, 1, true)
		if err != nil {
			t.Fatal(err)
		}
		if w.end >= len(r.data) || r.sum.PaddingBytes == 0 || int64(len(r.data)-w.end) != r.sum.PaddingBytes {
			t.Errorf("%d objects: payload ends at %d of %d, padding %d", objects, w.end, len(r.data), r.sum.PaddingBytes)
		}
		if bytes.ContainsFunc(r.data[w.end:], func(c rune) bool { return c != 0 }) {
			t.Errorf("%d objects: padding is not all zero", objects)
		}
		if len(w.ext) != 0 {
			t.Errorf("export has %d external properties", len(w.ext))
		}
		for i, o := range w.objects {
			if o.tag != 0 {
				t.Fatalf("export object %d has data tag %d", i+1, o.tag)
			}
		}
		for _, c := range w.classes {
			for _, f := range c.fields {
				if f.flags != 0 {
					t.Fatalf("export field %s.%s has flags %d", c.name, f.name, f.flags)
				}
			}
		}
		// Apart from data, external properties and field flags, the export
		// has the VM file's structure: same classes, objects and hashes.
		vm := generate(t, Options{Seed: 5, Objects: objects, Generation: GenVM})
		wv, err := walk(vm.data, 1, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(wv.objects) != len(w.objects) || !reflect.DeepEqual(wv.hashes, w.hashes) || wv.refCount != w.refCount || wv.external != w.external {
			t.Errorf("%d objects: export and VM file differ in structure", objects)
		}
	}
}

// TestNoHashEndsAfterExternalProperties: the no-hash file ends right after
// the external properties and is a prefix of the VM file, whose remainder is
// exactly one uleb per object.
func TestNoHashEndsAfterExternalProperties(t *testing.T) {
	opts := Options{Seed: 9, Objects: 30_000, Generation: GenVMNoHash}
	nh := generate(t, opts)
	w, err := walk(nh.data, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	if w.end != len(nh.data) || w.hashes != nil {
		t.Fatalf("walk ended at %d of %d", w.end, len(nh.data))
	}
	if w2, err := walk(nh.data, -1, false); err != nil || w2.hashes != nil {
		t.Fatalf("auto-detect found a hash section (%v)", err)
	}
	opts.Generation = GenVM
	vm := generate(t, opts)
	if !bytes.HasPrefix(vm.data, nh.data) {
		t.Fatal("the no-hash file is not a prefix of the VM file")
	}
	r := &reader{b: vm.data[len(nh.data):]}
	for range w.objects {
		r.uleb()
	}
	if r.err != nil || r.off != len(r.b) {
		t.Fatalf("VM file has %d bytes after external properties, %d objects read %d (%v)", len(r.b), len(w.objects), r.off, r.err)
	}
}

// TestSmiObjects: Smis are trailing _Smi objects with size 0, IntData as
// uleb of the 64-bit pattern (10 bytes ending 0x01 when negative), one per
// distinct value, numbered in order of first reference.
func TestSmiObjects(t *testing.T) {
	r := generate(t, Options{Seed: 42, Objects: 60_000, Generation: GenVM, Isolates: 3})
	w, err := walk(r.data, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	s := r.sum
	smiClass := uint64(0)
	for i, c := range w.classes {
		if c.name == "_Smi" && c.libURI == "dart:core" {
			smiClass = uint64(i + 1)
		}
	}
	seen := map[int64]bool{}
	var negative, oneByteHigh, big int
	for i, v := range s.SmiValues {
		id := s.FirstSmiObject + i
		o := w.objects[id-1]
		if o.class != smiClass || o.size != 0 || o.tag != 3 || len(o.refs) != 0 || w.hashes[id-1] != 0 {
			t.Fatalf("Smi object %d: %+v hash %d", id, o, w.hashes[id-1])
		}
		got := int64(decodeUleb(o.payload))
		if got != v || seen[v] {
			t.Fatalf("Smi object %d: value %d (summary %d, duplicate %v)", id, got, v, seen[v])
		}
		seen[v] = true
		switch {
		case v < 0:
			negative++
			if len(o.payload) != 10 || o.payload[9] != 0x01 {
				t.Fatalf("negative Smi %d encoded as % x", v, o.payload)
			}
		case v >= 64 && v < 128:
			oneByteHigh++
			if len(o.payload) != 1 || o.payload[0] != byte(v) {
				t.Fatalf("Smi %d encoded as % x", v, o.payload)
			}
		case v > 1<<61:
			big++
		}
	}
	if negative == 0 || oneByteHigh == 0 || big == 0 {
		t.Errorf("Smi values: %d negative, %d in 64..127, %d above 2^61; want some of each", negative, oneByteHigh, big)
	}
	for _, v := range []int64{-1, -2, 64, 127, smiMax, smiMin} {
		if !seen[v] {
			t.Errorf("no Smi %d", v)
		}
	}
	// Ids follow the order of first reference, and no object before the
	// Smis has class _Smi.
	next := uint64(s.FirstSmiObject)
	for i, o := range w.objects[:s.FirstSmiObject-1] {
		if o.class == smiClass {
			t.Fatalf("object %d has class _Smi before the Smi block", i+1)
		}
		for _, ref := range o.refs {
			if ref >= uint64(s.FirstSmiObject) {
				if ref > next {
					t.Fatalf("object %d references Smi %d before Smi %d", i+1, ref, next)
				}
				if ref == next {
					next++
				}
			}
		}
	}
	if next != uint64(len(w.objects))+1 {
		t.Errorf("Smi objects %d..%d, only up to %d referenced", s.FirstSmiObject, len(w.objects), next-1)
	}
}

// TestMintEncoding: Mints are SLEB, outside the Smi range, both signs, and
// (being beyond ±2^62) always need the sign byte.
func TestMintEncoding(t *testing.T) {
	r := generate(t, Options{Seed: 42, Objects: 60_000, Generation: GenVM, Isolates: 3})
	w, err := walk(r.data, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.sum.MintIDs) < 8 {
		t.Fatalf("%d Mints", len(r.sum.MintIDs))
	}
	var pos, neg int
	for i, id := range r.sum.MintIDs {
		o := w.objects[id-1]
		v := r.sum.MintValues[i]
		if got := dartir.DecodeSLEB(o.payload); o.tag != 3 || got != v || o.size != 16 || w.hashes[id-1] != 0 {
			t.Fatalf("Mint object %d: tag %d value %d (want %d) size %d", id, o.tag, got, v, o.size)
		}
		if v >= smiMin && v <= smiMax {
			t.Fatalf("Mint %d fits a Smi", v)
		}
		last := o.payload[len(o.payload)-1]
		if v > 0 {
			pos++
			if last != 0x00 {
				t.Errorf("positive Mint %d: last byte %#x, want sign byte 0x00", v, last)
			}
		} else {
			neg++
			if last != 0x7f && len(o.payload) != 10 {
				t.Errorf("negative Mint %d encoded as % x", v, o.payload)
			}
		}
	}
	if pos == 0 || neg == 0 {
		t.Errorf("%d positive, %d negative Mints", pos, neg)
	}
}

// TestSampleEncodings cross-checks the encodings with the hand-built
// sample testdata/dart/synthetic_vm_layout.dartheap: its Mint and negative
// Smi payloads are the bytes this package writes for the same values.
func TestSampleEncodings(t *testing.T) {
	data, err := os.ReadFile("../../testdata/dart/synthetic_vm_layout.dartheap")
	if err != nil {
		t.Fatal(err)
	}
	w, err := walk(data, -1, false)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"_Mint": -4611686018427387909, "_Smi": -2}
	found := 0
	for _, o := range w.objects {
		name := w.classes[o.class-1].name
		v, ok := want[name]
		if !ok || o.tag != 3 {
			continue
		}
		var enc []byte
		if name == "_Smi" {
			enc = dartir.AppendULEB([]byte{3}, uint64(v))
			if int64(decodeUleb(o.payload)) != v {
				continue // the other Smi
			}
		} else {
			enc = dartir.AppendSLEB([]byte{3}, v)
		}
		if !bytes.Equal(enc[1:], o.payload) {
			t.Errorf("%s %d: sample % x, we write % x", name, v, o.payload, enc[1:])
		}
		found++
	}
	if found != 2 {
		t.Errorf("found %d of the 2 sample integers", found)
	}
}

// TestLayoutRules checks the structural rules of dart.md on a generated heap.
func TestLayoutRules(t *testing.T) {
	r := generate(t, Options{Seed: 42, Objects: 60_000, Generation: GenVM, Isolates: 3})
	w, err := walk(r.data, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	h, s := r.heap, r.sum
	classes := h.Classes()
	byName := map[string][]Class{}
	for _, c := range classes {
		byName[c.Name] = append(byName[c.Name], c)
	}
	for i, want := range []string{"Root", "Read-Only Pages", "Isolate"} {
		if c := w.classes[i]; c.name != want || c.libURI != "" || c.libName != "" {
			t.Errorf("class %d is %q (%q)", i+1, c.name, c.libURI)
		}
	}
	// Class 3's fields are the static field table.
	iso := w.classes[2]
	if len(iso.fields) != s.StaticFields || len(iso.fields) < 10 {
		t.Errorf("Isolate class has %d fields, summary %d", len(iso.fields), s.StaticFields)
	}
	// Heap class ids are VM cid + 3; library name dotted, URI with a colon.
	for name, lib := range map[string]string{"_List": "dart.core", "_GrowableList": "dart.core", "_Map": "dart.collection", "_Uint8List": "dart.typed_data", "FinalizerEntry": "dart._internal"} {
		cs := byName[name]
		if len(cs) != 1 || cs[0].VMCid+3 != cs[0].ID || cs[0].LibraryName != lib || cs[0].LibraryURI != strings.Replace(lib, ".", ":", 1) {
			t.Errorf("class %s: %+v", name, cs)
		}
	}
	for _, name := range []string{"Node", "TextStyle", "Function"} {
		if cs := byName[name]; len(cs) != 2 || cs[0].LibraryURI == cs[1].LibraryURI {
			t.Errorf("want two classes named %s from different libraries, got %+v", name, cs)
		}
	}
	// Objects 1, 2, 3..: Root, Read-Only Pages, Isolates (NameData = port).
	root, ro := h.Object(1), h.Object(2)
	if root.ClassID != 1 || ro.ClassID != 2 || root.ShallowSize != 0 || ro.ShallowSize != 0 {
		t.Errorf("root %+v / read-only %+v", root.ClassID, ro.ClassID)
	}
	rr := root.References
	if len(rr) < 4 || rr[len(rr)-4] != 2 || rr[len(rr)-3] != 3 || rr[len(rr)-1] != uint32(2+s.Isolates) {
		t.Errorf("root references end with %v", rr[max(0, len(rr)-5):])
	}
	if len(ro.References) != s.ImageObjects || s.ImageObjects == 0 {
		t.Errorf("read-only pages reference %d objects, %d on image pages", len(ro.References), s.ImageObjects)
	}
	for i, ref := range ro.References {
		if int(ref) != s.FirstImageObject+i {
			t.Fatalf("read-only reference %d is %d", i, ref)
		}
	}
	for id := 3; id < 3+s.Isolates; id++ {
		o := h.Object(id)
		if _, err := strconv.ParseUint(o.Data.Name, 10, 64); o.ClassID != 3 || o.Data.Tag != NameData || err != nil || len(o.References) < s.StaticFields {
			t.Errorf("isolate %d: %+v", id, o)
		}
	}
	// VM-isolate objects have size 0; image objects reference only image,
	// VM and Smi objects.
	excluded := map[string]bool{}
	for n := range hashExcluded {
		excluded[n] = true
	}
	var twoExt, unboxedChecked, weak int
	extCount := map[int]int{}
	for _, e := range h.ExternalProperties() {
		extCount[e.Object]++
	}
	for _, n := range extCount {
		if n >= 2 {
			twoExt++
		}
	}
	for id := 1; id <= h.NumObjects(); id++ {
		o := h.Object(id)
		c := classes[o.ClassID-1]
		vm := id >= s.FirstVMObject && id < s.FirstHeapObject
		if (vm || id < 3+s.Isolates || id >= s.FirstSmiObject) != (o.ShallowSize == 0) {
			t.Fatalf("object %d (%s) has size %d", id, c.Name, o.ShallowSize)
		}
		if o.ShallowSize%16 != 0 {
			t.Fatalf("object %d (%s) has size %d, not a multiple of 16", id, c.Name, o.ShallowSize)
		}
		if id >= s.FirstImageObject && id < s.FirstSmiObject {
			for _, ref := range o.References {
				if ref != 0 && int(ref) >= s.FirstHeapObject && int(ref) < s.FirstImageObject {
					t.Fatalf("image object %d (%s) references heap object %d", id, c.Name, ref)
				}
			}
		}
		// Identity hashes: 0 for synthetic objects, Smis and excluded
		// classes; otherwise non-zero and Smi-valid.
		wantZero := id < 3+s.Isolates || excluded[c.Name] && c.VMCid > 0 && c.VMCid < h.cat.numPredefined
		if wantZero != (o.IdentityHash == 0) || o.IdentityHash >= 1<<31 {
			t.Fatalf("object %d (%s): identity hash %d", id, c.Name, o.IdentityHash)
		}
		// Fixed slots follow the class's fields; unboxed slots are 0.
		if len(c.Fields) > 0 && id > 2+s.Isolates {
			if len(o.References) < len(c.Fields) {
				t.Fatalf("object %d (%s): %d references for %d fields", id, c.Name, len(o.References), len(c.Fields))
			}
			for j, f := range c.Fields {
				if (o.References[j] == 0) != f.Unboxed {
					t.Fatalf("object %d (%s) field %s: reference %d, unboxed %v", id, c.Name, f.Name, o.References[j], f.Unboxed)
				}
				if f.Unboxed {
					unboxedChecked++
				}
			}
		}
		switch c.Name {
		case "_WeakProperty", "_WeakReference", "FinalizerEntry":
			weak++
		case "_List", "_ImmutableList":
			if o.Data.Tag != LengthData || int(o.Data.Int) != len(o.References)-2 || o.ShallowSize != uint64(arraySize(len(o.References)-2)) && !vm {
				t.Fatalf("array %d: %+v size %d with %d references", id, o.Data, o.ShallowSize, len(o.References))
			}
		case "_OneByteString", "_TwoByteString":
			l := int(h.Object(int(o.References[0])).Data.Int)
			if o.Data.Length != l || len(o.Data.Latin1)+len(o.Data.UTF16) != min(l, 128) {
				t.Fatalf("string %d: length %d, Smi %d, %d units", id, o.Data.Length, l, len(o.Data.Latin1)+len(o.Data.UTF16))
			}
		case "_Map", "_ConstMap", "_Set", "_ConstSet":
			// LengthData is used_data_ (slot 4), a Smi.
			if used := h.Object(int(o.References[4])); o.Data.Tag != LengthData || used.Data.Int != o.Data.Int {
				t.Fatalf("%s %d: data %+v, used_data_ %d", c.Name, id, o.Data, used.Data.Int)
			}
		case "Function", "Code", "Class", "Library", "Script", "Field", "TypeArguments":
			if c.LibraryURI == "" && c.Name != "Code" && o.Data.Tag != NameData {
				t.Fatalf("%s object %d has data tag %d", c.Name, id, o.Data.Tag)
			}
		}
	}
	// Typed data: LengthData = element count (the length_ Smi) for internal
	// and external arrays, NoData for views.
	views, arrays := 0, 0
	for id := s.FirstHeapObject; id < s.FirstSmiObject; id++ {
		o := h.Object(id)
		c := classes[o.ClassID-1]
		if c.LibraryURI != "dart:typed_data" {
			continue
		}
		if strings.Contains(c.Name, "View") {
			views++
			if o.Data.Tag != NoData {
				t.Fatalf("view %d (%s) has data tag %d", id, c.Name, o.Data.Tag)
			}
		} else if n := h.Object(int(o.References[0])).Data.Int; o.Data.Tag != LengthData || o.Data.Int != n {
			t.Fatalf("typed data %d (%s): %+v, length_ %d", id, c.Name, o.Data, n)
		} else {
			arrays++
		}
	}
	if views == 0 || arrays == 0 {
		t.Errorf("%d typed-data views, %d arrays", views, arrays)
	}
	if unboxedChecked == 0 || weak < 3 || twoExt == 0 {
		t.Errorf("unboxed slots %d, weak objects %d, objects with two external properties %d", unboxedChecked, weak, twoExt)
	}
	if s.TruncatedStrings == 0 || s.DataTags[Utf16StringData] == 0 || s.DataTags[DoubleData] == 0 {
		t.Errorf("truncated strings %d, UTF-16 strings %d, doubles %d", s.TruncatedStrings, s.DataTags[Utf16StringData], s.DataTags[DoubleData])
	}
}

// TestStringCorners looks for the UTF-16 corner cases and the double
// specials in the file.
func TestStringCorners(t *testing.T) {
	r := generate(t, Options{Seed: 1, Objects: 3_000})
	var pair, loneHigh, loneLow, splitPair, nan, negZero, inf bool
	for id := 1; id <= r.heap.NumObjects(); id++ {
		d := r.heap.Object(id).Data
		switch d.Tag {
		case Utf16StringData:
			u := d.UTF16
			for i, c := range u {
				hi, lo := c >= 0xD800 && c < 0xDC00, c >= 0xDC00 && c < 0xE000
				next := i+1 < len(u) && u[i+1] >= 0xDC00 && u[i+1] < 0xE000
				prev := i > 0 && u[i-1] >= 0xD800 && u[i-1] < 0xDC00
				switch {
				case hi && next:
					pair = true
				case hi && i == len(u)-1 && d.Length > len(u):
					splitPair = true
				case hi:
					loneHigh = true
				case lo && !prev:
					loneLow = true
				}
			}
		case DoubleData:
			nan = nan || math.IsNaN(d.Float)
			negZero = negZero || (d.Float == 0 && math.Signbit(d.Float))
			inf = inf || math.IsInf(d.Float, 0)
		}
	}
	if !pair || !loneHigh || !loneLow || !splitPair || !nan || !negZero || !inf {
		t.Errorf("pair %v lone high %v lone low %v split pair %v NaN %v -0 %v Inf %v", pair, loneHigh, loneLow, splitPair, nan, negZero, inf)
	}
}

func TestOptions(t *testing.T) {
	for _, opts := range []Options{{Objects: -1}, {Objects: MaxObjects + 1}, {Isolates: -1}, {Isolates: 65}, {Generation: 7}} {
		if _, err := Build(opts); err == nil {
			t.Errorf("%+v: no error", opts)
		}
	}
	for _, s := range []string{"vm", "nohash", "export"} {
		if g, err := ParseGeneration(s); err != nil || g.String() != s {
			t.Errorf("ParseGeneration(%q) = %v, %v", s, g, err)
		}
	}
	if _, err := ParseGeneration("v8"); err == nil {
		t.Error("ParseGeneration(v8): no error")
	}
}

func BenchmarkGenerate(b *testing.B) {
	for _, n := range []int{300_000, 1_000_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				h, err := Build(Options{Seed: int64(i), Objects: n})
				if err != nil {
					b.Fatal(err)
				}
				cw := countWriter{}
				if _, err := h.WriteTo(cw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
