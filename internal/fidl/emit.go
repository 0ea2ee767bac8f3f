package fidl

import (
	"fmt"
	"math/rand/v2"
)

// Collector limits (collector/src/process_v1.rs, heapdump_snapshot's
// streamer.rs).
const (
	// MaxStackChunk is MAX_ENTRIES_PER_CHUNK: program addresses per
	// StackTrace element.
	MaxStackChunk = 32
	// MaxContentsChunk is MAX_DATA_PER_CHUNK: bytes per BlockContents
	// element.
	MaxContentsChunk = 1024
	// MaxMessageBytes is ZX_CHANNEL_MAX_MSG_BYTES, the bound on a batch
	// message.
	MaxMessageBytes = 65536
	// emptyBatchBytes is the message header plus the vector header.
	emptyBatchBytes = 16 + 16
)

// Process is what the collector holds for one process: the input of Emit.
type Process struct {
	// Name and Koid go into the SnapshotHeader of a multi-process stream.
	Name string
	Koid uint64
	// Elements, in the order they are sent within each kind. StackTraces
	// hold whole traces and Contents whole blocks; Emit cuts them into
	// chunks.
	Allocations []Allocation
	Threads     []ThreadInfo
	StackTraces []StackTrace
	Regions     []ExecutableRegion
	Contents    []BlockContents
}

// streamer batches elements as heapdump_snapshot's Streamer does.
type streamer struct {
	s    *Stream
	size int
	n    int
}

func (st *streamer) push(e *Element) {
	es := e.WireSize()
	// The Streamer flushes whenever the element would not fit, even when
	// its buffer is empty (an element that big cannot be sent at all); it
	// never sends such a lone flush here, as that would end the snapshot.
	if st.size+es > MaxMessageBytes && st.n > 0 {
		st.flush()
	}
	st.s.Append(e)
	st.size += es
	st.n++
}

func (st *streamer) flush() {
	st.s.EndBatch()
	st.size, st.n = emptyBatchBytes, 0
}

// end is end_of_snapshot: the last batch, then an empty one.
func (st *streamer) end() {
	if st.n > 0 {
		st.flush()
	}
	st.flush()
}

// Emit builds the stream the collector sends for procs (process_v1.rs
// SnapshotV1::write_to, registry.rs take_and_send_live_snapshots): per
// process all Allocations, then the ThreadInfos, the StackTrace chunks (at
// most 32 addresses), the ExecutableRegions and the BlockContents chunks
// (at most 1024 bytes), batched so that no message exceeds 65536 bytes,
// then an empty batch. A multi-process stream opens each process with a
// batch holding only its SnapshotHeader and ends with one more empty
// batch. A single-process stream takes exactly one process.
//
// One deviation: the collector sends nothing for a stack trace without
// addresses (its receiver then rejects the dangling key); Emit sends one
// empty chunk. Blocks without contents send nothing, as in the collector.
func Emit(procs []Process, multiProcess bool) (*Stream, error) {
	if !multiProcess && len(procs) != 1 {
		return nil, fmt.Errorf("fuchsia-fidl: a single-process stream holds one process, not %d", len(procs))
	}
	s := NewStream(multiProcess)
	var e Element
	for pi := range procs {
		p := &procs[pi]
		if multiProcess {
			e = Element{Kind: KindSnapshotHeader, SnapshotHeader: SnapshotHeader{ProcessName: p.Name, ProcessKoid: p.Koid}}
			e.SnapshotHeader.Present.Set(SnapshotHeaderProcessName)
			e.SnapshotHeader.Present.Set(SnapshotHeaderProcessKoid)
			s.Append(&e)
			s.EndBatch()
		}
		st := &streamer{s: s, size: emptyBatchBytes}
		e.Kind = KindAllocation
		for i := range p.Allocations {
			e.Allocation = p.Allocations[i]
			st.push(&e)
		}
		e.Kind = KindThreadInfo
		for i := range p.Threads {
			e.ThreadInfo = p.Threads[i]
			st.push(&e)
		}
		e.Kind = KindStackTrace
		for i := range p.StackTraces {
			t := p.StackTraces[i]
			all := t.ProgramAddresses
			for off := 0; off < len(all) || off == 0; off += MaxStackChunk {
				end := min(off+MaxStackChunk, len(all))
				t.ProgramAddresses = all[off:end:end]
				e.StackTrace = t
				st.push(&e)
			}
		}
		e.Kind = KindExecutableRegion
		for i := range p.Regions {
			e.ExecutableRegion = p.Regions[i]
			st.push(&e)
		}
		e.Kind = KindBlockContents
		for i := range p.Contents {
			b := p.Contents[i]
			all := b.Contents
			// An empty block's contents are one empty chunk: without it
			// the receiver cannot tell them from none.
			for off := 0; off < len(all) || off == 0; off += MaxContentsChunk {
				end := min(off+MaxContentsChunk, len(all))
				b.Contents = all[off:end:end]
				e.BlockContents = b
				st.push(&e)
			}
		}
		st.end()
	}
	if multiProcess {
		s.EndBatch()
	}
	return s, nil
}

