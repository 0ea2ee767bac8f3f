package dartgen

import (
	"fmt"
	"strings"
)

// library is a Dart library as the VM writer names it: lib.name() (dotted
// for the SDK, usually empty for package libraries) and lib.url().
type library struct{ name, uri string }

var (
	libNone       = library{}
	libCore       = library{"dart.core", "dart:core"}
	libAsync      = library{"dart.async", "dart:async"}
	libCollection = library{"dart.collection", "dart:collection"}
	libConvert    = library{"dart.convert", "dart:convert"}
	libDeveloper  = library{"dart.developer", "dart:developer"}
	libFFI        = library{"dart.ffi", "dart:ffi"}
	libInternal   = library{"dart._internal", "dart:_internal"}
	libIsolate    = library{"dart.isolate", "dart:isolate"}
	libMath       = library{"dart.math", "dart:math"}
	libTyped      = library{"dart.typed_data", "dart:typed_data"}
	libUI         = library{"dart.ui", "dart:ui"}

	libFramework    = pkg("flutter/src/widgets/framework.dart")
	libBasic        = pkg("flutter/src/widgets/basic.dart")
	libText         = pkg("flutter/src/widgets/text.dart")
	libBinding      = pkg("flutter/src/widgets/binding.dart")
	libChange       = pkg("flutter/src/foundation/change_notifier.dart")
	libKey          = pkg("flutter/src/foundation/key.dart")
	libBox          = pkg("flutter/src/rendering/box.dart")
	libObject       = pkg("flutter/src/rendering/object.dart")
	libShifted      = pkg("flutter/src/rendering/shifted_box.dart")
	libFlex         = pkg("flutter/src/rendering/flex.dart")
	libParagraph    = pkg("flutter/src/rendering/paragraph.dart")
	libLayer        = pkg("flutter/src/rendering/layer.dart")
	libTextStyle    = pkg("flutter/src/painting/text_style.dart")
	libEdgeInsets   = pkg("flutter/src/painting/edge_insets.dart")
	libTextSpan     = pkg("flutter/src/painting/text_span.dart")
	libTextPainter  = pkg("flutter/src/painting/text_painter.dart")
	libBasicTypes   = pkg("flutter/src/painting/basic_types.dart")
	libMaterialApp  = pkg("flutter/src/material/app.dart")
	libMaterialBtn  = pkg("flutter/src/material/elevated_button.dart")
	libThemeData    = pkg("flutter/src/material/theme_data.dart")
	libScaffold     = pkg("flutter/src/material/scaffold.dart")
	libServicesMsg  = pkg("flutter/src/services/platform_channel.dart")
	libSchedBinding = pkg("flutter/src/scheduler/binding.dart")

	libAppMain   = pkg("myapp/main.dart")
	libAppTodo   = pkg("myapp/models/todo.dart")
	libAppTree   = pkg("myapp/src/tree.dart")
	libAppCache  = pkg("myapp/services/cache.dart")
	libAppNative = pkg("myapp/ffi/native_buffer.dart")
	libGraphNode = library{"graph_kit.node", "package:graph_kit/src/node.dart"}
)

func pkg(path string) library { return library{"", "package:" + path} }

// classInfo is one entry of the class table as written to the file.
type classInfo struct {
	name    string
	lib     library
	fields  []string // slot names in slot (byte offset) order
	unboxed []bool   // parallel to fields: slot holds an unboxed value (reference 0)
	noHash  bool     // identity hash is written as 0 (docs/formats/dart.md, Quirks)
	invalid bool     // cid without a class: written all-empty with 0 fields
	vmClass bool     // its Class object lives in the VM isolate
	vmCid   int      // VM class id (file class id - 3); 0 for classes 1..3
}

// classSpec is the compact form classes are declared in: fields are
// space-separated, a leading '#' marks an unboxed slot.
type classSpec struct {
	name   string
	lib    library
	fields string
}

