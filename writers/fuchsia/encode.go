package fuchsia

import (
	"fmt"
	"math"

	"github.com/heapconv/heapconv/ir"
	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
)

// pb is a protocol-buffer writer: nested messages are written into the
// same buffer after a reserved length, which is filled in (and the payload
// moved when the length needs more than the reserved byte) at the end.
type pb struct {
	b []byte
}

func (p *pb) varint(v uint64) {
	for v >= 0x80 {
		p.b = append(p.b, byte(v)|0x80)
		v >>= 7
	}
	p.b = append(p.b, byte(v))
}

func (p *pb) key(field, wt int) { p.varint(uint64(field)<<3 | uint64(wt)) }

// uint writes a varint field, omitted when zero (proto3).
func (p *pb) uint(field int, v uint64) {
	if v != 0 {
		p.key(field, fuchsiair.WireVarint)
		p.varint(v)
	}
}

func (p *pb) int(field int, v int64) { p.uint(field, uint64(v)) }

func (p *pb) bool(field int, v bool) {
	if v {
		p.uint(field, 1)
	}
}

func (p *pb) bytes(field int, b []byte) {
	p.key(field, fuchsiair.WireBytes)
	p.varint(uint64(len(b)))
	p.b = append(p.b, b...)
}

// begin starts a length-delimited field; end finishes it.
func (p *pb) begin(field int) int {
	p.key(field, fuchsiair.WireBytes)
	p.b = append(p.b, 0)
	return len(p.b)
}

func (p *pb) end(at int) {
	n := len(p.b) - at
	if n < 0x80 {
		p.b[at-1] = byte(n)
		return
	}
	var tmp [10]byte
	k := 0
	for v := uint64(n); ; {
		if v < 0x80 {
			tmp[k] = byte(v)
			k++
			break
		}
		tmp[k] = byte(v) | 0x80
		k++
		v >>= 7
	}
	p.b = append(p.b, tmp[:k-1]...) // room for the longer length
	copy(p.b[at+k-1:], p.b[at:at+n])
	copy(p.b[at-1:], tmp[:k])
}

// packed writes a packed repeated varint field.
func (p *pb) packed(field int, vs []uint64) {
	if len(vs) == 0 {
		return
	}
	at := p.begin(field)
	for _, v := range vs {
		p.varint(v)
	}
	p.end(at)
}

// encoder builds the output string table while writing.
type encoder struct {
	f      *ir.File
	p      pb
	strs   [][]byte
	remap  []uint32 // IR string -> 1 + output index
	byText map[string]uint32
	keys   map[string]uint64
	thread map[*ir.Snapshot][]uint64 // output string per thread table entry
}

// k returns the output index of a label key or unit.
func (e *encoder) k(s string) uint64 {
	if v, ok := e.keys[s]; ok {
		return v
	}
	v := e.text(s)
	e.keys[s] = v
	return v
}

func (e *encoder) str(i uint32) uint64 {
	if v := e.remap[i]; v != 0 {
		return uint64(v - 1)
	}
	v := e.text(e.f.Strings[i])
	e.remap[i] = uint32(v) + 1
	return v
}

func (e *encoder) text(s string) uint64 {
	if v, ok := e.byText[s]; ok {
		return uint64(v)
	}
	v := uint32(len(e.strs))
	e.strs = append(e.strs, []byte(s))
	e.byText[s] = v
	return uint64(v)
}