// SyntheticOptions shape the processes Synthetic makes. Zero values pick
// the defaults.
type SyntheticOptions struct {
	Processes   int // default 1
	Allocations int // per process, default 200
	StackTraces int // distinct traces per process, default Allocations/4+1
	Threads     int // default 4
	Modules     int // ELF modules, one or two executable segments each; default 4
	// MaxStackDepth bounds trace depth; default 64 (the instrumentation's
	// STACK_TRACE_MAXIMUM_DEPTH).
	MaxStackDepth int
	// MaxBlockSize bounds allocation sizes; default 4096.
	MaxBlockSize int
	// Contents adds every block's contents (with_contents), with pointers
	// to other blocks in them.
	Contents bool
	// Aggregated makes kernel-collector-like entries: no address, thread or
	// timestamp, a count above 1.
	Aggregated bool
}

var moduleNames = []string{"<main>", "libc.so", "libfdio.so", "libc++.so.2", "libasync-default.so",
	"libsyslog.so", "libzircon.so", "libtrace-engine.so", "libbackend_fuchsia_globals.so"}

var threadNames = []string{"initial-thread", "worker-%d", "fidl-loop-%d", "pthread-%d", "vfs-%d"}

// Synthetic makes realistic heapdump processes from a seed: modules at
// page-aligned load addresses with 20- or 32-byte build IDs and vaddrs,
// stack traces whose frames lie in the modules (leaf first, starting in
// the allocator hook in libc.so), threads with Fuchsia-like names,
// 16-aligned non-overlapping blocks with increasing timestamps, and
// optionally contents. The same seed and options give the same processes.
// Feed the result to Emit to get the stream the collector would send.
func Synthetic(seed int64, o SyntheticOptions) []Process {
	if o.Processes <= 0 {
		o.Processes = 1
	}
	if o.Allocations <= 0 {
		o.Allocations = 200
	}
	if o.StackTraces <= 0 {
		o.StackTraces = o.Allocations/4 + 1
	}
	if o.Threads <= 0 {
		o.Threads = 4
	}
	if o.Modules <= 0 {
		o.Modules = 4
	}
	if o.MaxStackDepth <= 0 {
		o.MaxStackDepth = 64
	}
	if o.MaxBlockSize <= 0 {
		o.MaxBlockSize = 4096
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 0x6865617064756d70))
	procs := make([]Process, o.Processes)
	for pi := range procs {
		procs[pi] = syntheticProcess(rng, o, pi)
	}
	return procs
}