// predefined is the VM's predefined class-id list (class_id.h of a 2023/24
// SDK, 64-bit), starting at VM cid 1. An empty name marks a cid without a
// registered class.
var predefined = []classSpec{
	{"FreeListElement", libNone, ""},
	{"ForwardingCorpse", libNone, ""},
	{"", libNone, ""}, // kObjectCid: no class registered
	{"Class", libNone, "name_ user_name_ functions_ functions_hash_table_ fields_ offset_in_words_to_field_ interfaces_ script_ library_ type_parameters_ super_type_ constants_ declaration_type_ invocation_dispatcher_cache_ allocation_stub_ direct_implementors_ direct_subclasses_ dependent_code_"},
	{"PatchClass", libNone, "wrapped_class_ script_ library_kernel_data_"},
	{"Function", libNone, "name_ owner_ signature_ data_ ic_data_array_ code_ unoptimized_code_"},
	{"TypeParameters", libNone, "names_ flags_ bounds_ defaults_"},
	{"ClosureData", libNone, "context_scope_ parent_function_ closure_"},
	{"FfiTrampolineData", libNone, "signature_type_ c_signature_ callback_target_ callback_exceptional_return_"},
	{"Field", libNone, "name_ owner_ type_ initializer_function_ host_offset_or_field_id_ guarded_list_length_ dependent_code_"},
	{"Script", libNone, "url_ resolved_url_ line_starts_ debug_positions_ kernel_program_info_ source_"},
	{"Library", libNone, "name_ url_ private_key_ dictionary_ metadata_ toplevel_class_ used_scripts_ loading_unit_ imports_ exports_ kernel_data_ resolved_names_ exported_names_ loaded_scripts_"},
	{"Namespace", libNone, "target_ show_names_ hide_names_ owner_"},
	{"KernelProgramInfo", libNone, "string_offsets_ string_data_ canonical_names_ metadata_payloads_ metadata_mappings_ scripts_ constants_ libraries_cache_ classes_cache_"},
	{"WeakSerializationReference", libNone, "target_ replacement_"},
	{"WeakArray", libNone, "length_"},
	{"Code", libNone, "object_pool_ instructions_ owner_ exception_handlers_ pc_descriptors_ catch_entry_ compressed_stackmaps_ inlined_id_to_function_ code_source_map_"},
	{"Instructions", libNone, ""},
	{"InstructionsSection", libNone, ""},
	{"InstructionsTable", libNone, ""},
	{"ObjectPool", libNone, ""},
	{"PcDescriptors", libNone, ""},
	{"CodeSourceMap", libNone, ""},
	{"CompressedStackMaps", libNone, ""},
	{"LocalVarDescriptors", libNone, ""},
	{"ExceptionHandlers", libNone, "handled_types_data_"},
	{"Context", libNone, "parent_"},
	{"ContextScope", libNone, ""},
	{"Sentinel", libNone, ""},
	{"SingleTargetCache", libNone, "target_"},
	{"UnlinkedCall", libNone, "target_name_ args_descriptor_"},
	{"MonomorphicSmiableCall", libNone, "target_"},
	{"CallSiteData", libNone, ""},
	{"ICData", libNone, "target_name_ args_descriptor_ entries_ owner_"},
	{"MegamorphicCache", libNone, "target_name_ args_descriptor_ buckets_ mask_"},
	{"SubtypeTestCache", libNone, "cache_"},
	{"LoadingUnit", libNone, "parent_ base_objects_"},
	{"Error", libNone, ""},
	{"ApiError", libNone, "message_"},
	{"LanguageError", libNone, "previous_error_ script_ message_ formatted_message_"},
	{"UnhandledException", libNone, "exception_ stacktrace_"},
	{"UnwindError", libNone, "message_"},
	{"Object", libCore, ""},
	{"LibraryPrefix", libNone, "name_ importer_ imports_"},
	{"TypeArguments", libNone, "instantiations_ length_ hash_ nullability_"},
	{"_AbstractType", libCore, ""},
	{"_Type", libCore, "type_test_stub_ hash_ arguments_"},
	{"_FunctionType", libCore, "type_test_stub_ hash_ type_parameters_ result_type_ parameter_types_ named_parameter_names_"},
	{"_RecordType", libCore, "type_test_stub_ hash_ shape_ field_types_"},
	{"_TypeParameter", libCore, "type_test_stub_ hash_ owner_"},
	{"FinalizerBase", libInternal, ""},
	{"_FinalizerImpl", libCore, "detachments_ all_entries_ entries_collected_ type_arguments_ callback_"},
	{"_NativeFinalizer", libFFI, "detachments_ all_entries_ entries_collected_ callback_"},
	{"FinalizerEntry", libInternal, "value_ detach_ token_ finalizer_ next_"},
	{"_Closure", libCore, "instantiator_type_arguments_ function_type_arguments_ delayed_type_arguments_ function_ context_ hash_"},
	{"num", libCore, ""},
	{"int", libCore, ""},
	{"_Smi", libCore, ""},
	{"_Mint", libCore, ""},
	{"_Double", libCore, ""},
	{"bool", libCore, ""},
	{"_Float32x4", libTyped, ""},
	{"_Int32x4", libTyped, ""},
	{"_Float64x2", libTyped, ""},
	{"_Record", libCore, ""},
	{"_TypedListBase", libTyped, ""},
	{"_TypedList", libTyped, ""},
	{"", libNone, ""}, // kExternalTypedDataCid: abstract, no class
	{"_TypedListView", libTyped, ""},
	{"Pointer", libFFI, "type_arguments_"},
	{"DynamicLibrary", libFFI, ""},
	{"_CapabilityImpl", libIsolate, ""},
	{"_RawReceivePort", libIsolate, "send_port_ handler_"},
	{"_SendPort", libIsolate, ""},
	{"_StackTrace", libCore, "async_link_ code_array_ pc_offset_array_"},
	{"_SuspendState", libAsync, "function_data_ then_callback_ error_callback_"},
	{"_RegExp", libCore, "capture_name_map_ pattern_ one_byte_ two_byte_ one_byte_sticky_ two_byte_sticky_"},
	{"_WeakProperty", libCore, "key_ value_"},
	{"_WeakReference", libCore, "target_ type_arguments_"},
	{"_MirrorReference", libNone, "referent_"},
	{"FutureOr", libAsync, "type_arguments_"},
	{"_UserTag", libDeveloper, "label_"},
	{"_TransferableTypedDataImpl", libIsolate, ""},
	{"_Map", libCollection, "type_arguments_ index_ hash_mask_ data_ used_data_ deleted_keys_"},
	{"_ConstMap", libCollection, "type_arguments_ index_ hash_mask_ data_ used_data_ deleted_keys_"},
	{"_Set", libCollection, "type_arguments_ index_ hash_mask_ data_ used_data_ deleted_keys_"},
	{"_ConstSet", libCollection, "type_arguments_ index_ hash_mask_ data_ used_data_ deleted_keys_"},
	{"_List", libCore, "type_arguments_ length_"},
	{"_ImmutableList", libCore, "type_arguments_ length_"},
	{"_GrowableList", libCore, "type_arguments_ length_ data_"},
	{"String", libCore, ""},
	{"_OneByteString", libCore, "length_"},
	{"_TwoByteString", libCore, "length_"},
	{"_ExternalOneByteString", libCore, "length_"},
	{"_ExternalTwoByteString", libCore, "length_"},
	// Typed data: four classes per element type are appended by newCatalog.
}

