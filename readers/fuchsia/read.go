package fuchsia

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"strconv"

	"github.com/klauspost/compress/gzip"

	"github.com/heapconv/heapconv/ir"
	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
)

// Options control Read.
type Options struct {
	// Size is the input's size in bytes when known (0 = unknown); a FIDL
	// stream's reader bounds what its declared counts may allocate by it.
	Size int64
	// ContentsDir is the directory ffx --output-contents-dir wrote: one
	// file per block, named 0x<address> (or <koid>-0x<address> in a
	// multi-process snapshot), exactly the block's size. "" for none.
	ContentsDir string
	// Contents, when set, is used instead of ContentsDir (file names at
	// its root).
	Contents fs.FS
	// ScanPointers derives edges from the contents: every aligned 64-bit
	// little-endian word that points into another block of the same
	// process (ir/fuchsia/section.go). Without contents it does nothing.
	ScanPointers bool
	// MaxUncompressed, when positive, bounds the size of a gzipped
	// profile once decompressed. 0 sets no bound beyond the format's
	// (4 GiB, and what deflate can expand, 1032 times): what is
	// decompressed is checked to be a profile before more memory is
	// taken for it, so a gzip bomb is refused within its first 64 KiB
	// that are not one.
	MaxUncompressed int64
}

// IsGzip reports whether data starts with the gzip magic (1f 8b).
func IsGzip(data []byte) bool { return len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b }

// Read reads a heapdump profile, gzipped or not, into the IR.
func Read(r io.Reader, opts Options) (*ir.File, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return ReadBytes(data, opts)
}

// ReadBytes reads a heapdump profile held in memory. data is not modified
// nor kept.
func ReadBytes(data []byte, opts Options) (*ir.File, error) {
	gz := IsGzip(data)
	if gz {
		var err error
		if data, err = gunzip(data, opts.MaxUncompressed); err != nil {
			return nil, err
		}
	}
	d := &decoder{data: data}
	if gz {
		d.within = ir.Decompressed
	}
	f, err := d.decode()
	if err != nil {
		return nil, err
	}
	fuchsiair.FileOf(f).Gzip = gz
	var br blockReader
	name := func(n string) string { return n }
	switch {
	case opts.Contents != nil:
		br = fsBlocks{opts.Contents}
	case opts.ContentsDir != "":
		dir := opts.ContentsDir
		if st, err := os.Stat(dir); err != nil {
			return nil, fmt.Errorf("fuchsia: contents directory: %w", err)
		} else if !st.IsDir() {
			return nil, fmt.Errorf("fuchsia: contents directory %s is not a directory", dir)
		}
		d, err := openBlockDir(dir)
		if err != nil {
			return nil, fmt.Errorf("fuchsia: contents directory: %w", err)
		}
		defer d.Close()
		br = d
		name = func(n string) string { return dir + string(os.PathSeparator) + n }
	}
	if br != nil {
		for _, s := range f.Snapshots {
			if err := readContents(br, name, s); err != nil {
				return nil, err
			}
		}
	}
	edges, err := deriveEdges(f, opts.ScanPointers)
	if err != nil {
		return nil, err
	}
	if br != nil {
		f.FormatVersion += ", with block contents"
	}
	if opts.ScanPointers {
		// Say it where info shows it: these edges are a guess.
		f.FormatVersion += fmt.Sprintf(", %d edges derived by scanning the contents for pointers (heuristic: integers that look like addresses count too)", edges)
	}
	if err := f.Validate(); err != nil {
		return nil, fmt.Errorf("fuchsia: internal error: the IR read is invalid: %w", err)
	}
	return f, nil
}

