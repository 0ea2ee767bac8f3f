package fuchsiagen

import "strings"

// The catalog describes the programs Generate can run: their modules, the
// functions their stacks go through and the allocation paths (library
// frames between application code and the allocator hooks).
//
// Module names follow what the collector reports (elf_search's module name:
// the ELF soname, or the VMO name for the main executable). On Fuchsia
// libc.so is also the dynamic linker (its PT_INTERP name is ld.so.1), so
// there is no separate ld.so.1 module. The vDSO (libzircon.so) is mapped
// but never allocates.

type modDef struct {
	name       string
	buildIDLen int
	// noSymbols marks a prebuilt module whose symbol file the symbol
	// server does not have (ffx --symbolize: "Unresolved build ID").
	noSymbols bool
}

// progDef is a program. Its funcs are "module|role|name|file|line"
// (module BIN is the program's executable). Roles: "root" (process entry
// chain), "troot" (thread entry chain), "a0".."a3" (application layers,
// called in increasing order), "rec" (recursive application function),
// "lib" (used in allocation chains), "tail" (allocator and hook frames).
// An empty file means the symbolizer has no line information for it.
type progDef struct {
	name     string
	lang     string // "c++", "rust" or "c"
	modules  []modDef
	funcs    []string
	inlines  []string // names of inlinable helpers: "name|file"
	threads  []string // thread names; the first is the main thread
	renamed  string   // new name of the main thread, "" if never renamed
	structs  []int    // weights per structKind
	chains   map[string][]string
	leafSelf bool // the innermost frame is __sanitizer_fast_backtrace
}

const (
	hookFile  = "../../src/performance/memory/heapdump/instrumentation/src/hooks.rs"
	scudoComb = "../../third_party/scudo/src/combined.h"
	scudoWrap = "../../third_party/scudo/src/wrappers_c.inc"
	cxxNew    = "/b/s/w/ir/x/w/llvm-llvm-project/libcxx/src/new.cpp"
	cxxString = "/b/s/w/ir/x/w/llvm-llvm-project/libcxx/include/string"
	rustAlloc = "/b/s/w/ir/x/w/fuchsia-third_party-rust/library/alloc/src/alloc.rs"
	rustRaw   = "/b/s/w/ir/x/w/fuchsia-third_party-rust/library/alloc/src/raw_vec/mod.rs"
	rustStd   = "/b/s/w/ir/x/w/fuchsia-third_party-rust/library/std/src"
	hashbrown = "../../third_party/rust_crates/vendor/hashbrown-0.15.2/src/raw/mod.rs"
)

// The allocator and hook frames, shared by every program (caller first).
var tailFuncs = []string{
	"libc.so|tail|malloc|" + scudoWrap + "|52",
	"libc.so|tail|calloc|" + scudoWrap + "|37",
	"libc.so|tail|realloc|" + scudoWrap + "|160",
	"libc.so|tail|posix_memalign|" + scudoWrap + "|121",
	"libc.so|tail|scudo::Allocator<scudo::FuchsiaConfig, &scudo_malloc_postinit>::allocate(unsigned long, scudo::Chunk::Origin, unsigned long, bool)|" + scudoComb + "|322",
	"libc.so|tail|scudo::Allocator<scudo::FuchsiaConfig, &scudo_malloc_postinit>::reallocate(void*, unsigned long, unsigned long)|" + scudoComb + "|794",
	"libc.so|tail|__sanitizer_fast_backtrace|../../zircon/third_party/ulib/musl/src/sanitizer/backtrace.cc|31",
	"BIN|tail|__scudo_allocate_hook|" + hookFile + "|52",
	"BIN|tail|__scudo_realloc_allocate_hook|" + hookFile + "|93",
	"BIN|tail|_core_rustc_static::hooks::with_profiler_and_call_site::<_core_rustc_static::hooks::__scudo_allocate_hook::{closure#0}>|" + hookFile + "|26",
	"BIN|tail|_core_rustc_static::hooks::with_profiler_and_call_site::<_core_rustc_static::hooks::__scudo_realloc_allocate_hook::{closure#0}>|" + hookFile + "|26",
}