// typedKinds are the typed-data element types in class_id.h order, with
// the element size in bytes.
var typedKinds = []struct {
	name string
	size int
}{
	{"Int8", 1}, {"Uint8", 1}, {"Uint8Clamped", 1}, {"Int16", 2}, {"Uint16", 2},
	{"Int32", 4}, {"Uint32", 4}, {"Int64", 8}, {"Uint64", 8}, {"Float32", 4},
	{"Float64", 8}, {"Float32x4", 16}, {"Int32x4", 16}, {"Float64x2", 16},
}

// predefinedTail follows the typed-data classes in class_id.h.
var predefinedTail = []classSpec{
	{"_ByteDataView", libTyped, "length_ typed_data_ offset_in_bytes_"},
	{"_UnmodifiableByteDataView", libTyped, "length_ typed_data_ offset_in_bytes_"},
	{"_ByteBuffer", libTyped, "_data"},
	{"Null", libCore, ""},
	{"dynamic", libNone, ""},
	{"void", libNone, ""},
	{"Never", libCore, ""},
}

// Field lists shared by class hierarchies (slot order = superclass first).
const (
	fElement       = "_parent _notificationTree _slot _depth _widget _owner _parentBuildScope _inheritedElements _dependencies _hadUnsatisfiedDependencies _lifecycleState _dirty _inDirtyList"
	fRenderObject  = "parentData #_depth _parent _owner _needsLayout _relayoutBoundary _constraints _needsPaint _layerHandle _needsSemanticsUpdate _semantics"
	fRenderBox     = fRenderObject + " _layoutCacheStorage _size"
	fChangeNotify  = "#_count _listeners #_notificationCallStackDepth #_reentrantlyRemovedListeners"
	fPaintingStyle = "inherit color backgroundColor fontSize fontWeight fontStyle letterSpacing wordSpacing textBaseline height leadingDistribution locale foreground background shadows fontFeatures fontVariations decoration decorationColor decorationStyle decorationThickness debugLabel _fontFamily _fontFamilyFallback _package overflow"
)

