package fuchsiagen

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/google/pprof/profile"
)

// Era selects which ffx generation's pprof export to reproduce
// (docs/formats/fuchsia.md, Eras).
type Era int

const (
	// Era2023 is the initial export (gnoliyil/fuchsia@1ab08c2b): one sample
	// per block, value [1, size], labels address and bytes only, mappings
	// without filename, uncompressed. The snapshot was a HashMap keyed by
	// address, so allocations, samples and mappings come out in hash order.
	Era2023 Era = iota + 1
	// EraWithTags (misttech/mist-os@051562f9) adds --with-tags: per-block
	// samples with labels address, bytes, timestamp and thread, value
	// [1, size]; without it samples are grouped by location list, value
	// [number of blocks, total size], no labels. Still hash order and
	// uncompressed; every allocation has an address, thread and timestamp.
	EraWithTags
	// EraCurrent (misttech/fuchsia@ac198577): value [count, size];
	// address, timestamp and thread optional; mapping filename;
	// --symbolize; --multi-process labels process_name and process_koid
	// first; allocations in receive order, mappings sorted by start,
	// aggregated groups sorted by location-id list; uncompressed. The
	// symbolizer is asked about the PC itself.
	EraCurrent
	// EraNewest (chenhunghan/fuchsia-mirror@b9d16653): as EraCurrent, but
	// gzipped, and the symbolizer resolves PCs as return addresses
	// (AddressType::Return: the call instruction before the PC).
	EraNewest
)

var eraNames = map[Era]string{Era2023: "2023", EraWithTags: "withtags", EraCurrent: "current", EraNewest: "newest"}

// String gives the era's name.
func (e Era) String() string {
	if n, ok := eraNames[e]; ok {
		return n
	}
	return fmt.Sprintf("Era(%d)", int(e))
}

// ParseEra parses "2023", "withtags", "current" or "newest".
func ParseEra(s string) (Era, error) {
	for e, n := range eraNames {
		if n == s {
			return e, nil
		}
	}
	return 0, fmt.Errorf("fuchsiagen: unknown era %q (2023, withtags, current, newest)", s)
}

// Compression selects the file's compression.
type Compression int

const (
	// CompressDefault is what the era's ffx does: gzip for EraNewest,
	// none for the others.
	CompressDefault Compression = iota
	// CompressNone writes the bare protobuf.
	CompressNone
	// CompressGzip gzips the protobuf.
	CompressGzip
)

// WriteOptions are the ffx flags that shape the profile.
type WriteOptions struct {
	Era Era
	// WithTags is --with-tags (ignored by Era2023, which always writes
	// per-block samples). `ffx profile heapdump snapshot` forces it when
	// --output-contents-dir is given.
	WithTags bool
	// Symbolize is --symbolize (EraCurrent and EraNewest); Symbolizer must
	// then be set.
	Symbolize  bool
	Symbolizer Symbolizer
	// MultiProcess is --multi-process (EraCurrent and EraNewest): every
	// sample of a snapshot gets the labels process_name (string) and
	// process_koid (number, no unit) first. Without it there must be
	// exactly one snapshot.
	MultiProcess bool
	Compression  Compression
}

// BuildProfile builds the Profile the era's ffx would write for the
// snapshots.
func BuildProfile(snaps []*Snapshot, o WriteOptions) (*profile.Profile, error) {
	if o.Era < Era2023 || o.Era > EraNewest {
		return nil, fmt.Errorf("fuchsiagen: bad era %d", int(o.Era))
	}
	if len(snaps) == 0 {
		return nil, errors.New("fuchsiagen: no snapshot")
	}
	for _, s := range snaps {
		if err := s.Validate(); err != nil {
			return nil, err
		}
	}
	multiSnaps := len(snaps) > 1
	for _, s := range snaps {
		if s.ExtraLabels != nil {
			multiSnaps = false // ffx's own two-snapshot test
		}
	}
	if multiSnaps && !o.MultiProcess {
		return nil, errors.New("fuchsiagen: several snapshots need MultiProcess")
	}
	if o.Symbolize && o.Symbolizer == nil {
		return nil, errors.New("fuchsiagen: Symbolize without a Symbolizer")
	}
	p := &profile.Profile{SampleType: []*profile.ValueType{
		{Type: "objects", Unit: "count"},
		{Type: "allocated", Unit: "bytes"},
	}}
	if o.Era <= EraWithTags {
		if len(snaps) != 1 || o.MultiProcess || o.Symbolize || snaps[0].ExtraLabels != nil {
			return nil, fmt.Errorf("fuchsiagen: era %v writes one snapshot, without --symbolize or --multi-process", o.Era)
		}
		if err := buildOld(p, snaps[0], o); err != nil {
			return nil, err
		}
		return p, nil
	}
	b := &builder{p: p, o: o, funcs: map[[2]string]*profile.Function{}, resolved: map[uint64]bool{}}
	for _, s := range snaps {
		b.add(s)
	}
	for _, m := range p.Mapping {
		if b.resolved[m.ID] {
			m.HasFunctions, m.HasFilenames, m.HasLineNumbers, m.HasInlineFrames = true, true, true, true
		}
	}
	return p, nil
}