// tailOf returns the allocator frames (caller first) for an allocation
// function.
func tailOf(fn string, leafSelf bool) []string {
	alloc := "scudo::Allocator<scudo::FuchsiaConfig, &scudo_malloc_postinit>::allocate(unsigned long, scudo::Chunk::Origin, unsigned long, bool)"
	hook := "__scudo_allocate_hook"
	inner := "_core_rustc_static::hooks::with_profiler_and_call_site::<_core_rustc_static::hooks::__scudo_allocate_hook::{closure#0}>"
	if fn == "realloc" {
		alloc = "scudo::Allocator<scudo::FuchsiaConfig, &scudo_malloc_postinit>::reallocate(void*, unsigned long, unsigned long)"
		hook = "__scudo_realloc_allocate_hook"
		inner = "_core_rustc_static::hooks::with_profiler_and_call_site::<_core_rustc_static::hooks::__scudo_realloc_allocate_hook::{closure#0}>"
	}
	t := []string{fn, alloc, hook, inner}
	if leafSelf {
		t = append(t, "__sanitizer_fast_backtrace")
	}
	return t
}

var commonCModules = []modDef{
	{name: "libc.so", buildIDLen: 20},
	{name: "libfdio.so", buildIDLen: 20},
	{name: "libzircon.so", buildIDLen: 20},
}