// Encode returns the uncompressed profile of Fuchsia IR (fuchsiair.FileOf(f) set).
func Encode(f *ir.File) ([]byte, error) {
	ff := fuchsiair.FileOf(f)
	if ff == nil {
		return nil, fmt.Errorf("fuchsia: the IR has no Fuchsia section (use Convert)")
	}
	e := &encoder{f: f, remap: make([]uint32, len(f.Strings)), byText: map[string]uint32{},
		keys: map[string]uint64{}, thread: map[*ir.Snapshot][]uint64{}}
	e.text("")
	p := &e.p
	total := 0
	for _, s := range f.Snapshots {
		total += s.Nodes.Len()
	}
	p.b = make([]byte, 0, 64*total+4096)
	for _, t := range ff.SampleTypes {
		at := p.begin(fuchsiair.ProfileSampleType)
		p.uint(fuchsiair.ValueTypeType, e.str(t.Type))
		p.uint(fuchsiair.ValueTypeUnit, e.str(t.Unit))
		p.end(at)
	}

	// Samples, in file order.
	cursor := make([]int, len(f.Snapshots))
	next := func(k int) {
		e.sample(f.Snapshots[k], cursor[k])
		cursor[k]++
	}
	if len(ff.SampleSnapshot) > 0 {
		for _, k := range ff.SampleSnapshot {
			next(int(k))
		}
	} else {
		for k, s := range f.Snapshots {
			for i := 0; i < s.Nodes.Len(); i++ {
				next(k)
			}
		}
	}

	m := &ff.Mappings
	for i := 0; i < m.Len(); i++ {
		at := p.begin(fuchsiair.ProfileMapping)
		p.uint(fuchsiair.MappingID, m.ID[i])
		p.uint(fuchsiair.MappingMemoryStart, m.Start[i])
		p.uint(fuchsiair.MappingMemoryLimit, m.Limit[i])
		p.uint(fuchsiair.MappingFileOffset, m.Offset[i])
		p.uint(fuchsiair.MappingFilename, e.str(m.File[i]))
		p.uint(fuchsiair.MappingBuildID, e.str(m.BuildID[i]))
		for b := 0; b < fuchsiair.MappingFlags; b++ {
			p.bool(fuchsiair.MappingHasFunctions+b, m.Flags[i]&(1<<b) != 0)
		}
		p.end(at)
	}
	lc := &ff.Locations
	for i := 0; i < lc.Len(); i++ {
		at := p.begin(fuchsiair.ProfileLocation)
		p.uint(fuchsiair.LocationID, lc.ID[i])
		if mi := lc.Mapping[i]; mi != 0 {
			p.uint(fuchsiair.LocationMappingID, m.ID[mi-1])
		}
		p.uint(fuchsiair.LocationAddress, lc.Address[i])
		for j := lc.FirstLine[i]; j < lc.FirstLine[i+1]; j++ {
			lat := p.begin(fuchsiair.LocationLine)
			p.uint(fuchsiair.LineFunctionID, ff.Functions.ID[lc.Function[j]-1])
			p.int(fuchsiair.LineLine, lc.Line[j])
			p.int(fuchsiair.LineColumn, lc.Column[j])
			p.end(lat)
		}
		p.bool(fuchsiair.LocationIsFolded, lc.Folded[i])
		p.end(at)
	}
	fn := &ff.Functions
	for i := 0; i < fn.Len(); i++ {
		at := p.begin(fuchsiair.ProfileFunction)
		p.uint(fuchsiair.FunctionID, fn.ID[i])
		p.uint(fuchsiair.FunctionName, e.str(fn.Name[i]))
		p.uint(fuchsiair.FunctionSystemName, e.str(fn.SystemName[i]))
		p.uint(fuchsiair.FunctionFilename, e.str(fn.Filename[i]))
		p.int(fuchsiair.FunctionStartLine, fn.StartLine[i])
		p.end(at)
	}
	// The scalar fields refer to strings: intern them before the table.
	drop, keep := e.str(ff.DropFrames), e.str(ff.KeepFrames)
	ptType, ptUnit := e.str(ff.PeriodType.Type), e.str(ff.PeriodType.Unit)
	var comments []uint64
	for _, c := range ff.Comments {
		comments = append(comments, e.str(c))
	}
	def, doc := e.str(ff.DefaultSampleType), e.str(ff.DocURL)
	for _, s := range e.strs {
		p.bytes(fuchsiair.ProfileStringTable, s)
	}
	p.uint(fuchsiair.ProfileDropFrames, drop)
	p.uint(fuchsiair.ProfileKeepFrames, keep)
	p.int(fuchsiair.ProfileTimeNanos, ff.TimeNanos)
	p.int(fuchsiair.ProfileDurationNanos, ff.DurationNanos)
	if ptType != 0 || ptUnit != 0 {
		at := p.begin(fuchsiair.ProfilePeriodType)
		p.uint(fuchsiair.ValueTypeType, ptType)
		p.uint(fuchsiair.ValueTypeUnit, ptUnit)
		p.end(at)
	}
	p.int(fuchsiair.ProfilePeriod, ff.Period)
	for _, c := range comments {
		// One field per comment, not packed: as pprof writes them.
		p.key(fuchsiair.ProfileComment, fuchsiair.WireVarint)
		p.varint(c)
	}
	p.uint(fuchsiair.ProfileDefaultSampleType, def)
	p.uint(fuchsiair.ProfileDocURL, doc)
	return p.b, nil
}