// WriteProfile writes the profile the era's ffx would write.
func WriteProfile(w io.Writer, snaps []*Snapshot, o WriteOptions) error {
	p, err := BuildProfile(snaps, o)
	if err != nil {
		return err
	}
	gz := o.Compression == CompressGzip || o.Compression == CompressDefault && o.Era == EraNewest
	if gz {
		return p.Write(w)
	}
	return p.WriteUncompressed(w)
}

// ProfileBytes is WriteProfile into a byte slice.
func ProfileBytes(snaps []*Snapshot, o WriteOptions) ([]byte, error) {
	var buf bytes.Buffer
	if err := WriteProfile(&buf, snaps, o); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// mapper resolves a PC to the mapping containing it (ffx's ModuleMap;
// nil when no region contains it).
type mapper struct {
	ms []*profile.Mapping // sorted by start
	rs []*Region
}

func newMapper(ms []*profile.Mapping, rs []*Region) *mapper {
	m := &mapper{ms: append([]*profile.Mapping{}, ms...), rs: append([]*Region{}, rs...)}
	idx := make([]int, len(ms))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return ms[idx[a]].Start < ms[idx[b]].Start })
	for i, j := range idx {
		m.ms[i], m.rs[i] = ms[j], rs[j]
	}
	return m
}

func (m *mapper) resolve(addr uint64) (*profile.Mapping, *Region) {
	i := sort.Search(len(m.ms), func(i int) bool { return m.ms[i].Start > addr }) - 1
	if i < 0 || addr >= m.ms[i].Limit {
		return nil, nil
	}
	return m.ms[i], m.rs[i]
}

// hashOrder emulates the iteration order of the Rust HashMaps the old
// exports iterated: arbitrary, but fixed here so that output is
// deterministic.
func hashOrder(n int, key func(i int) uint64) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		return mix64(key(idx[a])^0x2545f4914f6cdd1d) < mix64(key(idx[b])^0x2545f4914f6cdd1d)
	})
	return idx
}

func mapping(id uint64, r *Region, withName bool) *profile.Mapping {
	m := &profile.Mapping{
		ID:      id,
		Start:   r.Address,
		Limit:   r.Limit(),
		Offset:  r.FileOffset,
		BuildID: hex.EncodeToString(r.BuildID),
	}
	if withName {
		m.File = r.Name
	}
	return m
}

// buildOld writes the Era2023 and EraWithTags layouts.
func buildOld(p *profile.Profile, s *Snapshot, o WriteOptions) error {
	for i := range s.Allocations {
		a := &s.Allocations[i]
		if !a.HasAddress {
			return fmt.Errorf("fuchsiagen: era %v: allocation %d has no address", o.Era, i)
		}
		if o.Era == EraWithTags && (a.Thread == nil || !a.HasTimestamp) {
			return fmt.Errorf("fuchsiagen: era %v: allocation 0x%x lacks a thread or timestamp", o.Era, a.Address)
		}
	}
	var rs []*Region
	for _, i := range hashOrder(len(s.Regions), func(i int) uint64 { return s.Regions[i].Address }) {
		r := &s.Regions[i]
		p.Mapping = append(p.Mapping, mapping(uint64(len(p.Mapping)+1), r, false))
		rs = append(rs, r)
	}
	mp := newMapper(p.Mapping, rs)
	order := hashOrder(len(s.Allocations), func(i int) uint64 { return s.Allocations[i].Address })
	locs := map[uint64]*profile.Location{}
	for _, i := range order {
		for _, pc := range s.Allocations[i].Stack {
			if locs[pc] == nil {
				m, _ := mp.resolve(pc)
				l := &profile.Location{ID: uint64(len(p.Location) + 1), Mapping: m, Address: pc}
				locs[pc] = l
				p.Location = append(p.Location, l)
			}
		}
	}
	stack := func(a *Allocation) []*profile.Location { return stackLocations(locs, a.Stack) }
	if o.Era == Era2023 || o.WithTags {
		for _, i := range order {
			a := &s.Allocations[i]
			smp := &profile.Sample{
				Location: stack(a),
				Value:    []int64{1, int64(a.Size)},
				Label:    map[string][]string{"address": {fmt.Sprintf("0x%x", a.Address)}},
				NumLabel: map[string][]int64{"bytes": {int64(a.Size)}},
				NumUnit:  map[string][]string{"bytes": {"bytes"}},
			}
			if o.Era == EraWithTags {
				smp.NumLabel["timestamp"] = []int64{a.Timestamp}
				smp.NumUnit["timestamp"] = []string{"nanoseconds"}
				smp.Label["thread"] = []string{a.Thread.Label()}
			}
			p.Sample = append(p.Sample, smp)
		}
		return nil
	}
	// Aggregated: grouped by location list, in (hash) map order; the count
	// is the number of blocks (there was no count field yet).
	type group struct {
		key   string
		locs  []*profile.Location
		n, sz int64
	}
	groups := map[string]*group{}
	var keys []*group
	for _, i := range order {
		a := &s.Allocations[i]
		ls := stack(a)
		k := locKey(ls)
		g := groups[k]
		if g == nil {
			g = &group{key: k, locs: ls}
			groups[k] = g
			keys = append(keys, g)
		}
		g.n++
		g.sz += int64(a.Size)
	}
	for _, i := range hashOrder(len(keys), func(i int) uint64 { return hashString(keys[i].key) }) {
		g := keys[i]
		p.Sample = append(p.Sample, &profile.Sample{Location: g.locs, Value: []int64{g.n, g.sz}})
	}
	return nil
}

