package fuchsiagen

// The kernel collector (kernel-collector/src/kernel_collector.rs) reads the
// Zircon heap profiler's buffer: one entry per distinct backtrace with live
// count and live bytes. It sends the executable regions it parses from the
// kernel's symbolizer markup (no name; file_offset = start − rel_addr on
// purpose, vaddr = rel_addr), then, popping entries from the end of the
// buffer, a StackTrace{key=i} and an Allocation{count, size, key=i} per
// entry with live bytes: no address, thread or timestamp.
//
// The kernel's function names below are made up in Zircon's style: no
// real kernel stacks were available.

const kernelModule = "kernel"

// kernelFuncs are "name|file|line"; the first four are the allocation path
// (caller first), the next ones the callers.
var kernelFuncs = []string{
	"operator new(unsigned long, fbl::AllocChecker*)|../../zircon/kernel/lib/heap/new.cc|31",
	"malloc|../../zircon/kernel/lib/heap/heap_wrapper.cc|276",
	"heap::Heap::Allocate(unsigned long, unsigned long, void*)|../../zircon/kernel/lib/heap/heap_wrapper.cc|198",
	"heap_profiler::RecordAllocation(void*, unsigned long)|../../zircon/kernel/lib/heap/profiler.cc|88",
	// Entry points (root first).
	"arm64_el0_sync_exc_handler|../../zircon/kernel/arch/arm64/exceptions_c.cc|339",
	"arm64_syscall_dispatcher|../../zircon/kernel/arch/arm64/syscall.cc|41",
	"thread_trampoline|../../zircon/kernel/kernel/thread.cc|408",
	"Thread::Current::ProcessPendingSignals(GeneralRegsSource, void*)|../../zircon/kernel/kernel/thread.cc|1301",
	// System calls.
	"sys_vmo_create(unsigned long, unsigned int, zx_handle_t*)|../../zircon/kernel/lib/syscalls/vmo.cc|41",
	"sys_channel_create(unsigned int, zx_handle_t*, zx_handle_t*)|../../zircon/kernel/lib/syscalls/channel.cc|42",
	"sys_channel_write(zx_handle_t, unsigned int, user_in_ptr<void const>, unsigned int, user_in_ptr<unsigned int const>, unsigned int)|../../zircon/kernel/lib/syscalls/channel.cc|367",
	"sys_port_create(unsigned int, zx_handle_t*)|../../zircon/kernel/lib/syscalls/port.cc|28",
	"sys_thread_create(zx_handle_t, user_in_ptr<char const>, unsigned long, unsigned int, zx_handle_t*)|../../zircon/kernel/lib/syscalls/task.cc|85",
	"sys_vmar_map(zx_handle_t, unsigned int, unsigned long, zx_handle_t, unsigned long, unsigned long, user_out_ptr<unsigned long>)|../../zircon/kernel/lib/syscalls/vmar.cc|113",
	// Objects.
	"VmObjectPaged::Create(unsigned int, unsigned int, unsigned long, fbl::RefPtr<VmObjectPaged>*)|../../zircon/kernel/vm/vm_object_paged.cc|254",
	"VmCowPages::Create(fbl::RefPtr<VmHierarchyState>, VmCowPagesOptions, unsigned int, unsigned long, ktl::unique_ptr<DiscardableVmoTracker>, fbl::RefPtr<VmCowPages>*)|../../zircon/kernel/vm/vm_cow_pages.cc|563",
	"VmAddressRegion::CreateVmMapping(unsigned long, unsigned long, unsigned char, unsigned int, fbl::RefPtr<VmObject>, unsigned long, unsigned int, char const*, fbl::RefPtr<VmMapping>*)|../../zircon/kernel/vm/vm_address_region.cc|291",
	"ChannelDispatcher::Create(KernelHandle<ChannelDispatcher>*, KernelHandle<ChannelDispatcher>*, unsigned int*)|../../zircon/kernel/object/channel_dispatcher.cc|54",
	"MessagePacket::Create(user_in_ptr<void const>, unsigned int, unsigned int, ktl::unique_ptr<MessagePacket, MessagePacket::MessagePacketDeleter>*)|../../zircon/kernel/object/message_packet.cc|98",
	"PortDispatcher::Create(unsigned int, KernelHandle<PortDispatcher>*, unsigned int*)|../../zircon/kernel/object/port_dispatcher.cc|160",
	"ThreadDispatcher::Create(fbl::RefPtr<ProcessDispatcher>, unsigned int, ktl::basic_string_view<char>, KernelHandle<ThreadDispatcher>*, unsigned int*)|../../zircon/kernel/object/thread_dispatcher.cc|59",
	"Handle::Make(fbl::RefPtr<Dispatcher>, unsigned int)|../../zircon/kernel/object/handle.cc|119",
	"BlockingMutex::Acquire()|../../zircon/kernel/kernel/mutex.cc|155",
	"PmmNode::AllocPages(unsigned long, unsigned int, list_node*)|../../zircon/kernel/vm/pmm_node.cc|404",
}