// gunzip decompresses a gzipped profile. The output grows only with the
// bytes actually decompressed, and only once those are checked to be the
// start of a profile (profileCheck), so a gzip bomb is refused within its
// first 64 KiB that do not look like one; limit, when positive, bounds the
// size as well. A profile's size justifies what reading it allocates,
// whatever its compression ratio: one sample per object compresses 60
// times and more.
func gunzip(data []byte, limit int64) ([]byte, error) {
	in := bytes.NewReader(data)
	// flate reads the bytes.Reader byte by byte (it is an io.ByteReader),
	// so what it has consumed is where an error lies.
	consumed := func() int64 { return in.Size() - int64(in.Len()) }
	zr, err := gzip.NewReader(in)
	if err != nil {
		return nil, ir.Errorf(fuchsiair.Format, consumed(), "gzip: %v", err)
	}
	// The uncompressed size is in the trailer (mod 2^32): believed only
	// as far as deflate can expand (1032:1), and even then only to size
	// the buffer's last growth, once the bytes checked are a sixteenth
	// of it (so that the buffer never holds more than 16 times what has
	// been checked, and a profile costs little more than its size).
	var hint int64
	if n := len(data); n >= 4 {
		hint = int64(binary.LittleEndian.Uint32(data[n-4:]))
		hint = min(hint, 1032*int64(n))
	}
	out := make([]byte, 0, min(max(hint+1, 512), 64<<10))
	check := newProfileCheck()
	for {
		if len(out) == cap(out) {
			// No more memory for data until what has come is checked;
			// the decoder checks the last piece (its own rules are the
			// same), so only what makes the buffer grow is checked twice.
			if off, err := check.feed(out); err != nil {
				return nil, &ir.FormatError{Format: fuchsiair.Format, Offset: int64(off), Within: ir.Decompressed, Msg: err.Error()}
			}
			c := 2 * cap(out)
			if hint > int64(len(out)) && hint <= 16*int64(len(out)) {
				c = int(hint) + 1 // +1: the read that sees the end
			}
			if limit > 0 && limit < int64(c) {
				c = int(limit) + 1 // +1: the read that goes past it
			}
			grown := make([]byte, len(out), c)
			copy(grown, out)
			out = grown
		}
		n, rerr := zr.Read(out[len(out):cap(out)])
		out = out[:len(out)+n]
		if limit > 0 && int64(len(out)) > limit {
			return nil, ir.Errorf(fuchsiair.Format, consumed(), "gzip: decompresses to more than %d bytes", limit)
		}
		if len(out) > math.MaxUint32 {
			return nil, ir.Errorf(fuchsiair.Format, consumed(), "gzip: decompresses to more than 4 GiB (a profile holds at most that)")
		}
		if rerr == io.EOF {
			return out, nil
		}
		if rerr != nil {
			return nil, ir.Errorf(fuchsiair.Format, consumed(), "gzip: after %d uncompressed bytes: %v", len(out), rerr)
		}
	}
}

// Known label keys and units, by pprof string index.
const (
	keyAddress = 1 + iota
	keyBytes
	keyTimestamp
	keyThread
	keyProcessName
	keyProcessKoid
	numKeys
	keyMask   = 7
	unitBytes = 8
	unitNanos = 16
)

// knownStrings gives the key and unit bits of the strings ffx writes as
// label keys and units. "bytes" is both a key and a unit.
var knownStrings = map[string]uint8{
	fuchsiair.AddressLabel: keyAddress, fuchsiair.BytesLabel: keyBytes | unitBytes, fuchsiair.TimestampLabel: keyTimestamp,
	fuchsiair.ThreadLabel: keyThread, fuchsiair.ProcessNameLabel: keyProcessName, fuchsiair.ProcessKoidLabel: keyProcessKoid,
	fuchsiair.NanosecondsUnit: unitNanos,
}

type decoder struct {
	data []byte
	// within is the FormatError.Within of the decoder's errors: their
	// offsets count the decompressed bytes of a gzipped profile.
	within string
	f      *ir.File
	ff     *fuchsiair.File

	strStart, strEnd []uint32     // the pprof string table, as spans of data
	known            []uint8      // per pprof string: key | unit bits
	remap            []uint32     // pprof string index -> 1 + IR string index
	strs             *ir.Interner // the IR string table; File.Strings once decoded

	locDense []uint32 // location id -> 1 + location index, for small ids
	locMap   map[uint64]uint32
	// The mappings' and functions' spans, for errors naming an offset.
	mappingSpans, functionSpans []span

	snaps   []*snapBuilder
	byProc  map[procKey]int
	runs    []run // consecutive samples of one snapshot, for SampleSnapshot
	classes map[siteKey]uint32

	// scratch, reused per sample
	locs   []uint64
	vals   []uint64
	labels []label
	key    []byte
	idx    []uint32
}

type run struct{ snap, n int }

type label struct {
	key, str, num, unit int64
	off                 int
}

type procKey struct {
	hasName, hasKoid bool
	name             uint32 // IR string
	koid             int64
}