var programs = []progDef{
	{
		name: "audio_core",
		lang: "c++",
		modules: append([]modDef{
			{name: "audio_core", buildIDLen: 20},
			{name: "libc++.so.2", buildIDLen: 20},
			{name: "libc++abi.so.1", buildIDLen: 20},
			{name: "libunwind.so.1", buildIDLen: 20},
			{name: "libasync-default.so", buildIDLen: 20},
			{name: "libsyslog.so", buildIDLen: 20},
			{name: "libtrace-engine.so", buildIDLen: 32},
			{name: "libvendor_dsp.so", buildIDLen: 20, noSymbols: true},
		}, commonCModules...),
		funcs: []string{
			"BIN|root|_start|../../zircon/system/ulib/c/Scrt1.cc|19",
			"libc.so|root|__libc_start_main|../../zircon/third_party/ulib/musl/src/env/__libc_start_main.c|94",
			"BIN|root|main|../../src/media/audio/audio_core/main.cc|38",
			"libc.so|troot|start_pthread|../../zircon/third_party/ulib/musl/pthread/pthread_create.c|68",
			"BIN|troot|std::__2::__thread_proxy<std::__2::tuple<std::__2::unique_ptr<std::__2::__thread_struct>, media::audio::ThreadingModel::Start()::$_0>>(void*)|/b/s/w/ir/x/w/llvm-llvm-project/libcxx/include/__thread/thread.h|199",
			"BIN|a0|async::Loop::Run(zx::basic_time<0>, bool)|../../sdk/lib/async-loop/cpp/loop.cc|31",
			"BIN|a0|async_loop_dispatch_wait|../../sdk/lib/async-loop/loop.c|414",
			"BIN|a0|fidl::internal::IncomingMessageDispatcher::Dispatch(fidl::IncomingHeaderAndMessage&)|../../sdk/lib/fidl/cpp/wire/message.cc|201",
			"BIN|a1|fidl::internal::WireServerDispatcher<fuchsia_media::AudioCore>::TryDispatch(fidl::WireServer<fuchsia_media::AudioCore>*, fidl::IncomingHeaderAndMessage&)|fidling/gen/sdk/fidl/fuchsia.media/fuchsia.media/cpp/fidl/fuchsia.media/cpp/wire_messaging.cc|3811",
			"BIN|a1|media::audio::AudioCoreImpl::CreateAudioRenderer(fidl::InterfaceRequest<fuchsia::media::AudioRenderer>)|../../src/media/audio/audio_core/audio_core_impl.cc|86",
			"BIN|a1|media::audio::AudioDeviceManager::AddDeviceByChannel(std::__2::basic_string<char>, bool, fidl::ClientEnd<fuchsia_hardware_audio::StreamConfig>)|../../src/media/audio/audio_core/audio_device_manager.cc|312",
			"BIN|a1|media::audio::MixStage::ReadLockImpl(media::audio::ReadableStream::ReadLockContext&, media::Fixed, long)|../../src/media/audio/audio_core/mix_stage.cc|174",
			"BIN|a2|media::audio::RouteGraph::AddDeviceToRoutes(media::audio::AudioDevice*)|../../src/media/audio/audio_core/route_graph.cc|61",
			"BIN|a2|media::audio::AudioRenderer::SendPacket(fuchsia::media::StreamPacket, fit::function_impl<16, false, void ()>)|../../src/media/audio/audio_core/audio_renderer.cc|288",
			"BIN|a2|media::audio::PacketQueue::PushPacket(fbl::RefPtr<media::audio::Packet> const&)|../../src/media/audio/audio_core/packet_queue.cc|92",
			"BIN|a2|media::audio::EffectsStage::Create(std::__2::vector<media::audio::PipelineConfig::Effect> const&, std::__2::shared_ptr<media::audio::ReadableStream>)|../../src/media/audio/audio_core/effects_stage.cc|203",
			"BIN|a2|media::audio::ActivityDispatcherImpl::OnActivityChanged(std::__2::bitset<4ul>)|../../src/media/audio/audio_core/activity_dispatcher.cc|110",
			"BIN|a3|media::audio::Mixer::Select(fuchsia_mediastreams::AudioFormat const&, fuchsia_mediastreams::AudioFormat const&, media::audio::Mixer::Resampler)|../../src/media/audio/lib/processing/mixer.cc|57",
			"BIN|a3|media::audio::VolumeCurve::DefaultForMinGain(float)|../../src/media/audio/audio_core/volume_curve.cc|21",
			"BIN|a3|media::audio::StreamUsageMask::StreamUsageMask(std::initializer_list<media::audio::StreamUsage>)|../../src/media/audio/audio_core/stream_usage.h|140",
			"libvendor_dsp.so|a3|vendor_dsp_create_instance|<unknown>|0",
			"libfdio.so|a3|fdio_service_connect_at|../../sdk/lib/fdio/directory.cc|57",
			"libtrace-engine.so|a3|trace_engine_initialize|../../zircon/system/ulib/trace-engine/engine.cc|286",
			"BIN|rec|media::audio::RouteGraph::VisitOutputs(media::audio::AudioObject*, fit::function_impl<16, false, void (media::audio::AudioObject*)>)|../../src/media/audio/audio_core/route_graph.cc|402",
			"BIN|lib|std::__2::__tree<std::__2::__value_type<unsigned long, std::__2::unique_ptr<media::audio::AudioDevice>>, ...>::__emplace_unique_key_args<unsigned long, ...>|/b/s/w/ir/x/w/llvm-llvm-project/libcxx/include/__tree|1839",
			"BIN|lib|std::__2::__hash_table<std::__2::__hash_value_type<std::__2::basic_string<char>, media::audio::RenderUsage>, ...>::__emplace_unique_key_args<...>|/b/s/w/ir/x/w/llvm-llvm-project/libcxx/include/__hash_table|1458",
			"BIN|lib|std::__2::__hash_table<std::__2::__hash_value_type<std::__2::basic_string<char>, media::audio::RenderUsage>, ...>::__do_rehash<true>(unsigned long)|/b/s/w/ir/x/w/llvm-llvm-project/libcxx/include/__hash_table|1637",
			"BIN|lib|std::__2::list<fbl::RefPtr<media::audio::Packet>>::push_back(fbl::RefPtr<media::audio::Packet> const&)|/b/s/w/ir/x/w/llvm-llvm-project/libcxx/include/list|1557",
			"BIN|lib|std::__2::vector<std::__2::unique_ptr<media::audio::Stream>>::__push_back_slow_path<std::__2::unique_ptr<media::audio::Stream>>(std::__2::unique_ptr<media::audio::Stream>&&)|/b/s/w/ir/x/w/llvm-llvm-project/libcxx/include/vector|1546",
			"BIN|lib|std::__2::vector<float>::__append(unsigned long)|/b/s/w/ir/x/w/llvm-llvm-project/libcxx/include/vector|1083",
			"BIN|lib|std::__2::make_shared<media::audio::ReadableRingBuffer, ...>(...)|/b/s/w/ir/x/w/llvm-llvm-project/libcxx/include/__memory/shared_ptr.h|791",
			"libc++.so.2|lib|std::__2::basic_string<char>::__init_copy_ctor_external(char const*, unsigned long)|" + cxxString + "|2308",
			"libc++.so.2|lib|std::__2::basic_string<char>::__grow_by_and_replace(unsigned long, unsigned long, unsigned long, unsigned long, unsigned long, unsigned long, char const*)|" + cxxString + "|2421",
			"libc++.so.2|lib|operator new(unsigned long)|" + cxxNew + "|59",
			"libc++.so.2|lib|operator new[](unsigned long)|" + cxxNew + "|84",
			"BIN|lib|fidl::MessageBuffer::MessageBuffer(unsigned int, unsigned int)|../../sdk/lib/fidl/cpp/message_buffer.cc|24",
			"libfdio.so|lib|fdio_ns_create|../../sdk/lib/fdio/namespace/namespace.cc|64",
			"libvendor_dsp.so|lib|vendor_dsp_alloc_state|<unknown>|0",
		},
		inlines: []string{
			"std::__2::unique_ptr<media::audio::Stream>::reset(media::audio::Stream*)|/b/s/w/ir/x/w/llvm-llvm-project/libcxx/include/__memory/unique_ptr.h",
			"fbl::RefPtr<media::audio::Packet>::operator=(fbl::RefPtr<media::audio::Packet>&&)|../../zircon/system/ulib/fbl/include/fbl/ref_ptr.h",
			"media::audio::Format::frames_per_ns() const|../../src/media/audio/audio_core/format.h",
			"std::__2::__function::__value_func<void ()>::operator()() const|/b/s/w/ir/x/w/llvm-llvm-project/libcxx/include/__functional/function.h",
			"fit::internal::function_base<16ul, false, void ()>::invoke() const|../../sdk/lib/fit/include/lib/fit/internal/function.h",
		},
		threads: []string{"initial-thread", "mixer-0", "mixer-1", "audio-core-fidl", "trace-engine"},
		renamed: "audio_core-main",
		// structCppMap, structCppHash, structCppList, structCppVector,
		// structCppShared, structBuffers, structStrings.
		structs: []int{25, 20, 15, 15, 10, 8, 7},
		chains: map[string][]string{
			"new":        {"operator new(unsigned long)", "@malloc"},
			"newarr":     {"operator new[](unsigned long)", "@malloc"},
			"treenode":   {"std::__2::__tree<std::__2::__value_type<unsigned long, std::__2::unique_ptr<media::audio::AudioDevice>>, ...>::__emplace_unique_key_args<unsigned long, ...>", "operator new(unsigned long)", "@malloc"},
			"hashnode":   {"std::__2::__hash_table<std::__2::__hash_value_type<std::__2::basic_string<char>, media::audio::RenderUsage>, ...>::__emplace_unique_key_args<...>", "operator new(unsigned long)", "@malloc"},
			"hashbucket": {"std::__2::__hash_table<std::__2::__hash_value_type<std::__2::basic_string<char>, media::audio::RenderUsage>, ...>::__emplace_unique_key_args<...>", "std::__2::__hash_table<std::__2::__hash_value_type<std::__2::basic_string<char>, media::audio::RenderUsage>, ...>::__do_rehash<true>(unsigned long)", "operator new(unsigned long)", "@malloc"},
			"listnode":   {"std::__2::list<fbl::RefPtr<media::audio::Packet>>::push_back(fbl::RefPtr<media::audio::Packet> const&)", "operator new(unsigned long)", "@malloc"},
			"vecgrow":    {"std::__2::vector<std::__2::unique_ptr<media::audio::Stream>>::__push_back_slow_path<std::__2::unique_ptr<media::audio::Stream>>(std::__2::unique_ptr<media::audio::Stream>&&)", "operator new(unsigned long)", "@malloc"},
			"vecdata":    {"std::__2::vector<float>::__append(unsigned long)", "operator new(unsigned long)", "@malloc"},
			"shared":     {"std::__2::make_shared<media::audio::ReadableRingBuffer, ...>(...)", "operator new(unsigned long)", "@malloc"},
			"string":     {"std::__2::basic_string<char>::__init_copy_ctor_external(char const*, unsigned long)", "operator new(unsigned long)", "@malloc"},
			"stringgrow": {"std::__2::basic_string<char>::__grow_by_and_replace(unsigned long, unsigned long, unsigned long, unsigned long, unsigned long, unsigned long, char const*)", "operator new(unsigned long)", "@malloc"},
			"buffer":     {"fidl::MessageBuffer::MessageBuffer(unsigned int, unsigned int)", "@malloc"},
			"calloc":     {"@calloc"},
			"malloc":     {"@malloc"},
			"fdio":       {"fdio_ns_create", "@calloc"},
			"vendor":     {"vendor_dsp_alloc_state", "@posix_memalign"},
		},
	},
	{
		name: "netstack3",
		lang: "rust",
		modules: append([]modDef{
			{name: "netstack3", buildIDLen: 20},
			{name: "libtrace-engine.so", buildIDLen: 32},
		}, commonCModules...),
		funcs: []string{
			"BIN|root|_start|../../zircon/system/ulib/c/Scrt1.cc|19",
			"libc.so|root|__libc_start_main|../../zircon/third_party/ulib/musl/src/env/__libc_start_main.c|94",
			"BIN|root|main|" + rustStd + "/rt.rs|0",
			"BIN|root|std::rt::lang_start_internal|" + rustStd + "/rt.rs|174",
			"BIN|root|std::rt::lang_start::<()>::{closure#0}|" + rustStd + "/rt.rs|206",
			"BIN|root|std::sys::backtrace::__rust_begin_short_backtrace::<fn(), ()>|" + rustStd + "/sys/backtrace.rs|152",
			"BIN|root|netstack3::main|../../src/connectivity/network/netstack3/src/main.rs|48",
			"libc.so|troot|start_pthread|../../zircon/third_party/ulib/musl/pthread/pthread_create.c|68",
			"BIN|troot|std::sys::pal::unix::thread::Thread::new::thread_start|" + rustStd + "/sys/pal/unix/thread.rs|105",
			"BIN|troot|<alloc::boxed::Box<dyn core::ops::function::FnOnce<(), Output = ()> + core::marker::Send> as core::ops::function::FnOnce<()>>::call_once|/b/s/w/ir/x/w/fuchsia-third_party-rust/library/alloc/src/boxed.rs|1972",
			"BIN|troot|std::thread::Builder::spawn_unchecked_::<fuchsia_async::runtime::fuchsia::executor::send::SendExecutor::run::{closure#0}, ()>::{closure#1}|" + rustStd + "/thread/mod.rs|561",
			"BIN|a0|fuchsia_async::runtime::fuchsia::executor::common::Executor::worker_lifecycle::<false>|../../src/lib/fuchsia-async/src/runtime/fuchsia/executor/common.rs|432",
			"BIN|a0|fuchsia_async::runtime::fuchsia::executor::local::LocalExecutor::run_singlethreaded::<netstack3::bindings::NetstackSeed::serve::{closure#0}>|../../src/lib/fuchsia-async/src/runtime/fuchsia/executor/local.rs|74",
			"BIN|a0|<futures_util::future::future::Map<Fut, F> as core::future::future::Future>::poll|../../third_party/rust_crates/vendor/futures-util-0.3.30/src/future/future/map.rs|55",
			"BIN|a1|netstack3::bindings::socket::datagram::SocketWorker::<I, T>::handle_request|../../src/connectivity/network/netstack3/src/bindings/socket/datagram.rs|1288",
			"BIN|a1|netstack3::bindings::devices::BindingsCtx::handle_rx|../../src/connectivity/network/netstack3/src/bindings/devices.rs|402",
			"BIN|a1|netstack3::bindings::routes::RouteWorker::run|../../src/connectivity/network/netstack3/src/bindings/routes.rs|711",
			"BIN|a2|netstack3_core::device::ethernet::receive_frame::<netstack3::bindings::BindingsCtx>|../../src/connectivity/network/netstack3/core/device/src/internal/ethernet.rs|1012",
			"BIN|a2|netstack3_core::ip::device::add_ip_addr_subnet_with_config|../../src/connectivity/network/netstack3/core/ip/src/device.rs|1766",
			"BIN|a2|netstack3_core::transport::udp::SocketHandler::create_udp|../../src/connectivity/network/netstack3/core/datagram/src/datagram.rs|2207",
			"BIN|a2|netstack3_core::ip::forwarding::ForwardingTable::add_entry|../../src/connectivity/network/netstack3/core/ip/src/routing.rs|148",
			"BIN|a3|netstack3_core::ip::reassembly::FragmentCache::process_fragment|../../src/connectivity/network/netstack3/core/ip/src/reassembly.rs|585",
			"BIN|a3|netstack3_core::device::arp::ArpTable::insert_static_neighbor|../../src/connectivity/network/netstack3/core/device/src/internal/arp.rs|433",
			"BIN|a3|packet::records::Records::parse_with_context|../../src/connectivity/lib/packet/src/records.rs|390",
			"libfdio.so|a3|fdio_service_connect_by_name|../../sdk/lib/fdio/directory.cc|38",
			"BIN|rec|netstack3_core::ip::socket::SocketMap::insert_inner|../../src/connectivity/network/netstack3/core/base/src/socket/address.rs|540",
			"BIN|lib|hashbrown::raw::RawTable<T,A>::reserve_rehash|" + hashbrown + "|1141",
			"BIN|lib|hashbrown::raw::RawTableInner::fallible_with_capacity|" + hashbrown + "|1821",
			"BIN|lib|alloc::raw_vec::finish_grow::<alloc::alloc::Global>|" + rustRaw + "|765",
			"BIN|lib|alloc::raw_vec::RawVecInner<A>::try_allocate_in|" + rustRaw + "|465",
			"BIN|lib|alloc::collections::btree::node::LeafNode<K,V>::new::<alloc::alloc::Global>|/b/s/w/ir/x/w/fuchsia-third_party-rust/library/alloc/src/collections/btree/node.rs|83",
			"BIN|lib|alloc::collections::btree::node::InternalNode<K,V>::new::<alloc::alloc::Global>|/b/s/w/ir/x/w/fuchsia-third_party-rust/library/alloc/src/collections/btree/node.rs|116",
			"BIN|lib|alloc::sync::Arc<T>::new|/b/s/w/ir/x/w/fuchsia-third_party-rust/library/alloc/src/sync.rs|401",
			"BIN|lib|alloc::alloc::exchange_malloc|" + rustAlloc + "|349",
			"BIN|lib|<str as alloc::string::ToString>::to_string|/b/s/w/ir/x/w/fuchsia-third_party-rust/library/alloc/src/string.rs|2765",
			"BIN|lib|__rustc::__rust_alloc|" + rustAlloc + "|0",
			"BIN|lib|__rustc::__rust_realloc|" + rustAlloc + "|0",
			"BIN|lib|__rustc::__rdl_alloc|" + rustStd + "/alloc.rs|331",
			"BIN|lib|__rustc::__rdl_realloc|" + rustStd + "/alloc.rs|357",
			"BIN|lib|packet::serialize::Buf::<alloc::vec::Vec<u8>>::new|../../src/connectivity/lib/packet/src/serialize.rs|188",
			"libfdio.so|lib|fdio_ns_create|../../sdk/lib/fdio/namespace/namespace.cc|64",
		},
		inlines: []string{
			"core::ptr::drop_in_place<netstack3_core::ip::device::IpDeviceState<I>>|/b/s/w/ir/x/w/fuchsia-third_party-rust/library/core/src/ptr/mod.rs",
			"<alloc::vec::Vec<T,A> as core::ops::index::Index<I>>::index|/b/s/w/ir/x/w/fuchsia-third_party-rust/library/alloc/src/vec/mod.rs",
			"core::option::Option<T>::map|/b/s/w/ir/x/w/fuchsia-third_party-rust/library/core/src/option.rs",
			"<netstack3_core::sync::Mutex<T> as lock_order::lock::LockFor<L>>::lock|../../src/connectivity/network/netstack3/core/sync/src/lib.rs",
			"core::iter::traits::iterator::Iterator::for_each|/b/s/w/ir/x/w/fuchsia-third_party-rust/library/core/src/iter/traits/iterator.rs",
		},
		threads: []string{"initial-thread", "netstack-worker-0", "netstack-worker-1", "netstack-worker-2", "netstack-worker-3"},
		// structRustHash, structRustVec, structRustBTree, structRustDeque,
		// structRustArc, structBuffers, structStrings.
		structs: []int{25, 22, 15, 8, 14, 8, 8},
		chains: map[string][]string{
			"box":        {"alloc::alloc::exchange_malloc", "__rustc::__rust_alloc", "__rustc::__rdl_alloc", "@malloc"},
			"arc":        {"alloc::sync::Arc<T>::new", "alloc::alloc::exchange_malloc", "__rustc::__rust_alloc", "__rustc::__rdl_alloc", "@malloc"},
			"hashtable":  {"hashbrown::raw::RawTable<T,A>::reserve_rehash", "hashbrown::raw::RawTableInner::fallible_with_capacity", "__rustc::__rust_alloc", "__rustc::__rdl_alloc", "@malloc"},
			"vecgrow":    {"alloc::raw_vec::finish_grow::<alloc::alloc::Global>", "__rustc::__rust_realloc", "__rustc::__rdl_realloc", "@realloc"},
			"vecnew":     {"alloc::raw_vec::RawVecInner<A>::try_allocate_in", "__rustc::__rust_alloc", "__rustc::__rdl_alloc", "@malloc"},
			"btreeleaf":  {"alloc::collections::btree::node::LeafNode<K,V>::new::<alloc::alloc::Global>", "__rustc::__rust_alloc", "__rustc::__rdl_alloc", "@malloc"},
			"btreeinner": {"alloc::collections::btree::node::InternalNode<K,V>::new::<alloc::alloc::Global>", "__rustc::__rust_alloc", "__rustc::__rdl_alloc", "@malloc"},
			"string":     {"<str as alloc::string::ToString>::to_string", "alloc::raw_vec::RawVecInner<A>::try_allocate_in", "__rustc::__rust_alloc", "__rustc::__rdl_alloc", "@malloc"},
			"buffer":     {"packet::serialize::Buf::<alloc::vec::Vec<u8>>::new", "alloc::raw_vec::RawVecInner<A>::try_allocate_in", "__rustc::__rust_alloc", "__rustc::__rdl_alloc", "@malloc"},
			"zeroed":     {"alloc::raw_vec::RawVecInner<A>::try_allocate_in", "__rustc::__rust_alloc", "__rustc::__rdl_alloc", "@calloc"},
			"fdio":       {"fdio_ns_create", "@calloc"},
		},
	},
	{
		name: "heapdump-example",
		lang: "c",
		modules: append([]modDef{
			{name: "heapdump-example", buildIDLen: 20},
		}, commonCModules...),
		funcs: []string{
			"BIN|root|_start|../../zircon/system/ulib/c/Scrt1.cc|19",
			"libc.so|root|__libc_start_main|../../zircon/third_party/ulib/musl/src/env/__libc_start_main.c|94",
			"BIN|root|main|../../src/performance/memory/heapdump/example/main.c|60",
			"libc.so|troot|start_c11|../../zircon/third_party/ulib/musl/pthread/pthread_create.c|55",
			"BIN|troot|worker_thread|../../src/performance/memory/heapdump/example/main.c|41",
			"BIN|a0|run_iteration|../../src/performance/memory/heapdump/example/main.c|49",
			"BIN|a1|build_list|../../src/performance/memory/heapdump/example/main.c|30",
			"BIN|a1|leak_memory|../../src/performance/memory/heapdump/example/main.c|22",
			"BIN|a2|make_node|../../src/performance/memory/heapdump/example/main.c|15",
			"libfdio.so|a2|fdio_open3_fd|../../sdk/lib/fdio/directory.cc|91",
			"BIN|a3|fill_buffer|../../src/performance/memory/heapdump/example/main.c|27",
			"BIN|rec|fib|../../src/performance/memory/heapdump/example/main.c|10",
			"libc.so|lib|strdup|../../zircon/third_party/ulib/musl/src/string/strdup.c|7",
			"libfdio.so|lib|fdio_ns_create|../../sdk/lib/fdio/namespace/namespace.cc|64",
		},
		threads: []string{"initial-thread", "worker"},
		// structCList, structCFib, structBuffers, structStrings.
		structs: []int{40, 30, 15, 15},
		chains: map[string][]string{
			"malloc": {"@malloc"},
			"calloc": {"@calloc"},
			"strdup": {"strdup", "@malloc"},
			"fdio":   {"fdio_ns_create", "@calloc"},
		},
		leafSelf: true,
	},
}

// programByName returns the catalog entry named name.
func programByName(name string) *progDef {
	for i := range programs {
		if programs[i].name == name {
			return &programs[i]
		}
	}
	return nil
}

// ProgramNames lists the programs Generate can run (Options.Programs).
func ProgramNames() []string {
	var n []string
	for _, p := range programs {
		n = append(n, p.name)
	}
	return n
}

// parseFunc splits a catalog function line; module "BIN" stands for the
// program's own executable.
func (p *progDef) parseFunc(line string) (mod, role, name, file, lineNo string) {
	f := strings.Split(line, "|")
	mod = f[0]
	if mod == "BIN" {
		mod = p.modules[0].name
	}
	return mod, f[1], f[2], f[3], f[4]
}