// stackLocations maps a stack's program counters to their locations.
func stackLocations(locs map[uint64]*profile.Location, pcs []uint64) []*profile.Location {
	ls := make([]*profile.Location, len(pcs))
	for k, pc := range pcs {
		ls[k] = locs[pc]
	}
	return ls
}

func locKey(ls []*profile.Location) string {
	ids := make([]uint64, len(ls))
	for i, l := range ls {
		ids[i] = l.ID
	}
	return string(u64sKey(ids))
}

// builder is the EraCurrent/EraNewest PProfProfileBuilder.
type builder struct {
	p        *profile.Profile
	o        WriteOptions
	funcs    map[[2]string]*profile.Function
	resolved map[uint64]bool
}

func (b *builder) add(s *Snapshot) {
	p := b.p
	extra := s.extraLabels(b.o.MultiProcess)
	// Mappings sorted by start; IDs continue across snapshots.
	var rs []*Region
	for i := range s.Regions {
		rs = append(rs, &s.Regions[i])
	}
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].Address < rs[j].Address })
	var ms []*profile.Mapping
	for _, r := range rs {
		m := mapping(uint64(len(p.Mapping)+1), r, true)
		p.Mapping = append(p.Mapping, m)
		ms = append(ms, m)
	}
	mp := newMapper(ms, rs)
	// Locations: one per distinct PC of this snapshot, first seen first.
	locs := map[uint64]*profile.Location{}
	for i := range s.Allocations {
		for _, pc := range s.Allocations[i].Stack {
			if locs[pc] != nil {
				continue
			}
			m, r := mp.resolve(pc)
			l := &profile.Location{ID: uint64(len(p.Location) + 1), Mapping: m, Address: pc}
			if m != nil && b.o.Symbolize {
				l.Line = b.symbolize(m, r, pc)
			}
			locs[pc] = l
			p.Location = append(p.Location, l)
		}
	}
	stack := func(a *Allocation) []*profile.Location { return stackLocations(locs, a.Stack) }
	labels := func(smp *profile.Sample) {
		for _, e := range extra {
			if e.IsNum {
				if smp.NumLabel == nil {
					smp.NumLabel = map[string][]int64{}
				}
				smp.NumLabel[e.Key] = append(smp.NumLabel[e.Key], e.Num)
			} else {
				if smp.Label == nil {
					smp.Label = map[string][]string{}
				}
				smp.Label[e.Key] = append(smp.Label[e.Key], e.Str)
			}
		}
	}
	if b.o.WithTags {
		for i := range s.Allocations {
			a := &s.Allocations[i]
			smp := &profile.Sample{Location: stack(a), Value: []int64{int64(a.EffectiveCount()), int64(a.Size)}}
			labels(smp)
			if smp.Label == nil {
				smp.Label = map[string][]string{}
			}
			if smp.NumLabel == nil {
				smp.NumLabel = map[string][]int64{}
			}
			smp.NumUnit = map[string][]string{}
			if a.HasAddress {
				smp.Label["address"] = append(smp.Label["address"], fmt.Sprintf("0x%x", a.Address))
			}
			smp.NumLabel["bytes"] = append(smp.NumLabel["bytes"], int64(a.Size))
			smp.NumUnit["bytes"] = append(smp.NumUnit["bytes"], "bytes")
			if a.HasTimestamp {
				smp.NumLabel["timestamp"] = append(smp.NumLabel["timestamp"], a.Timestamp)
				smp.NumUnit["timestamp"] = append(smp.NumUnit["timestamp"], "nanoseconds")
			}
			if a.Thread != nil {
				smp.Label["thread"] = append(smp.Label["thread"], a.Thread.Label())
			}
			if len(smp.Label) == 0 {
				smp.Label = nil
			}
			p.Sample = append(p.Sample, smp)
		}
		return
	}
	// Aggregated: grouped by location-id list, sorted by it.
	type group struct {
		ids   []uint64
		locs  []*profile.Location
		n, sz uint64
	}
	groups := map[string]*group{}
	var gs []*group
	for i := range s.Allocations {
		a := &s.Allocations[i]
		ls := stack(a)
		k := locKey(ls)
		g := groups[k]
		if g == nil {
			g = &group{locs: ls}
			for _, l := range ls {
				g.ids = append(g.ids, l.ID)
			}
			groups[k] = g
			gs = append(gs, g)
		}
		g.n += a.EffectiveCount()
		g.sz += a.Size
	}
	sort.Slice(gs, func(i, j int) bool { return lessU64s(gs[i].ids, gs[j].ids) })
	for _, g := range gs {
		smp := &profile.Sample{Location: g.locs, Value: []int64{int64(g.n), int64(g.sz)}}
		labels(smp)
		p.Sample = append(p.Sample, smp)
	}
}