func (d *decoder) errorf(off int, format string, args ...any) error {
	e := ir.Errorf(fuchsiair.Format, int64(off), format, args...)
	e.Within = d.within
	for _, a := range args {
		if err, ok := a.(error); ok && errors.Is(err, errTruncated) {
			e.Err = ir.ErrTruncated // a field that runs past its message
		}
	}
	return e
}

// str returns the IR index of pprof string i, interning it.
func (d *decoder) str(i int64, off int) (uint32, error) {
	if i < 0 || i >= int64(len(d.strStart)) {
		return 0, d.errorf(off, "string index %d out of range (%d strings)", i, len(d.strStart))
	}
	if v := d.remap[i]; v != 0 {
		return v - 1, nil
	}
	v := d.internBytes(d.data[d.strStart[i]:d.strEnd[i]])
	d.remap[i] = v + 1
	return v, nil
}

func (d *decoder) internBytes(b []byte) uint32 { return d.strs.InternBytes(b) }

func (d *decoder) internString(s string) uint32 { return d.strs.Intern(s) }

// strBytes returns pprof string i (checked by the caller).
func (d *decoder) strBytes(i int64) []byte { return d.data[d.strStart[i]:d.strEnd[i]] }

type span struct{ start, end int }

func (d *decoder) decode() (*ir.File, error) {
	if len(d.data) == 0 {
		return nil, d.errorf(0, "empty profile")
	}
	if len(d.data) > math.MaxUint32 {
		return nil, d.errorf(-1, "uncompressed profile of %d bytes (at most 4 GiB)", len(d.data))
	}
	d.f = &ir.File{Format: fuchsiair.Format, Producer: "ffx profile heapdump"}
	d.ff = &fuchsiair.File{}
	d.f.SetSection(d.ff)
	d.strs = ir.NewInterner(nil)
	d.internString("")

	// Pass 1: the string table and the spans of everything that refers
	// to it.
	var sampleTypes, mappings, locations, functions []span
	var periodType span
	var comments []uint64
	var scalars [fuchsiair.ProfileDocURL + 1]int64
	var scalarOff [fuchsiair.ProfileDocURL + 1]int
	nSamples := 0
	var seen uint32 // singular fields seen
	p := pbuf{data: d.data, end: len(d.data)}
	for p.pos < p.end {
		off := p.pos
		num, wt, v, start, end, err := p.field()
		if err != nil {
			return nil, d.errorf(off, "profile: %v", err)
		}
		// profileCheck's rules, so that a profile reads the same gzipped
		// or not: profile.proto's fields only, each singular one once.
		if num > fuchsiair.ProfileDocURL {
			return nil, d.errorf(off, "profile field %d: not a field of profile.proto's Profile", num)
		}
		if fuchsiair.ProfileSingular&(1<<num) != 0 {
			if seen&(1<<num) != 0 {
				return nil, d.errorf(off, "profile field %d occurs twice (it holds one value)", num)
			}
			seen |= 1 << num
		}
		switch num {
		case fuchsiair.ProfileSampleType, fuchsiair.ProfileSample, fuchsiair.ProfileMapping, fuchsiair.ProfileLocation,
			fuchsiair.ProfileFunction, fuchsiair.ProfileStringTable, fuchsiair.ProfilePeriodType:
			if wt != fuchsiair.WireBytes {
				return nil, d.errorf(off, "profile field %d: wire type %d, not a message or string", num, wt)
			}
		case fuchsiair.ProfileDropFrames, fuchsiair.ProfileKeepFrames, fuchsiair.ProfileTimeNanos, fuchsiair.ProfileDurationNanos,
			fuchsiair.ProfilePeriod, fuchsiair.ProfileDefaultSampleType, fuchsiair.ProfileDocURL:
			if wt != fuchsiair.WireVarint {
				return nil, d.errorf(off, "profile field %d: wire type %d, not an integer", num, wt)
			}
			scalars[num], scalarOff[num] = int64(v), off
			continue
		case fuchsiair.ProfileComment:
			if comments, err = repeated(d.data, wt, v, start, end, comments, -1); err != nil {
				return nil, d.errorf(off, "profile comments: %v", err)
			}
			continue
		}
		s := span{start, end}
		switch num {
		case fuchsiair.ProfileSampleType:
			sampleTypes = append(sampleTypes, s)
		case fuchsiair.ProfileSample:
			nSamples++
		case fuchsiair.ProfileMapping:
			mappings = append(mappings, s)
		case fuchsiair.ProfileLocation:
			locations = append(locations, s)
		case fuchsiair.ProfileFunction:
			functions = append(functions, s)
		case fuchsiair.ProfileStringTable:
			if len(d.strStart) == 0 && end != start {
				return nil, d.errorf(off, "string_table[0] must be \"\"")
			}
			d.strStart = append(d.strStart, uint32(start))
			d.strEnd = append(d.strEnd, uint32(end))
		case fuchsiair.ProfilePeriodType:
			periodType = s
		}
	}
	if len(d.strStart) == 0 {
		// At the end: that is where it would be, and a cut file lacks it.
		return nil, d.errorf(len(d.data), "no string table (not a pprof profile, or cut short)")
	}
	d.remap = make([]uint32, len(d.strStart))
	d.known = make([]uint8, len(d.strStart))
	for i := range d.strStart {
		if b := d.strBytes(int64(i)); len(b) >= 5 && len(b) <= 12 {
			d.known[i] = knownStrings[string(b)]
		}
	}
	ff := d.ff
	var err error
	pt := func(sp span) (fuchsiair.ValueType, error) {
		var vt fuchsiair.ValueType
		var t, u int64
		q := pbuf{data: d.data, pos: sp.start, end: sp.end}
		for q.pos < q.end {
			off := q.pos
			num, wt, v, _, _, err := q.field()
			if err == nil && (num == fuchsiair.ValueTypeType || num == fuchsiair.ValueTypeUnit) && wt != fuchsiair.WireVarint {
				err = fmt.Errorf("field %d of wire type %d", num, wt)
			}
			if err != nil {
				return vt, d.errorf(off, "value type: %v", err)
			}
			switch num {
			case fuchsiair.ValueTypeType:
				t = int64(v)
			case fuchsiair.ValueTypeUnit:
				u = int64(v)
			}
		}
		if vt.Type, err = d.str(t, sp.start); err != nil {
			return vt, err
		}
		vt.Unit, err = d.str(u, sp.start)
		return vt, err
	}
	for _, sp := range sampleTypes {
		vt, err := pt(sp)
		if err != nil {
			return nil, err
		}
		ff.SampleTypes = append(ff.SampleTypes, vt)
	}
	if len(ff.SampleTypes) < 2 {
		return nil, d.errorf(0, "%d sample types: not a heapdump profile (objects/count and allocated/bytes)", len(ff.SampleTypes))
	}
	if ff.PeriodType, err = pt(periodType); err != nil {
		return nil, err
	}
	for _, x := range []struct {
		field int
		dst   *uint32
	}{{fuchsiair.ProfileDropFrames, &ff.DropFrames}, {fuchsiair.ProfileKeepFrames, &ff.KeepFrames},
		{fuchsiair.ProfileDefaultSampleType, &ff.DefaultSampleType}, {fuchsiair.ProfileDocURL, &ff.DocURL}} {
		if *x.dst, err = d.str(scalars[x.field], scalarOff[x.field]); err != nil {
			return nil, err
		}
	}
	ff.TimeNanos, ff.DurationNanos = scalars[fuchsiair.ProfileTimeNanos], scalars[fuchsiair.ProfileDurationNanos]
	ff.Period = scalars[fuchsiair.ProfilePeriod]
	for _, c := range comments {
		v, err := d.str(int64(c), -1)
		if err != nil {
			return nil, err
		}
		ff.Comments = append(ff.Comments, v)
	}
	d.mappingSpans, d.functionSpans = mappings, functions
	if err := d.mappings(mappings); err != nil {
		return nil, err
	}
	if err := d.functions(functions); err != nil {
		return nil, err
	}
	if err := d.locations(locations); err != nil {
		return nil, err
	}

	// Pass 2: the samples.
	d.byProc = map[procKey]int{}
	p = pbuf{data: d.data, end: len(d.data)}
	for p.pos < p.end {
		num, _, _, start, end, _ := p.field() // checked in pass 1
		if num == fuchsiair.ProfileSample {
			if err := d.sample(start, end, nSamples); err != nil {
				return nil, err
			}
		}
	}
	if len(d.snaps) == 0 {
		d.newSnap(procKey{}, 0)
	}
	if len(d.runs) > len(d.snaps) {
		for _, r := range d.runs {
			for j := 0; j < r.n; j++ {
				ff.SampleSnapshot = append(ff.SampleSnapshot, uint32(r.snap))
			}
		}
	}
	for _, sb := range d.snaps {
		d.finish(sb)
		d.f.Snapshots = append(d.f.Snapshots, sb.s)
	}
	if ff.TimeNanos > 0 {
		for _, s := range d.f.Snapshots {
			s.CaptureTime = ff.TimeNanos
		}
	}
	d.f.FormatVersion = d.version()
	d.f.Strings = d.strs.Strings
	return d.f, nil
}