func syntheticProcess(rng *rand.Rand, o SyntheticOptions, pi int) Process {
	p := Process{Name: fmt.Sprintf("app-%d.cm", pi), Koid: 20000 + uint64(pi)*1000 + rng.Uint64N(500)}
	if pi == 0 {
		p.Name = "heapdump-example.cm"
	}

	// Modules: each has one or two executable PT_LOAD segments.
	type segment struct{ start, end uint64 }
	var code []segment
	base := uint64(0x4_0000_0000) + rng.Uint64N(0x1000)<<20
	for m := 0; m < o.Modules; m++ {
		name := moduleNames[m%len(moduleNames)]
		if m >= len(moduleNames) {
			name = fmt.Sprintf("libmodule%d.so", m)
		}
		id := make([]byte, 20)
		if rng.IntN(4) == 0 {
			id = make([]byte, 32)
		}
		for i := range id {
			id[i] = byte(rng.Uint32())
		}
		vaddr := uint64(0x1000 * (1 + rng.IntN(4)))
		for seg := 0; seg < 1+rng.IntN(2); seg++ {
			size := uint64(0x1000 * (1 + rng.IntN(64)))
			r := ExecutableRegion{
				Address: base + vaddr, Size: size, FileOffset: vaddr,
				BuildID: BuildID{Value: id}, Vaddr: vaddr, Name: name,
			}
			for _, ord := range []int{RegionAddress, RegionSize, RegionFileOffset, RegionBuildID, RegionVaddr, RegionName} {
				r.Present.Set(ord)
			}
			p.Regions = append(p.Regions, r)
			code = append(code, segment{r.Address, r.Address + size})
			vaddr += size + 0x1000*uint64(rng.IntN(3))
		}
		base += (vaddr + 0x10000 + rng.Uint64N(0x100)<<12) &^ 0xfff
	}
	pc := func(seg int) uint64 {
		s := code[seg%len(code)]
		return s.start + rng.Uint64N(s.end-s.start)
	}
	hook := pc(min(1, len(code)-1)) // the allocator hook, in libc.so

	// Stack traces, keyed like resource-table offsets.
	keys := make([]uint64, o.StackTraces)
	key := uint64(0x10)
	for i := range keys {
		depth := 1 + min(rng.IntN(o.MaxStackDepth), rng.IntN(o.MaxStackDepth))
		addrs := make([]uint64, depth)
		addrs[0] = hook
		for j := 1; j < depth; j++ {
			addrs[j] = pc(rng.IntN(len(code)))
		}
		t := StackTrace{Key: key, ProgramAddresses: addrs}
		t.Present.Set(StackTraceKey)
		t.Present.Set(StackTraceProgramAddresses)
		p.StackTraces = append(p.StackTraces, t)
		keys[i] = key
		key += 8 + 8*uint64(depth)
	}

	// Threads.
	tkeys := make([]uint64, o.Threads)
	for i := range tkeys {
		name := threadNames[0]
		if i > 0 {
			name = fmt.Sprintf(threadNames[1+rng.IntN(len(threadNames)-1)], i)
		}
		t := ThreadInfo{Key: key, Koid: p.Koid + 1 + uint64(i)*2, Name: name}
		t.Present.Set(ThreadInfoKey)
		t.Present.Set(ThreadInfoKoid)
		t.Present.Set(ThreadInfoName)
		p.Threads = append(p.Threads, t)
		tkeys[i] = key
		key += 48
	}

	// Blocks.
	addr := uint64(0x2_0000_0000) + rng.Uint64N(0x1000)<<16
	ts := int64(2_000_000_000 + rng.Int64N(1_000_000_000))
	for i := 0; i < o.Allocations; i++ {
		size := uint64(1 + rng.IntN(min(o.MaxBlockSize, 256)))
		if rng.IntN(10) == 0 {
			size = uint64(1 + rng.IntN(o.MaxBlockSize))
		}
		a := Allocation{Size: size, StackTraceKey: keys[rng.IntN(len(keys))]}
		a.Present.Set(AllocationSize)
		a.Present.Set(AllocationStackTraceKey)
		if o.Aggregated {
			a.Count = 2 + rng.Uint64N(50)
			a.Size = size * a.Count
			a.Present.Set(AllocationCount)
		} else {
			a.Address = addr
			a.Timestamp = ts
			a.ThreadInfoKey = tkeys[rng.IntN(len(tkeys))]
			a.Present.Set(AllocationAddress)
			a.Present.Set(AllocationTimestamp)
			a.Present.Set(AllocationThreadInfoKey)
		}
		p.Allocations = append(p.Allocations, a)
		addr += (size + 15 + 16*uint64(rng.IntN(4))) &^ 15
		ts += 1000 + rng.Int64N(5_000_000)
	}
	// The allocations table is a hash table: the collector sends blocks in
	// no particular order.
	rng.Shuffle(len(p.Allocations), func(i, j int) { p.Allocations[i], p.Allocations[j] = p.Allocations[j], p.Allocations[i] })

	if o.Contents && !o.Aggregated {
		for i := range p.Allocations {
			a := &p.Allocations[i]
			data := make([]byte, a.Size)
			for off := 0; off+8 <= len(data); off += 8 {
				var w uint64
				switch rng.IntN(4) {
				case 0: // a pointer to (or into) another block
					b := &p.Allocations[rng.IntN(len(p.Allocations))]
					w = b.Address + 8*rng.Uint64N(b.Size/8+1)
				case 1: // small integer
					w = rng.Uint64N(1000)
				case 2: // text
					w = 0x2173692073696854 // "This is!"
				}
				for k := range 8 {
					data[off+k] = byte(w >> (8 * k))
				}
			}
			if rng.IntN(20) == 0 {
				continue // the collector skips blocks it failed to read
			}
			b := BlockContents{Address: a.Address, Contents: data}
			b.Present.Set(BlockContentsAddress)
			b.Present.Set(BlockContentsContents)
			p.Contents = append(p.Contents, b)
		}
	}
	return p
}