// dartClasses are the Dart classes after the predefined cids, in class
// table order. Abstract classes have no fields (the VM writes none).
var dartClasses = []classSpec{
	// dart:core
	{"Function", libCore, ""}, // not the VM's internal Function class (cid 6)
	{"double", libCore, ""},
	{"Iterable", libCore, ""},
	{"List", libCore, ""},
	{"Map", libCore, ""},
	{"_Enum", libCore, ""},
	{"DateTime", libCore, "#_value isUtc"},
	{"Duration", libCore, "#_duration"},
	{"_Uri", libCore, "scheme _userInfo _host _port path _query _fragment _text _hashCodeCache _pathSegments _queryParameters _queryParameterLists"},
	{"Expando", libCore, "type_arguments_ name _data #_used"},
	{"_StringBuffer", libCore, "_parts #_partsCodeUnits #_partsCodeUnitsSinceCompaction #_partsCompactionIndex #_bufferCodeUnitMagnitude _buffer #_bufferPosition"},
	// dart:async
	{"Future", libAsync, ""},
	{"_Future", libAsync, "type_arguments_ _state _zone _resultOrListeners"},
	{"_FutureListener", libAsync, "_nextListener result #state callback errorCallback"},
	{"_AsyncCompleter", libAsync, "type_arguments_ future"},
	{"_RootZone", libAsync, ""},
	// dart:collection, dart:convert, dart:math, dart:isolate, dart:developer
	{"ListQueue", libCollection, "type_arguments_ _table #_head #_tail #_modificationCount"},
	{"_JsonStringDecoderSink", libConvert, "_parser _reviver _sink"},
	{"_Random", libMath, "#_state"},
	{"_Timer", libIsolate, "_indexOrNext #_id _callback #_wakeupTime #_milliSeconds _repeating"},
	{"ServiceExtensionResponse", libDeveloper, "result errorCode errorDetail"},
	// dart:ui
	{"Offset", libUI, "#_dx #_dy"},
	{"Size", libUI, "#_dx #_dy"},
	{"Rect", libUI, "#left #top #right #bottom"},
	{"Color", libUI, "#value"},
	{"TextAlign", libUI, "#index _name"},
	{"TextStyle", libUI, "_encoded _leadingDistribution _fontFamily _fontFamilyFallback _fontSize _letterSpacing _wordSpacing _height _decorationThickness _locale _background _foreground _shadows _fontFeatures _fontVariations"},
	{"_Image", libUI, "native_fields_ #_width #_height _disposed"},
	{"Image", libUI, "_image _disposed"},
	// package:flutter
	{"Key", libKey, ""},
	{"ValueKey", libKey, "type_arguments_ value"},
	{"ChangeNotifier", libChange, fChangeNotify},
	{"ValueNotifier", libChange, fChangeNotify + " type_arguments_ _value"},
	{"Widget", libFramework, ""},
	{"StatelessWidget", libFramework, ""},
	{"StatefulWidget", libFramework, ""},
	{"State", libFramework, ""},
	{"Element", libFramework, ""},
	{"ComponentElement", libFramework, ""},
	{"StatelessElement", libFramework, fElement + " _child"},
	{"StatefulElement", libFramework, fElement + " _child _state _didChangeDependencies"},
	{"RenderObjectElement", libFramework, ""},
	{"SingleChildRenderObjectElement", libFramework, fElement + " _renderObject _ancestorRenderObjectElement _child"},
	{"MultiChildRenderObjectElement", libFramework, fElement + " _renderObject _ancestorRenderObjectElement _children _forgottenChildren"},
	{"BuildOwner", libFramework, "onBuildScheduled _inactiveElements _dirtyElements _scheduledFlushDirtyElements _dirtyElementsNeedsResorting focusManager _globalKeyRegistry"},
	{"_InactiveElements", libFramework, "_locked _elements"},
	{"_ElementLifecycle", libFramework, "#index _name"},
	{"Padding", libBasic, "key child padding"},
	{"SizedBox", libBasic, "key child width height"},
	{"Column", libBasic, "key children direction mainAxisAlignment mainAxisSize crossAxisAlignment textDirection verticalDirection textBaseline clipBehavior #spacing"},
	{"RichText", libBasic, "key children text textAlign textDirection softWrap overflow textScaler maxLines locale strutStyle textWidthBasis textHeightBehavior selectionRegistrar selectionColor"},
	{"Text", libText, "key data textSpan style strutStyle textAlign textDirection locale softWrap overflow textScaler maxLines semanticsLabel textWidthBasis textHeightBehavior selectionColor"},
	{"RootElement", libBinding, fElement + " _child"},
	{"WidgetsFlutterBinding", libBinding, "_buildOwner _rootElement _readyToProduceFrames _postFrameCallbacks _transientCallbacks #_nextFrameCallbackId _imageCache"},
	{"SchedulerPhase", libSchedBinding, "#index _name"},
	{"BoxConstraints", libBox, "#minWidth #maxWidth #minHeight #maxHeight"},
	{"BoxParentData", libBox, "offset"},
	{"_LayoutCacheStorage", libBox, "_cachedBaselines _cachedIntrinsicDimensions _cachedDryLayoutSizes _cachedDryBaseline"},
	{"RenderObject", libObject, ""},
	{"RenderBox", libBox, ""},
	{"RenderPadding", libShifted, fRenderBox + " _child _resolvedPaddingCache _padding _textDirection"},
	{"FlexParentData", libFlex, "offset previousSibling nextSibling flex fit"},
	{"RenderFlex", libFlex, fRenderBox + " #_childCount _firstChild _lastChild _direction _mainAxisAlignment _mainAxisSize _crossAxisAlignment _textDirection _verticalDirection _textBaseline _clipBehavior #_overflow #_spacing"},
	{"MainAxisAlignment", libFlex, "#index _name"},
	{"RenderParagraph", libParagraph, fRenderBox + " _textPainter _softWrap _overflow _selectionColor"},
	{"LayerHandle", libLayer, "type_arguments_ _layer"},
	{"OffsetLayer", libLayer, "_parentHandle _refCount _owner _parent _needsAddToScene _engineLayer _nextSibling _previousSibling #_offset"},
	{"TextStyle", libTextStyle, fPaintingStyle},
	{"EdgeInsets", libEdgeInsets, "#left #top #right #bottom"},
	{"TextSpan", libTextSpan, "style text children recognizer mouseCursor onEnter onExit semanticsLabel locale spellOut"},
	{"TextPainter", libTextPainter, "_layoutCache _text _textAlign _textDirection _textScaler _maxLines _ellipsis _locale _strutStyle _textWidthBasis _textHeightBehavior"},
	{"Axis", libBasicTypes, "#index _name"},
	{"MaterialApp", libMaterialApp, "key navigatorKey home routes initialRoute title theme debugShowCheckedModeBanner"},
	{"ElevatedButton", libMaterialBtn, "key onPressed onLongPress style child"},
	{"ThemeData", libThemeData, "applyElevationOverlayColor extensions inputDecorationTheme materialTapTargetSize pageTransitionsTheme platform scrollbarTheme splashFactory useMaterial3 visualDensity canvasColor cardColor colorScheme primaryColor textTheme"},
	{"Scaffold", libScaffold, "key appBar body floatingActionButton drawer backgroundColor resizeToAvoidBottomInset primary"},
	{"MethodChannel", libServicesMsg, "name codec _binaryMessenger"},
	// the application
	{"MyApp", libAppMain, "key"},
	{"CounterPage", libAppMain, "key title"},
	{"_CounterPageState", libAppMain, "type_arguments_ _widget _debugLifecycleState _element #_counter _todos _controller _onTap"},
	{"Todo", libAppTodo, "#id title note done tags createdAt #priority attachment"},
	{"Node", libAppTree, "value left right #depth"},
	{"LruCache", libAppCache, "type_arguments_ _map #_maxSize _hits _misses"},
	{"NativeBuffer", libAppNative, "_pointer #_length _token"},
	{"Node", libGraphNode, "type_arguments_ id edges #weight payload"},
	{"Graph", libGraphNode, "type_arguments_ nodes _byId"},
}