// version names the ffx layout the profile looks like. Whether it was
// gzipped is fuchsiair.File.Gzip's to say, so that a profile reads the same
// compressed or not.
func (d *decoder) version() string {
	v := "pprof"
	tagged, merged := false, false
	for _, s := range d.f.Snapshots {
		for _, fl := range fuchsiair.Of(s).Flags {
			if fl&(fuchsiair.FlagAddress|fuchsiair.FlagBytes) != 0 {
				tagged = true
			} else {
				merged = true
			}
		}
	}
	switch {
	case tagged && !merged:
		v += ", per-block samples"
	case merged && !tagged:
		v += ", stack-merged samples"
	case tagged:
		v += ", per-block and merged samples"
	}
	if len(d.f.Snapshots) > 1 || fuchsiair.Of(d.f.Snapshots[0]).HasProcessKoid || fuchsiair.Of(d.f.Snapshots[0]).HasProcessName {
		v += ", " + processes(len(d.f.Snapshots))
	}
	if d.ff.Functions.Len() > 0 {
		v += ", symbolized"
	}
	return v
}

// ints decodes a message of integer fields into vals[1..max], checking
// the wire types; repeated messages (field lineField) go to sub.
func (d *decoder) ints(sp span, what string, vals []int64, lineField int, sub func(span) error) error {
	q := pbuf{data: d.data, pos: sp.start, end: sp.end}
	for q.pos < q.end {
		off := q.pos
		num, wt, v, start, end, err := q.field()
		if err != nil {
			return d.errorf(off, "%s: %v", what, err)
		}
		if num == lineField {
			if wt != fuchsiair.WireBytes {
				return d.errorf(off, "%s: field %d is not a message", what, num)
			}
			if err := sub(span{start, end}); err != nil {
				return err
			}
			continue
		}
		if num >= len(vals) {
			continue // unknown field
		}
		if wt != fuchsiair.WireVarint {
			return d.errorf(off, "%s: field %d of wire type %d, not an integer", what, num, wt)
		}
		vals[num] = int64(v)
	}
	return nil
}

