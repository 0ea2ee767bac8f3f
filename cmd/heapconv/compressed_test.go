package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/heapconv/heapconv/ir/irstream"
	"github.com/klauspost/compress/zstd"
)

var testdata = filepath.Join("..", "..", "testdata")

// plainFixtures is one uncompressed file of every format.
var plainFixtures = []struct{ format, path string }{
	{"v8", filepath.Join(testdata, "v8", "small", "rows.heapsnapshot")},
	{"dart", filepath.Join(testdata, "dart", "synthetic_vm_layout.dartheap")},
	{"moarvm", filepath.Join(testdata, "moarvm", "nqp-1snap.mvmheap")},
	{"fuchsia", filepath.Join(testdata, "fuchsia", "ffx-test-2023.pb")},
	{"fuchsia-fidl", filepath.Join(testdata, "fuchsia-fidl", "ffx-test.fidlstream")},
}

func gzipBytes(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func zstdBytes(t *testing.T, data []byte) []byte {
	t.Helper()
	zw, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer zw.Close()
	return zw.EncodeAll(data, nil)
}

func gunzipBytes(t *testing.T, data []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func unzstdBytes(t *testing.T, data []byte) []byte {
	t.Helper()
	zr, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	out, err := zr.DecodeAll(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func writeFile(t *testing.T, path string, data []byte) string {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCompressedInput: a gzip or zstd wrapper around a file of any format
// is unwrapped and the format inside detected, for every command; the file
// reads as the same IR as the plain one.
func TestCompressedInput(t *testing.T) {
	dir := t.TempDir()
	// The IR too, from the V8 fixture.
	irPath := filepath.Join(dir, "rows.heapir")
	if code, _, stderr := cliRun(t, nil, "convert", plainFixtures[0].path, irPath); code != 0 {
		t.Fatal(stderr)
	}
	fixtures := append(plainFixtures, struct{ format, path string }{"ir", irPath})
	wrappers := []struct {
		name string
		ext  string
		wrap func(*testing.T, []byte) []byte
	}{{"gzip", ".gz", gzipBytes}, {"zstd", ".zst", zstdBytes}}
	for _, fx := range fixtures {
		data := cliReadFile(t, fx.path)
		_, plainDump, _ := cliRun(t, nil, "dump", fx.path)
		for _, w := range wrappers {
			t.Run(fx.format+"/"+w.name, func(t *testing.T) {
				path := writeFile(t, filepath.Join(dir, filepath.Base(fx.path)+w.ext), w.wrap(t, data))
				code, stdout, stderr := cliRun(t, nil, "info", "--json", path)
				if code != 0 {
					t.Fatalf("info: exit %d: %s", code, stderr)
				}
				var info struct{ Format, Compression string }
				if err := json.Unmarshal([]byte(stdout), &info); err != nil {
					t.Fatal(err)
				}
				wantFormat := fx.format
				if fx.format == "ir" {
					wantFormat = "v8" // the IR says what it was read from
				}
				if info.Format != wantFormat || info.Compression != w.name {
					t.Errorf("info says format %q compression %q, want %q %q", info.Format, info.Compression, wantFormat, w.name)
				}
				wantDump := plainDump
				if fx.format == "fuchsia" && w.name == "gzip" {
					// A gzipped profile is ffx's own form: read as such,
					// it is written back gzipped.
					wantDump = strings.Replace(plainDump, "section fuchsia v1\n  gzip=false\n", "section fuchsia v1\n  gzip=true\n", 1)
				}
				if code, stdout, stderr := cliRun(t, nil, "dump", path); code != 0 || stdout != wantDump {
					t.Errorf("dump: exit %d (%s); the same IR as the plain file: %v", code, stderr, stdout == wantDump)
				}
				if code, stdout, stderr := cliRun(t, nil, "validate", path); code != 0 || !strings.Contains(stdout, "valid") {
					t.Errorf("validate: exit %d: %s%s", code, stdout, stderr)
				}
				if code, stdout, stderr := cliRun(t, nil, "roundtrip", path); code != 0 {
					t.Errorf("roundtrip: exit %d: %s%s", code, stdout, stderr)
				}
				out := filepath.Join(dir, fx.format+"-"+w.name+".heapir")
				if code, _, stderr := cliRun(t, nil, "convert", "-q", path, out); code != 0 {
					t.Errorf("convert: exit %d: %s", code, stderr)
				}
				// Through standard input as well.
				if code, stdout, stderr := cliRun(t, cliReadFile(t, path), "dump", "-"); code != 0 || stdout != wantDump {
					t.Errorf("dump from standard input: exit %d (%s); the same IR: %v", code, stderr, stdout == wantDump)
				}
			})
		}
	}
	t.Run("debian-v2-sample", func(t *testing.T) {
		in := filepath.Join(testdata, "moarvm", "nqp-1snap-v002.mvmheap.gz")
		out := filepath.Join(dir, "debian.heapsnapshot")
		if code, _, stderr := cliRun(t, nil, "convert", "-q", in, out); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if code, stdout, _ := cliRun(t, nil, "info", out); code != 0 || !strings.Contains(stdout, "format:   v8") {
			t.Errorf("the V8 file written: exit %d\n%s", code, stdout)
		}
	})
}

// TestCompressedInputErrors: an error in the data inside a wrapper names
// an offset of the decompressed data, one in the compressed stream the
// offset in the file.
func TestCompressedInputErrors(t *testing.T) {
	dir := t.TempDir()
	data := cliReadFile(t, filepath.Join(testdata, "dart", "synthetic_vm_layout.dartheap"))
	cutInside := writeFile(t, filepath.Join(dir, "cut-inside.dartheap.gz"), gzipBytes(t, data[:len(data)/2]))
	code, _, stderr := cliRun(t, nil, "info", cutInside)
	if code != 1 || !regexp.MustCompile(`dart: offset \d+ of the decompressed data: `).MatchString(stderr) {
		t.Errorf("cut inside the gzip: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = cliRun(t, nil, "validate", cutInside)
	if code != 1 || !strings.Contains(stderr, "of the decompressed data") {
		t.Errorf("validate, cut inside the gzip: exit %d, stderr %q", code, stderr)
	}
	v8 := cliReadFile(t, filepath.Join(testdata, "v8", "small", "rows.heapsnapshot"))
	zcut := zstdBytes(t, v8[:len(v8)-100])
	code, _, stderr = cliRun(t, nil, "info", writeFile(t, filepath.Join(dir, "cut.heapsnapshot.zst"), zcut))
	if code != 1 || !regexp.MustCompile(`v8: offset \d+ of the decompressed data: `).MatchString(stderr) {
		t.Errorf("cut inside the zstd: exit %d, stderr %q", code, stderr)
	}
	gz := gzipBytes(t, bytes.Repeat(v8, 50))
	code, _, stderr = cliRun(t, nil, "info", writeFile(t, filepath.Join(dir, "cut-gzip.heapsnapshot.gz"), gz[:len(gz)/2]))
	if code != 1 || !regexp.MustCompile(`gzip: offset \d+: the compressed data is cut short`).MatchString(stderr) {
		t.Errorf("a cut gzip stream: exit %d, stderr %q", code, stderr)
	}
	junk := writeFile(t, filepath.Join(dir, "junk.gz"), gzipBytes(t, []byte("hello, world")))
	code, _, stderr = cliRun(t, nil, "info", junk)
	if code != 1 || !strings.Contains(stderr, "unrecognized format inside the gzip data") {
		t.Errorf("gzipped junk: exit %d, stderr %q", code, stderr)
	}
}

// TestCompressedOutput: an OUT ending in .gz or .zst is the format the name
// before it says, compressed: exactly the bytes of the plain output inside.
// .pb.gz and .heapir.zst keep their meaning (the format's own compression).
func TestCompressedOutput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(testdata, "dart", "synthetic_vm_layout.dartheap")
	exts := map[string]string{"v8": ".heapsnapshot", "dart": ".dartheap", "moarvm": ".mvmheap", "fuchsia-fidl": ".fidlstream", "ir": ".heapir"}
	for format, ext := range exts {
		plain := filepath.Join(dir, "plain"+ext)
		if code, _, stderr := cliRun(t, nil, "convert", "-q", in, plain); code != 0 {
			t.Fatalf("%s: %s", format, stderr)
		}
		want := cliReadFile(t, plain)
		for _, w := range []struct {
			ext    string
			unwrap func(*testing.T, []byte) []byte
		}{{".gz", gunzipBytes}, {".zst", unzstdBytes}} {
			t.Run(format+w.ext, func(t *testing.T) {
				out := filepath.Join(dir, "x"+ext+w.ext)
				if format == "ir" && w.ext == ".zst" {
					// The IR's own compressed form: its encoder's, which
					// reads the same.
					if code, _, stderr := cliRun(t, nil, "convert", "-q", in, out); code != 0 {
						t.Fatal(stderr)
					}
					g, err := irstream.Decode(bytes.NewReader(cliReadFile(t, out)))
					if err != nil {
						t.Fatal(err)
					}
					var b bytes.Buffer
					if err := irstream.Encode(&b, g); err != nil || !bytes.Equal(b.Bytes(), want) {
						t.Errorf(".heapir.zst does not hold the .heapir's IR (%v)", err)
					}
					return
				}
				if code, _, stderr := cliRun(t, nil, "convert", "-q", in, out); code != 0 {
					t.Fatal(stderr)
				}
				if got := w.unwrap(t, cliReadFile(t, out)); !bytes.Equal(got, want) {
					t.Errorf("%s holds %d bytes, not the %d of %s", filepath.Base(out), len(got), len(want), filepath.Base(plain))
				}
				// --to names the format; the suffix still compresses.
				out2 := filepath.Join(dir, "to-"+format+w.ext)
				if code, _, stderr := cliRun(t, nil, "convert", "-q", "--to", format, in, out2); code != 0 {
					t.Fatal(stderr)
				}
				if !bytes.Equal(cliReadFile(t, out2), cliReadFile(t, out)) {
					t.Errorf("--to %s with OUT %s differs from %s", format, filepath.Base(out2), filepath.Base(out))
				}
				if code, stdout, stderr := cliRun(t, nil, "info", "--json", out); code != 0 || !strings.Contains(stdout, `"compression":"`) {
					t.Errorf("info of %s: exit %d %s%s", out, code, stdout, stderr)
				}
			})
		}
	}
	// A Fuchsia profile: .pb.gz is ffx's own gzipped profile (one layer, as
	// pprof reads it); .pb.zst a plain profile, zstd-compressed.
	t.Run("fuchsia", func(t *testing.T) {
		pbgz := filepath.Join(dir, "x.pb.gz")
		pbzst := filepath.Join(dir, "x.pb.zst")
		for _, out := range []string{pbgz, pbzst} {
			if code, _, stderr := cliRun(t, nil, "convert", "-q", in, out); code != 0 {
				t.Fatal(stderr)
			}
		}
		inner := gunzipBytes(t, cliReadFile(t, pbgz))
		if bytes.HasPrefix(inner, []byte{0x1f, 0x8b}) {
			t.Error(".pb.gz is gzipped twice")
		}
		if _, err := profile.ParseData(cliReadFile(t, pbgz)); err != nil {
			t.Errorf("pprof cannot read .pb.gz: %v", err)
		}
		plain := unzstdBytes(t, cliReadFile(t, pbzst))
		if !bytes.Equal(plain, inner) {
			t.Error(".pb.zst does not hold the profile .pb.gz holds")
		}
	})
}

// TestCompressedInputEdges: what gzip and zstd themselves take is taken
// (a wrapper inside a wrapper, zero padding after a gzip member), damage
// at the start of the compressed data is said as such with its offset (not
// "unrecognized format"), and a cut .mvmheap.gz is recovered snapshot by
// snapshot like the cut file itself.
func TestCompressedInputEdges(t *testing.T) {
	dir := t.TempDir()
	v8 := cliReadFile(t, filepath.Join(smallDir, "rows.heapsnapshot"))
	pbgz := cliReadFile(t, filepath.Join(testdata, "fuchsia", "ffx-test-newest-tags.pb.gz"))
	_, wantDump, _ := cliRun(t, nil, "dump", filepath.Join(smallDir, "rows.heapsnapshot"))
	gz := gzipBytes(t, v8)
	flipped := bytes.Clone(gz)
	flipped[20] ^= 0xff
	// A zstd frame made by hand, as zstd --long=28 would declare it: no
	// flags, a window of 2^(10+18) bytes, one raw last block holding v8.
	window := append(bytes.Clone(irstream.ZstdMagic), 0x00, 18<<3)
	hdr := uint32(len(v8))<<3 | 1
	window = append(append(window, byte(hdr), byte(hdr>>8), byte(hdr>>16)), v8...)
	mvm := cliReadFile(t, filepath.Join(testdata, "moarvm", "nqp-3snap.mvmheap"))
	mvmgz := gzipBytes(t, mvm)
	mvm1 := bytes.Clone(cliReadFile(t, filepath.Join(testdata, "moarvm", "nqp-1snap.mvmheap")))
	for i := len(mvm1) / 3; i < len(mvm1)/3+2; i++ {
		mvm1[i] ^= 0x55
	}
	tests := []struct {
		name   string
		data   []byte
		code   int
		stdout string // a substring, of info's output
		stderr *regexp.Regexp
	}{
		{"gzip of gzip", gzipBytes(t, gz), 0, "compressed: gzip", nil},
		{"zstd of gzip", zstdBytes(t, gz), 0, "compressed: zstd", nil},
		{"zstd of a gzipped profile", zstdBytes(t, pbgz), 0, "format:   fuchsia", nil},
		{"zero padding after gzip", append(bytes.Clone(gz), make([]byte, 100)...), 0, "format:   v8", nil},
		{"a flipped byte early in gzip", flipped, 1, "", regexp.MustCompile(`: gzip: offset \d+: corrupt deflate data\n$`)},
		{"two bytes of gzip", []byte{0x1f, 0x8b}, 1, "", regexp.MustCompile(`: gzip: offset \d: the compressed data is cut short\n$`)},
		{"a zstd window beyond 128 MiB", window, 1, "", regexp.MustCompile(`zstd: offset \d+: the data needs a window of more than 128 MiB \(made with zstd --long\?\)`)},
		{"compressed four times", gzipBytes(t, gzipBytes(t, gzipBytes(t, gz))), 1, "", regexp.MustCompile(`compressed more than 3 times`)},
		{"damage inside a gzipped MoarVM file", gzipBytes(t, mvm1), 1, "", regexp.MustCompile(`moarvm: offset \d+ of the decompressed data: `)},
		{"a cut .mvmheap.gz", mvmgz[:len(mvmgz)*2/3], 0, "recovered from a damaged file: 2 of 3 snapshots read", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")), tc.data)
			code, stdout, stderr := cliRun(t, nil, "info", path)
			if code != tc.code || !strings.Contains(stdout, tc.stdout) || tc.stderr != nil && !tc.stderr.MatchString(stderr) {
				t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
			}
			if tc.name == "gzip of gzip" {
				if _, stdout, _ := cliRun(t, nil, "dump", path); stdout != wantDump {
					t.Error("not the same IR as the plain file")
				}
			}
		})
	}
}

// TestCompressedOffsetsSaySo: every offset an error or a recovered file
// names inside compressed data says it counts the decompressed data: a
// damaged or cut .heapir.zst (the IR's own compression, decompressed by its
// reader), and a MoarVM file recovered inside a gzip wrapper, whose
// variant names where the damage starts.
func TestCompressedOffsetsSaySo(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "rows.heapir")
	if code, _, stderr := cliRun(t, nil, "convert", filepath.Join(smallDir, "rows.heapsnapshot"), plain); code != 0 {
		t.Fatalf("convert: exit %d: %s", code, stderr)
	}
	ir := cliReadFile(t, plain)
	damaged := append(bytes.Clone(ir), 0xc0) // data after the end record
	unmarked := regexp.MustCompile(`offset \d+(:|\)|$)`)
	for name, data := range map[string][]byte{"damaged.heapir.zst": damaged, "cut.heapir.zst": ir[:len(ir)*2/3]} {
		code, _, stderr := cliRun(t, nil, "info", writeFile(t, filepath.Join(dir, name), zstdBytes(t, data)))
		if code != 1 || !regexp.MustCompile(`ir: offset \d+ of the decompressed data: `).MatchString(stderr) || unmarked.MatchString(stderr) {
			t.Errorf("%s: exit %d, stderr %q", name, code, stderr)
		}
	}
	mvm := cliReadFile(t, filepath.Join(testdata, "moarvm", "nqp-3snap.mvmheap"))
	cut := writeFile(t, filepath.Join(dir, "cut.mvmheap.gz"), gzipBytes(t, mvm[:1_500_000]))
	code, stdout, stderr := cliRun(t, nil, "info", "--top", "1", cut)
	if code != 0 || !regexp.MustCompile(`recovered from a damaged file: 2 of 3 snapshots read, damage at offset \d+ of the decompressed data\n`).MatchString(stdout) {
		t.Errorf("info of a recovered gzipped MoarVM file: exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
	code, _, stderr = cliRun(t, nil, "validate", cut)
	if code != 1 || !strings.Contains(stderr, "of the decompressed data") || regexp.MustCompile(`moarvm: offset \d+:`).MatchString(stderr) {
		t.Errorf("validate of a recovered gzipped MoarVM file: exit %d, stderr %q", code, stderr)
	}
}

// TestLevelOption: --level reaches the compressor (best writes a smaller
// file than fast, and both hold the heap), and is a usage error where it
// would do nothing or names no level, before any OUT is written.
func TestLevelOption(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(testdata, "v8", "node22.heapsnapshot.zst")
	plain := filepath.Join(dir, "plain.heapir")
	if code, _, stderr := cliRun(t, nil, "convert", "-q", in, plain); code != 0 {
		t.Fatal(stderr)
	}
	want := cliReadFile(t, plain)
	for _, ext := range []string{".heapir.zst", ".heapir.gz"} {
		var sizes []int
		for _, level := range []string{"fast", "best"} {
			out := filepath.Join(dir, level+ext)
			if code, _, stderr := cliRun(t, nil, "convert", "-q", "--level", level, in, out); code != 0 {
				t.Fatalf("--level %s: %s", level, stderr)
			}
			data := cliReadFile(t, out)
			sizes = append(sizes, len(data))
			if ext == ".heapir.gz" {
				data = gunzipBytes(t, data)
			}
			g, err := irstream.Decode(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("--level %s: %v", level, err)
			}
			var b bytes.Buffer
			if err := irstream.Encode(&b, g); err != nil || !bytes.Equal(b.Bytes(), want) {
				t.Errorf("--level %s: %s does not hold the heap (%v)", level, ext, err)
			}
		}
		if sizes[1] >= sizes[0] {
			t.Errorf("%s: --level fast wrote %d bytes, best %d; want best smaller", ext, sizes[0], sizes[1])
		}
	}

	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"--level", "max", in, filepath.Join(dir, "x.heapir.zst")}, `--level: unknown compression level "max" (levels: fast, default, best)`},
		{[]string{"--level=", in, filepath.Join(dir, "x.heapir.zst")}, `unknown compression level ""`},
		{[]string{"--level", "best", in, filepath.Join(dir, "x.heapir")}, "--level applies to compressed outputs"},
		{[]string{"--level", "fast", in, filepath.Join(dir, "x.heapsnapshot")}, "--level applies to compressed outputs"},
		{[]string{"--level", "fast", "--to", "ir", in, "-"}, "--level applies to compressed outputs"},
		{[]string{"--level", "best", in, filepath.Join(dir, "x.pb.gz")}, "not to a Fuchsia profile's own gzip"},
		{[]string{"--level", "best", in, filepath.Join(dir, "x.parquet")}, "--level"},
	} {
		args := append([]string{"convert"}, tc.args...)
		code, stdout, stderr := cliRun(t, nil, args...)
		if code != 2 || !strings.Contains(stderr, tc.stderr) || !strings.Contains(stderr, "Usage: heapconv convert") || stdout != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 2 and %q with the usage", strings.Join(args, " "), code, stdout, stderr, tc.stderr)
		}
		if out := tc.args[len(tc.args)-1]; out != "-" {
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("%s: %s was written", strings.Join(args, " "), out)
			}
		}
	}
}