// hashExcluded lists the VM classes whose identity hash is always written as
// 0 (the VM's GetHeapSnapshotIdentityHash), by their file names.
var hashExcluded = map[string]bool{
	"_List": true, "bool": true, "CodeSourceMap": true, "CompressedStackMaps": true,
	"_Double": true, "String": true, "_OneByteString": true, "_TwoByteString": true,
	"_ExternalOneByteString": true, "_ExternalTwoByteString": true,
	"_GrowableList": true, "_ImmutableList": true, "_Map": true, "_ConstMap": true,
	"_Set": true, "_ConstSet": true, "Instructions": true, "InstructionsSection": true,
	"InstructionsTable": true, "_Mint": true, "Never": true, "Sentinel": true,
	"Null": true, "ObjectPool": true, "PcDescriptors": true, "void": true, "_Smi": true,
}

// catalog is the class table and the class ids the generator uses.
type catalog struct {
	classes []classInfo // classes[i] has file class id i+1
	libs    []library   // libraries that get Library objects, in load order

	numPredefined int // kNumPredefinedCids: VM cids below it are predefined

	// Well-known file class ids.
	root, roPages, isolate                                 int
	classC, patchClass, function, closureData, field       int
	script, libraryC, namespace, kernelInfo, code          int
	instructions, objectPool, pcDescriptors, codeSrcMap    int
	stackMaps, excHandlers, context, contextScope          int
	sentinel, icData, typeArgs, typeC, functionType        int
	finalizer, finEntry, closure, smi, mint, double, boolC int
	rawRecvPort, sendPort, capability, stackTrace          int
	weakProp, weakRef, userTag                             int
	mapC, constMap, setC, constSet                         int
	list, immList, growable                                int
	oneByte, twoByte, extOneByte, extTwoByte               int
	null, pointer, libPrefix, unlinkedCall                 int
	typedBase                                              map[string]int // "Uint8" -> id of _Uint8List (view +1, external +2, unmodifiable view +3)
	byteDataView                                           int

	dateTime, duration, uri, expando, future, futListener  int
	completer, rootZone, timer, random                     int
	offset, size, rect, color, textAlignE, uiTextStyle     int
	uiImageNative, uiImage, valueKey, valueNotifier        int
	statelessEl, statefulEl, singleEl, multiEl, buildOwner int
	inactiveEls, lifecycleE, padding, sizedBox, column     int
	richText, text, rootEl, binding, schedPhaseE           int
	boxConstraints, boxParentData, layoutCache, renderPad  int
	flexParentData, renderFlex, mainAxisE, renderPara      int
	layerHandle, offsetLayer, textStyle, edgeInsets        int
	textSpan, textPainter, axisE, myApp, counterPage       int
	counterState, todo, treeNode, lruCache, nativeBuf      int
	graphNode, graph, materialApp, elevatedBtn, theme      int
	scaffold, methodChannel, stringBuffer, listQueue       int
}