// kernelSnapshot builds the kernel collector's snapshot.
func (g *generator) kernelSnapshot() *Snapshot {
	r := newRNG(g.opt.Seed, hashString("kernel"))
	l := g.layouts[kernelModule]
	// KASLR: the kernel lives in the top of the address space.
	base := uint64(0xffffffff00000000) + r.rangeU(0x10, 0x7fff)<<16
	relAddr := l.textVaddr
	start := base + relAddr
	s := &Snapshot{ProcessName: "kernel", ProcessKoid: 1}
	s.Regions = []Region{{
		Address:    start,
		Size:       l.textSize,
		FileOffset: start - relAddr,
		Vaddr:      relAddr,
		BuildID:    l.buildID,
	}}
	pc := func(caller, callee string) uint64 { return base + g.retAddr(l, caller, callee) }
	name := func(i int) string { return splitN(kernelFuncs[i], 3)[0] }
	// Entry layers: root, syscall, object, helper.
	roots := []int{4, 6}
	syscalls := []int{8, 9, 10, 11, 12, 13}
	objects := []int{14, 15, 16, 17, 18, 19, 20}
	helpers := []int{21, 22, 23}
	n := g.opt.KernelEntries
	seen := map[string]bool{}
	var entries [][]uint64
	for tries := 0; len(entries) < n && tries < n*20; tries++ {
		var path []int // root first
		root := roots[r.intn(len(roots))]
		path = append(path, root)
		if root == 4 {
			path = append(path, 5, syscalls[r.intn(len(syscalls))])
		} else {
			path = append(path, 7)
		}
		for k := 1 + r.intn(3); k > 0; k-- {
			path = append(path, objects[r.intn(len(objects))])
		}
		if r.percent(40) {
			path = append(path, helpers[r.intn(len(helpers))])
		}
		path = append(path, 0, 1, 2, 3)
		var stack []uint64 // leaf first
		for i := len(path) - 1; i >= 0; i-- {
			callee := "<capture>"
			if i+1 < len(path) {
				callee = name(path[i+1])
			}
			stack = append(stack, pc(name(path[i]), callee))
		}
		key := string(u64sKey(stack))
		if seen[key] {
			continue
		}
		seen[key] = true
		entries = append(entries, stack)
	}
	// The collector pops entries from the end of the buffer.
	for i := len(entries) - 1; i >= 0; i-- {
		count := uint64(1 + r.geom(9, 10, 5000))
		if r.percent(5) {
			count += r.rangeU(1000, 20000)
		}
		avg := uint64(sizeClasses[r.intn(24)] - 16)
		s.Allocations = append(s.Allocations, Allocation{
			Size:  count * avg,
			Count: count,
			Stack: entries[i],
		})
	}
	return s
}

func u64sKey(v []uint64) []byte {
	b := make([]byte, 0, 8*len(v))
	for _, x := range v {
		for k := 0; k < 8; k++ {
			b = append(b, byte(x>>(8*k)))
		}
	}
	return b
}