// sample writes node i of s as a Sample.
func (e *encoder) sample(s *ir.Snapshot, i int) {
	fx := fuchsiair.Of(s)
	ff := fuchsiair.FileOf(e.f)
	p := &e.p
	at := p.begin(fuchsiair.ProfileSample)
	// Location ids, packed.
	st := fx.StackOf(int(fx.Stack[i]))
	if len(st) > 0 {
		lat := p.begin(fuchsiair.SampleLocationID)
		for _, l := range st {
			p.varint(ff.Locations.ID[l])
		}
		p.end(lat)
	}
	vat := p.begin(fuchsiair.SampleValue)
	// pprof's values are int64 (prepare reports the capped ones).
	p.varint(min(fx.Count.At(i), math.MaxInt64))
	p.varint(min(s.Nodes.SelfSize.At(i), math.MaxInt64))
	if extra := len(ff.SampleTypes) - 2; extra > 0 {
		for _, v := range fx.ExtraValues[i*extra : (i+1)*extra] {
			p.varint(uint64(v))
		}
	}
	p.end(vat)

	fl := fx.Flags[i]
	strLabel := func(key string, v uint64) {
		a := p.begin(fuchsiair.SampleLabel)
		p.uint(fuchsiair.LabelKey, e.k(key))
		p.uint(fuchsiair.LabelStr, v)
		p.end(a)
	}
	numLabel := func(key string, v int64, unit string) {
		a := p.begin(fuchsiair.SampleLabel)
		p.uint(fuchsiair.LabelKey, e.k(key))
		p.int(fuchsiair.LabelNum, v)
		if unit != "" {
			p.uint(fuchsiair.LabelNumUnit, e.k(unit))
		}
		p.end(a)
	}
	if fx.HasProcessName {
		strLabel(fuchsiair.ProcessNameLabel, e.str(fx.ProcessName))
	}
	if fx.HasProcessKoid {
		numLabel(fuchsiair.ProcessKoidLabel, fx.ProcessKoid, "")
	}
	if fl&fuchsiair.FlagAddress != 0 {
		// Addresses are unique: not worth a map entry each. Spelled on
		// the stack, kept in one allocation of their size.
		var buf [18]byte
		e.strs = append(e.strs, append([]byte(nil), fuchsiair.AppendAddress(buf[:0], s.Nodes.ID.At(i))...))
		strLabel(fuchsiair.AddressLabel, uint64(len(e.strs)-1))
	}
	if fl&fuchsiair.FlagBytes != 0 {
		numLabel(fuchsiair.BytesLabel, int64(s.Nodes.SelfSize.At(i)), fuchsiair.BytesUnit)
	}
	if fl&fuchsiair.FlagTimestamp != 0 {
		numLabel(fuchsiair.TimestampLabel, fx.Timestamp[i], fuchsiair.NanosecondsUnit)
	}
	if len(fx.Thread) > 0 && fx.Thread[i] != 0 {
		names := e.thread[s]
		if names == nil {
			for t := range fx.ThreadName {
				name := e.f.Strings[fx.ThreadName[t]]
				if !fx.ThreadBare[t] {
					name = string(fuchsiair.AppendThread(nil, name, fx.ThreadKoid[t]))
				}
				names = append(names, e.text(name))
			}
			e.thread[s] = names
		}
		strLabel(fuchsiair.ThreadLabel, names[fx.Thread[i]-1])
	}
	if len(fx.LabelFirst) > 0 {
		for j := fx.LabelFirst[i]; j < fx.LabelFirst[i+1]; j++ {
			a := p.begin(fuchsiair.SampleLabel)
			p.uint(fuchsiair.LabelKey, e.str(fx.LabelKey[j]))
			if fx.LabelNumeric[j] {
				p.int(fuchsiair.LabelNum, fx.LabelNum[j])
				p.uint(fuchsiair.LabelNumUnit, e.str(fx.LabelUnit[j]))
			} else {
				p.uint(fuchsiair.LabelStr, e.str(fx.LabelStr[j]))
			}
			p.end(a)
		}
	}
	p.end(at)
}