func splitFields(spec string) (names []string, unboxed []bool) {
	for _, f := range strings.Fields(spec) {
		u := strings.HasPrefix(f, "#")
		names = append(names, strings.TrimPrefix(f, "#"))
		unboxed = append(unboxed, u)
	}
	return names, unboxed
}

// newCatalog builds the class table: 3 synthetic classes, the predefined
// VM cids, then per library a top-level class "::" followed by its classes.
func newCatalog() *catalog {
	c := &catalog{typedBase: map[string]int{}}
	add := func(s classSpec, vmCid int) int {
		names, unboxed := splitFields(s.fields)
		ci := classInfo{name: s.name, lib: s.lib, fields: names, unboxed: unboxed, vmCid: vmCid}
		ci.invalid = s.name == ""
		// Only predefined VM classes are excluded from identity hashes.
		ci.noHash = hashExcluded[s.name] && c.numPredefined == 0
		ci.vmClass = !ci.invalid && s.lib == libNone && vmCid > 0
		c.classes = append(c.classes, ci)
		return len(c.classes)
	}
	c.root = add(classSpec{"Root", libNone, ""}, 0)
	c.roPages = add(classSpec{"Read-Only Pages", libNone, ""}, 0)
	c.isolate = add(classSpec{"Isolate", libNone, ""}, 0) // fields: set by the generator
	for _, s := range predefined {
		add(s, len(c.classes)-2)
	}
	for _, k := range typedKinds {
		base := add(classSpec{"_" + k.name + "List", libTyped, "length_"}, len(c.classes)-2)
		add(classSpec{"_" + k.name + "ArrayView", libTyped, "length_ typed_data_ offset_in_bytes_"}, len(c.classes)-2)
		add(classSpec{"_External" + k.name + "Array", libTyped, "length_"}, len(c.classes)-2)
		add(classSpec{"_Unmodifiable" + k.name + "ArrayView", libTyped, "length_ typed_data_ offset_in_bytes_"}, len(c.classes)-2)
		c.typedBase[k.name] = base
	}
	for _, s := range predefinedTail {
		add(s, len(c.classes)-2)
	}
	c.numPredefined = len(c.classes) - 2 // VM cids 1..n-3 plus kIllegalCid 0

	// Dart classes, grouped per library in load order, each library
	// preceded by its top-level class "::".
	seen := map[library]bool{}
	var order []library
	for _, s := range []library{libCore, libAsync, libCollection, libConvert, libDeveloper, libFFI, libInternal, libIsolate, libMath, libTyped, libUI} {
		seen[s] = true
		order = append(order, s)
	}
	for _, s := range dartClasses {
		if !seen[s.lib] {
			seen[s.lib] = true
			order = append(order, s.lib)
		}
	}
	c.libs = order
	for _, l := range order {
		add(classSpec{"::", l, ""}, len(c.classes)-2)
		for _, s := range dartClasses {
			if s.lib == l {
				add(s, len(c.classes)-2)
			}
		}
	}

	byName := map[string]int{}
	for i, ci := range c.classes {
		if ci.invalid {
			continue
		}
		byName[ci.lib.uri+" "+ci.name] = i + 1
	}
	get := func(l library, name string) int {
		id, ok := byName[l.uri+" "+name]
		if !ok {
			panic(fmt.Sprintf("dartgen: class %s %q missing from catalog", l.uri, name))
		}
		return id
	}
	c.classC, c.patchClass, c.function = get(libNone, "Class"), get(libNone, "PatchClass"), get(libNone, "Function")
	c.closureData, c.field, c.script = get(libNone, "ClosureData"), get(libNone, "Field"), get(libNone, "Script")
	c.libraryC, c.namespace, c.kernelInfo = get(libNone, "Library"), get(libNone, "Namespace"), get(libNone, "KernelProgramInfo")
	c.code, c.instructions, c.objectPool = get(libNone, "Code"), get(libNone, "Instructions"), get(libNone, "ObjectPool")
	c.pcDescriptors, c.codeSrcMap, c.stackMaps = get(libNone, "PcDescriptors"), get(libNone, "CodeSourceMap"), get(libNone, "CompressedStackMaps")
	c.excHandlers, c.context, c.contextScope = get(libNone, "ExceptionHandlers"), get(libNone, "Context"), get(libNone, "ContextScope")
	c.sentinel, c.icData, c.typeArgs = get(libNone, "Sentinel"), get(libNone, "ICData"), get(libNone, "TypeArguments")
	c.libPrefix, c.unlinkedCall = get(libNone, "LibraryPrefix"), get(libNone, "UnlinkedCall")
	c.typeC, c.functionType = get(libCore, "_Type"), get(libCore, "_FunctionType")
	c.finalizer, c.finEntry, c.closure = get(libCore, "_FinalizerImpl"), get(libInternal, "FinalizerEntry"), get(libCore, "_Closure")
	c.smi, c.mint, c.double, c.boolC = get(libCore, "_Smi"), get(libCore, "_Mint"), get(libCore, "_Double"), get(libCore, "bool")
	c.rawRecvPort, c.sendPort, c.capability = get(libIsolate, "_RawReceivePort"), get(libIsolate, "_SendPort"), get(libIsolate, "_CapabilityImpl")
	c.stackTrace, c.weakProp, c.weakRef = get(libCore, "_StackTrace"), get(libCore, "_WeakProperty"), get(libCore, "_WeakReference")
	c.userTag, c.pointer = get(libDeveloper, "_UserTag"), get(libFFI, "Pointer")
	c.mapC, c.constMap = get(libCollection, "_Map"), get(libCollection, "_ConstMap")
	c.setC, c.constSet = get(libCollection, "_Set"), get(libCollection, "_ConstSet")
	c.list, c.immList, c.growable = get(libCore, "_List"), get(libCore, "_ImmutableList"), get(libCore, "_GrowableList")
	c.oneByte, c.twoByte = get(libCore, "_OneByteString"), get(libCore, "_TwoByteString")
	c.extOneByte, c.extTwoByte = get(libCore, "_ExternalOneByteString"), get(libCore, "_ExternalTwoByteString")
	c.null, c.byteDataView = get(libCore, "Null"), get(libTyped, "_ByteDataView")

	c.dateTime, c.duration, c.uri = get(libCore, "DateTime"), get(libCore, "Duration"), get(libCore, "_Uri")
	c.expando, c.stringBuffer = get(libCore, "Expando"), get(libCore, "_StringBuffer")
	c.future, c.futListener = get(libAsync, "_Future"), get(libAsync, "_FutureListener")
	c.completer, c.rootZone = get(libAsync, "_AsyncCompleter"), get(libAsync, "_RootZone")
	c.listQueue, c.timer, c.random = get(libCollection, "ListQueue"), get(libIsolate, "_Timer"), get(libMath, "_Random")
	c.offset, c.size, c.rect, c.color = get(libUI, "Offset"), get(libUI, "Size"), get(libUI, "Rect"), get(libUI, "Color")
	c.textAlignE, c.uiTextStyle = get(libUI, "TextAlign"), get(libUI, "TextStyle")
	c.uiImageNative, c.uiImage = get(libUI, "_Image"), get(libUI, "Image")
	c.valueKey, c.valueNotifier = get(libKey, "ValueKey"), get(libChange, "ValueNotifier")
	c.statelessEl, c.statefulEl = get(libFramework, "StatelessElement"), get(libFramework, "StatefulElement")
	c.singleEl, c.multiEl = get(libFramework, "SingleChildRenderObjectElement"), get(libFramework, "MultiChildRenderObjectElement")
	c.buildOwner, c.inactiveEls, c.lifecycleE = get(libFramework, "BuildOwner"), get(libFramework, "_InactiveElements"), get(libFramework, "_ElementLifecycle")
	c.padding, c.sizedBox, c.column = get(libBasic, "Padding"), get(libBasic, "SizedBox"), get(libBasic, "Column")
	c.richText, c.text = get(libBasic, "RichText"), get(libText, "Text")
	c.rootEl, c.binding = get(libBinding, "RootElement"), get(libBinding, "WidgetsFlutterBinding")
	c.schedPhaseE = get(libSchedBinding, "SchedulerPhase")
	c.boxConstraints, c.boxParentData, c.layoutCache = get(libBox, "BoxConstraints"), get(libBox, "BoxParentData"), get(libBox, "_LayoutCacheStorage")
	c.renderPad, c.flexParentData, c.renderFlex = get(libShifted, "RenderPadding"), get(libFlex, "FlexParentData"), get(libFlex, "RenderFlex")
	c.mainAxisE, c.renderPara = get(libFlex, "MainAxisAlignment"), get(libParagraph, "RenderParagraph")
	c.layerHandle, c.offsetLayer = get(libLayer, "LayerHandle"), get(libLayer, "OffsetLayer")
	c.textStyle, c.edgeInsets = get(libTextStyle, "TextStyle"), get(libEdgeInsets, "EdgeInsets")
	c.textSpan, c.textPainter, c.axisE = get(libTextSpan, "TextSpan"), get(libTextPainter, "TextPainter"), get(libBasicTypes, "Axis")
	c.materialApp, c.elevatedBtn = get(libMaterialApp, "MaterialApp"), get(libMaterialBtn, "ElevatedButton")
	c.theme, c.scaffold, c.methodChannel = get(libThemeData, "ThemeData"), get(libScaffold, "Scaffold"), get(libServicesMsg, "MethodChannel")
	c.myApp, c.counterPage, c.counterState = get(libAppMain, "MyApp"), get(libAppMain, "CounterPage"), get(libAppMain, "_CounterPageState")
	c.todo, c.treeNode, c.lruCache = get(libAppTodo, "Todo"), get(libAppTree, "Node"), get(libAppCache, "LruCache")
	c.nativeBuf, c.graphNode, c.graph = get(libAppNative, "NativeBuffer"), get(libGraphNode, "Node"), get(libGraphNode, "Graph")
	return c
}

// info returns the class with file class id id.
func (c *catalog) info(id int) *classInfo { return &c.classes[id-1] }