func (d *decoder) mappings(spans []span) error {
	m := &d.ff.Mappings
	for _, sp := range spans {
		var v [fuchsiair.MappingHasInlineFrames + 1]int64
		if err := d.ints(sp, "mapping", v[:], -1, nil); err != nil {
			return err
		}
		file, err := d.str(v[fuchsiair.MappingFilename], sp.start)
		if err != nil {
			return err
		}
		build, err := d.str(v[fuchsiair.MappingBuildID], sp.start)
		if err != nil {
			return err
		}
		var fl uint8
		for b := 0; b < fuchsiair.MappingFlags; b++ {
			if v[fuchsiair.MappingHasFunctions+b] != 0 {
				fl |= 1 << b
			}
		}
		m.ID = append(m.ID, uint64(v[fuchsiair.MappingID]))
		m.Start = append(m.Start, uint64(v[fuchsiair.MappingMemoryStart]))
		m.Limit = append(m.Limit, uint64(v[fuchsiair.MappingMemoryLimit]))
		m.Offset = append(m.Offset, uint64(v[fuchsiair.MappingFileOffset]))
		m.File = append(m.File, file)
		m.BuildID = append(m.BuildID, build)
		m.Flags = append(m.Flags, fl)
		if v[fuchsiair.MappingID] == 0 {
			return d.errorf(sp.start, "mapping with the reserved id 0")
		}
	}
	return nil
}