// lessU64s orders like Rust's Ord for Vec<u64>.
func lessU64s(a, b []uint64) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return len(a) < len(b)
}

// symbolize resolves one PC of mapping m (region r) into Lines, marking
// the mapping resolved unless its symbol file is unavailable.
func (b *builder) symbolize(m *profile.Mapping, r *Region, pc uint64) []profile.Line {
	addr := pc - (r.Address - r.Vaddr)
	if b.o.Era == EraNewest {
		addr-- // AddressType::Return: look up the call instruction
	}
	frames, err := b.o.Symbolizer.Resolve(r.BuildID, addr)
	switch {
	case err == nil:
		b.resolved[m.ID] = true
	case errors.Is(err, ErrSymbolNotFound):
		b.resolved[m.ID] = true
		return nil
	default:
		return nil
	}
	lines := make([]profile.Line, 0, len(frames))
	for _, f := range frames {
		k := [2]string{f.Function, f.File}
		fn := b.funcs[k]
		if fn == nil {
			fn = &profile.Function{ID: uint64(len(b.p.Function) + 1), Name: f.Function, Filename: f.File}
			b.funcs[k] = fn
			b.p.Function = append(b.p.Function, fn)
		}
		lines = append(lines, profile.Line{Function: fn, Line: f.Line})
	}
	return lines
}

// ContentsFileName is the name ffx gives a block's contents file:
// "0x<addr>" (lowercase hex, no padding), prefixed with "<koid>-" (decimal)
// with --multi-process.
func ContentsFileName(processKoid, address uint64, multiProcess bool) string {
	if multiProcess {
		return fmt.Sprintf("%d-0x%x", processKoid, address)
	}
	return fmt.Sprintf("0x%x", address)
}

// WriteContentsDir writes the --output-contents-dir directory as ffx does:
// the directory must be empty or absent (it is then created, not
// recursively); one file per allocation that has contents, exactly Size
// bytes; blocks without contents (unreadable) get no file.
func WriteContentsDir(dir string, snaps []*Snapshot, multiProcess bool) error {
	if f, err := os.Open(dir); err == nil {
		names, _ := f.Readdirnames(1)
		f.Close()
		if len(names) > 0 {
			return fmt.Errorf("Output directory is not empty: %s", dir)
		}
	} else if err := os.Mkdir(dir, 0o755); err != nil {
		return fmt.Errorf("Failed to create output directory: %s: %v", dir, err)
	}
	for _, s := range snaps {
		for i := range s.Allocations {
			a := &s.Allocations[i]
			if a.Contents == nil {
				continue
			}
			if !a.HasAddress {
				return errors.New("Cannot to create an output file for an allocation without address.")
			}
			path := filepath.Join(dir, ContentsFileName(s.ProcessKoid, a.Address, multiProcess))
			if err := os.WriteFile(path, a.Contents, 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// WriteSnapshotCommand writes what `ffx profile heapdump snapshot
// --output-file profilePath [--output-contents-dir contentsDir]` writes:
// the contents directory first (when contentsDir is not empty, which also
// forces WithTags), then the profile.
func WriteSnapshotCommand(profilePath, contentsDir string, snaps []*Snapshot, o WriteOptions) error {
	if contentsDir != "" {
		if err := WriteContentsDir(contentsDir, snaps, o.MultiProcess); err != nil {
			return err
		}
		o.WithTags = true
	}
	data, err := ProfileBytes(snaps, o)
	if err != nil {
		return err
	}
	return os.WriteFile(profilePath, data, 0o644)
}
