package fuchsiagen

import (
	"fmt"
	"sort"
)

// Thread is the ThreadInfo a collector reports for an allocating thread.
// Several ThreadInfo entries may share a koid (the thread was renamed).
type Thread struct {
	Name string // ZX_PROP_NAME, at most 32 bytes
	Koid uint64
}

// Label renders the thread the way ffx writes the `thread` label:
// "name[koid]".
func (t Thread) Label() string { return fmt.Sprintf("%s[%d]", t.Name, t.Koid) }

// Allocation is one Allocation element as the host-side heapdump_snapshot
// crate reassembles it: one live block, or (count > 1, no address) an
// aggregate of blocks such as the kernel collector sends.
type Allocation struct {
	// Address is the block's address; meaningful only if HasAddress.
	Address    uint64
	HasAddress bool
	// Size is the total size in bytes (the size requested from the
	// allocator, not the usable size).
	Size uint64
	// Count is the FIDL `count` field (API level 29). 0 means the field was
	// not sent, which the receiver treats as 1; see EffectiveCount.
	Count uint64
	// Stack holds the program addresses, leaf first (the allocator hook
	// frames come first). Allocations may share the slice.
	Stack []uint64
	// Thread is the allocating thread, or nil if not reported.
	Thread *Thread
	// Timestamp is zx.InstantMono in nanoseconds; meaningful only if
	// HasTimestamp. It may be negative.
	Timestamp    int64
	HasTimestamp bool
	// Contents is the block's bytes (len == Size) if the collector read
	// them, nil otherwise (no contents requested, or the read failed).
	Contents []byte
}

// EffectiveCount is the block count ffx uses for the allocation: Count, or 1
// if the field was not sent.
func (a *Allocation) EffectiveCount() uint64 {
	if a.Count == 0 {
		return 1
	}
	return a.Count
}

// Region is an ExecutableRegion: one executable PT_LOAD segment of a module
// loaded in the process.
type Region struct {
	Address    uint64 // runtime start (load bias + p_vaddr)
	Size       uint64 // p_memsz
	FileOffset uint64 // p_offset (the kernel collector writes start - rel_addr)
	Vaddr      uint64 // p_vaddr; not written to pprof
	BuildID    []byte // at most 32 bytes
	Name       string // ELF soname or VMO name; "" if unknown
}

// Limit is the end of the region (Address + Size).
func (r *Region) Limit() uint64 { return r.Address + r.Size }

// ExtraLabel is a label that ffx adds to every sample of a snapshot
// (`process_name`/`process_koid` with --multi-process). A string label has
// IsNum false; a numeric one is written without a unit.
type ExtraLabel struct {
	Key   string
	Str   string
	Num   int64
	IsNum bool
}

// Snapshot is what a collector sends for one process (heapdump_snapshot's
// Snapshot plus the SnapshotHeader of multi-process streams).
type Snapshot struct {
	ProcessName string // SnapshotHeader.process_name (multi-process only)
	ProcessKoid uint64 // SnapshotHeader.process_koid (multi-process only)
	// Regions are the executable regions, in the order the collector sent
	// them. Their ranges must not overlap.
	Regions []Region
	// Allocations are in receive order.
	Allocations []Allocation
	// ExtraLabels, if non-nil, replaces the labels ffx would derive from
	// the process with WriteOptions.MultiProcess (used to reproduce ffx's
	// two-snapshot unit test, which passes arbitrary extra labels).
	ExtraLabels []ExtraLabel
}

// extraLabels returns the template labels of every sample of s.
func (s *Snapshot) extraLabels(multi bool) []ExtraLabel {
	if s.ExtraLabels != nil {
		return s.ExtraLabels
	}
	if !multi {
		return nil
	}
	return []ExtraLabel{
		{Key: "process_name", Str: s.ProcessName},
		{Key: "process_koid", Num: int64(s.ProcessKoid), IsNum: true},
	}
}

// Validate checks the constraints the host-side receiver enforces: at most
// 32-byte build IDs, no two regions starting at the same address or
// overlapping (ffx's ModuleMapBuilder rejects overlaps), no duplicate
// addresses, contents of exactly Size bytes and only on allocations that
// have an address.
func (s *Snapshot) Validate() error {
	rs := make([]*Region, len(s.Regions))
	for i := range s.Regions {
		r := &s.Regions[i]
		if len(r.BuildID) > 32 {
			return fmt.Errorf("region 0x%x: build ID of %d bytes (max 32)", r.Address, len(r.BuildID))
		}
		if r.Size == 0 || r.Address+r.Size < r.Address {
			return fmt.Errorf("region 0x%x: bad size 0x%x", r.Address, r.Size)
		}
		rs[i] = r
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].Address < rs[j].Address })
	for i := 1; i < len(rs); i++ {
		if rs[i].Address < rs[i-1].Limit() {
			return fmt.Errorf("regions 0x%x and 0x%x overlap", rs[i-1].Address, rs[i].Address)
		}
	}
	seen := make(map[uint64]bool, len(s.Allocations))
	for i := range s.Allocations {
		a := &s.Allocations[i]
		if a.HasAddress {
			if seen[a.Address] {
				return fmt.Errorf("allocation %d: duplicate address 0x%x", i, a.Address)
			}
			seen[a.Address] = true
		}
		if a.Contents != nil {
			if !a.HasAddress {
				return fmt.Errorf("allocation %d: contents without an address", i)
			}
			if uint64(len(a.Contents)) != a.Size {
				return fmt.Errorf("allocation 0x%x: %d content bytes for size %d", a.Address, len(a.Contents), a.Size)
			}
		}
		if a.Thread != nil && len(a.Thread.Name) > 32 {
			return fmt.Errorf("allocation %d: thread name longer than 32 bytes", i)
		}
	}
	return nil
}