func (d *decoder) functions(spans []span) error {
	fn := &d.ff.Functions
	for _, sp := range spans {
		var v [fuchsiair.FunctionStartLine + 1]int64
		if err := d.ints(sp, "function", v[:], -1, nil); err != nil {
			return err
		}
		// The name, system name and file name: consecutive fields.
		var s [3]uint32
		for i := range s {
			var err error
			if s[i], err = d.str(v[fuchsiair.FunctionName+i], sp.start); err != nil {
				return err
			}
		}
		if v[fuchsiair.FunctionID] == 0 {
			return d.errorf(sp.start, "function with the reserved id 0")
		}
		fn.ID = append(fn.ID, uint64(v[fuchsiair.FunctionID]))
		fn.Name = append(fn.Name, s[0])
		fn.SystemName = append(fn.SystemName, s[1])
		fn.Filename = append(fn.Filename, s[2])
		fn.StartLine = append(fn.StartLine, v[fuchsiair.FunctionStartLine])
	}
	return nil
}

// index returns a dense-or-map lookup from ids to 1 + entry index, failing
// on duplicates with the offset of the second (spans[i] is entry i's).
func (d *decoder) index(ids []uint64, spans []span, what string) ([]uint32, map[uint64]uint32, error) {
	dup := func(i int, id uint64) error {
		off := -1
		if i < len(spans) {
			off = spans[i].start
		}
		return d.errorf(off, "two %ss have id %d", what, id)
	}
	var mx uint64
	for _, id := range ids {
		mx = max(mx, id)
	}
	if mx <= uint64(4*len(ids)+1024) {
		dense := make([]uint32, mx+1)
		for i, id := range ids {
			if dense[id] != 0 {
				return nil, nil, dup(i, id)
			}
			dense[id] = uint32(i + 1)
		}
		return dense, nil, nil
	}
	m := make(map[uint64]uint32, len(ids))
	for i, id := range ids {
		if m[id] != 0 {
			return nil, nil, dup(i, id)
		}
		m[id] = uint32(i + 1)
	}
	return nil, m, nil
}

func lookup(dense []uint32, m map[uint64]uint32, id uint64) uint32 {
	if dense != nil {
		if id < uint64(len(dense)) {
			return dense[id]
		}
		return 0
	}
	return m[id]
}

func (d *decoder) locations(spans []span) error {
	mDense, mMap, err := d.index(d.ff.Mappings.ID, d.mappingSpans, "mapping")
	if err != nil {
		return err
	}
	fDense, fMap, err := d.index(d.ff.Functions.ID, d.functionSpans, "function")
	if err != nil {
		return err
	}
	lc := &d.ff.Locations
	if len(spans) > 0 {
		lc.FirstLine = append(lc.FirstLine, 0)
	}
	for _, sp := range spans {
		var v [fuchsiair.LocationIsFolded + 1]int64
		line := func(ls span) error {
			var lv [fuchsiair.LineColumn + 1]int64
			if err := d.ints(ls, "line", lv[:], -1, nil); err != nil {
				return err
			}
			fi := lookup(fDense, fMap, uint64(lv[fuchsiair.LineFunctionID]))
			if fi == 0 {
				return d.errorf(ls.start, "line: function id %d does not exist", lv[fuchsiair.LineFunctionID])
			}
			lc.Function = append(lc.Function, fi)
			lc.Line = append(lc.Line, lv[fuchsiair.LineLine])
			lc.Column = append(lc.Column, lv[fuchsiair.LineColumn])
			return nil
		}
		if err := d.ints(sp, "location", v[:], fuchsiair.LocationLine, line); err != nil {
			return err
		}
		var mi uint32
		if m := v[fuchsiair.LocationMappingID]; m != 0 {
			if mi = lookup(mDense, mMap, uint64(m)); mi == 0 {
				return d.errorf(sp.start, "location: mapping id %d does not exist", m)
			}
		}
		if v[fuchsiair.LocationID] == 0 {
			return d.errorf(sp.start, "location with the reserved id 0")
		}
		lc.ID = append(lc.ID, uint64(v[fuchsiair.LocationID]))
		lc.Mapping = append(lc.Mapping, mi)
		lc.Address = append(lc.Address, uint64(v[fuchsiair.LocationAddress]))
		lc.Folded = append(lc.Folded, v[fuchsiair.LocationIsFolded] != 0)
		lc.FirstLine = append(lc.FirstLine, uint32(len(lc.Function)))
	}
	d.locDense, d.locMap, err = d.index(lc.ID, spans, "location")
	return err
}

// processes says "1 process" or "n processes".
func processes(n int) string {
	if n == 1 {
		return "1 process"
	}
	return strconv.Itoa(n) + " processes"
}
