package dartgen

import (
	"fmt"
	"strings"
)

// staticSpec is one entry of the isolate group's static field table (the
// fields of class 3). key says what the main isolate's slot holds: a key
// of appState.statics, or "" (null), "uninit" / "initializing" (the VM's
// sentinels) or "false".
type staticSpec struct {
	name  string // "" for a field id that is not in use
	lib   library
	owner string // owning class, "::" for a top-level variable
	key   string
}

var staticTable = []staticSpec{
	{"_current", libAsync, "::", "zone"},
	{"_nextCallback", libAsync, "::", ""},
	{"_lastCallback", libAsync, "::", ""},
	{"_lastPriorityCallback", libAsync, "::", ""},
	{"_isInCallbackLoop", libAsync, "::", "false"},
	{"_emptyList", libCore, "::", "emptyList"},
	{"_idCount", libIsolate, "_Timer", "timerId"},
	{"_heap", libIsolate, "_Timer", "timerHeap"},
	{"_firstZeroTimer", libIsolate, "_Timer", ""},
	{"_random", libMath, "::", "random"},
	{"_instance", libBinding, "WidgetsFlutterBinding", "binding"},
	{"debugPrintBuildScope", libFramework, "::", "false"},
	{"", libNone, "", ""},
	{"_defaultTheme", libThemeData, "::", "uninit"},
	{"_theme", libAppMain, "::", "theme"},
	{"_channel", libServicesMsg, "::", "channel"},
	{"_todos", libAppMain, "::", "todos"},
	{"_cache", libAppCache, "LruCache", "cache"},
	{"_trees", libAppTree, "::", "trees"},
	{"_graphs", libGraphNode, "Graph", "graphs"},
	{"_finalizer", libAppNative, "NativeBuffer", "finalizer"},
	{"_buffers", libAppNative, "NativeBuffer", "buffers"},
	{"_expando", libAppMain, "::", "expando"},
	{"_weakRefs", libAppMain, "::", "weakRefs"},
	{"_images", libAppMain, "::", "images"},
	{"_listeners", libAppMain, "::", "listeners"},
	{"_pending", libAppMain, "::", "futures"},
	{"_numbers", libAppMain, "::", "numbers"},
	{"_typed", libAppMain, "::", "typed"},
	{"_misc", libAppMain, "::", "misc"},
	{"", libNone, "", ""},
	{"_edgeCases", libAppMain, "::", "edge"},
	{"_lazyConfig", libAppMain, "::", "uninit"},
	{"_initializingValue", libAppMain, "::", "initializing"},
	{"_uriCache", libCore, "::", ""},
}

// staticNames are the names of the Isolate class's fields.
func (g *gen) staticNames() []string {
	out := make([]string, len(staticTable))
	for i, s := range staticTable {
		out[i] = s.name
	}
	return out
}

// functionNames are typical member names, by kind of class.
var (
	widgetFns  = []string{"build", "createState", "createElement", "createRenderObject", "updateRenderObject", "debugFillProperties", "get:hashCode", "=="}
	elementFns = []string{"mount", "update", "performRebuild", "visitChildren", "activate", "deactivate", "unmount", "updateChild", "inflateWidget", "markNeedsBuild", "rebuild"}
	renderFns  = []string{"performLayout", "paint", "computeDryLayout", "hitTestChildren", "attach", "detach", "setupParentData", "computeMinIntrinsicWidth", "markNeedsLayout", "get:size"}
	modelFns   = []string{"fromJson", "toJson", "copyWith", "toString", "get:hashCode", "==", "compareTo", "get:isEmpty"}
	coreFns    = []string{"toString", "get:hashCode", "==", "noSuchMethod", "get:runtimeType", "[]", "[]=", "add", "addAll", "get:length", "set:length", "_grow", "insert", "removeLast", "forEach", "map", "where", "toList", "join", "containsKey", "_rehash", "_insert", "then", "_complete", "_propagateToListeners", "substring", "indexOf", "parse", "tryParse", "compareTo"}
	topFns     = []string{"main", "runApp", "_runMain", "debugPrint", "compute", "scheduleMicrotask", "identical", "print", "_startIsolate"}
)

// program creates the isolate group's program structure: the kernel
// program info, libraries with their scripts, classes (with functions,
// code, fields), declaration types, function types and type arguments.
func (g *gen) program() {
	c := g.c
	g.sym = map[string]uint32{}
	g.taCache = map[string]uint32{}
	g.libObj = map[library]uint32{}
	g.scriptObj = map[library]uint32{}
	g.app.statics = map[string]uint32{}

	g.app.uninitIndex = g.typed(segImage, "Uint32", 1) // _HashBase._uninitializedIndex
	g.growEmpty = g.array(segOld, g.null, nil)         // _GrowableList._emptyList
	g.app.statics["emptyList"] = g.growEmpty
	g.kernelInfo = g.alloc(segOld, c.kernelInfo, 96, NoData, 0)
	for _, l := range c.libs {
		g.libObj[l] = g.named(segOld, c.libraryC, 144, l.uri)
	}
	for id := 1; id <= len(c.classes); id++ {
		ci := c.info(id)
		if ci.invalid || ci.vmClass || ci.vmCid == 0 || ci.name == "::" {
			continue
		}
		g.typeObj[id] = g.newType(g.null)
	}
	for i := 0; i < 16; i++ {
		var params []uint32
		for j := g.rng.IntN(4); j > 0; j-- {
			params = append(params, g.anyType())
		}
		ps := g.emptyArr
		if len(params) > 0 {
			ps = g.array(segOld, g.null, params)
		}
		ft := g.inst(segOld, c.functionType, g.stubs[1], g.smi(int64(g.rng.IntN(1<<30))), g.null, g.anyType(), ps, g.emptyArr)
		g.fnTypes = append(g.fnTypes, ft)
	}
	for _, l := range c.libs {
		g.library(l)
	}
	var scripts []uint32
	for _, l := range c.libs {
		scripts = append(scripts, g.scriptObj[l])
	}
	// The kernel blob is external typed data with a finalizer.
	blobLen := 4<<20 + g.rng.IntN(12<<20)
	blob := g.alloc(segOld, c.typedBase["Uint8"]+2, 32, LengthData, int64(blobLen))
	g.setSlots(blob, g.smi(int64(blobLen)))
	g.external(blob, uint64(blobLen), "Unknown native function")
	g.setSlots(g.kernelInfo, g.typed(segOld, "Uint32", 2000+g.rng.IntN(20000)), blob,
		g.typed(segOld, "Uint32", 500+g.rng.IntN(5000)), g.null, g.null,
		g.array(segOld, g.null, scripts), g.array(segOld, g.null, nil), g.null, g.null)
}

// newType creates a canonical _Type with the given type arguments (on
// image pages, like the rest of the canonical types of a snapshot).
func (g *gen) newType(args uint32) uint32 {
	return g.inst(segImage, g.c.typeC, g.stubs[2+g.rng.IntN(2)], g.smi(int64(g.rng.IntN(1<<30))), args)
}

// typeOf returns the declaration type of class l.name.
func (g *gen) typeOf(l library, name string) uint32 {
	for id := 1; id <= len(g.c.classes); id++ {
		ci := g.c.info(id)
		if ci.lib == l && ci.name == name && g.typeObj[id] != 0 {
			return g.typeObj[id]
		}
	}
	panic(fmt.Sprintf("dartgen: no type %s %s", l.uri, name))
}

func (g *gen) anyType() uint32 {
	for {
		if t := g.typeObj[1+g.rng.IntN(len(g.c.classes))]; t != 0 {
			return t
		}
	}
}

// typeArgs returns the canonical TypeArguments printed as name (NameData),
// holding types.
func (g *gen) typeArgs(name string, types ...uint32) uint32 {
	if o, ok := g.taCache[name]; ok {
		return o
	}
	o := g.named(segImage, g.c.typeArgs, roundUp(40+8*len(types), 16), name)
	refs := []uint32{g.zeroArr, g.smi(int64(len(types))), g.smi(int64(g.rng.IntN(1 << 30))), g.smi(int64(g.rng.IntN(1 << len(types))))}
	g.setRefs(o, append(refs, types...)...)
	g.taCache[name] = o
	g.taOrder = append(g.taOrder, o)
	return o
}

// external adds an external property to object o.
func (g *gen) external(o uint32, size uint64, name string) {
	g.ext = append(g.ext, extRec{object: o, size: size, name: uint32(g.name(name))})
}

// library creates a library's script, classes and dictionary.
func (g *gen) library(l library) {
	c := g.c
	script := g.named(segOld, c.script, 80, l.uri)
	src := g.sourceText(l)
	lines := strings.Count(src, "\n") + 1
	lineKind := "Uint16"
	if len(src) > 65535 {
		lineKind = "Uint32"
	}
	resolved := "file:///opt/flutter/bin/cache/pkg/sky_engine/lib/" + strings.TrimPrefix(l.uri, "dart:") + ".dart"
	if strings.HasPrefix(l.uri, "package:") {
		resolved = "file:///home/dev/.pub-cache/hosted/pub.dev/" + strings.TrimPrefix(l.uri, "package:")
	}
	g.setSlots(script, g.symbol(l.uri), g.str(segOld, resolved), g.typed(segOld, lineKind, lines), g.null, g.kernelInfo, g.str(segOld, src))
	g.scriptObj[l] = script

	var dict []uint32
	var toplevel uint32
	for id := 1; id <= len(c.classes); id++ {
		ci := c.info(id)
		if ci.invalid || ci.vmClass || ci.lib != l || ci.vmCid == 0 {
			continue
		}
		o := g.classObject(id, script)
		if ci.name == "::" {
			toplevel = o
		} else {
			dict = append(dict, o)
		}
	}
	// The dictionary is an open-addressing table with a used-count slot.
	size := 8
	for size < (len(dict)+1)*4/3 {
		size *= 2
	}
	table := make([]uint32, size+1)
	for i := range table {
		table[i] = g.null
	}
	for _, o := range dict {
		for {
			k := g.rng.IntN(size)
			if table[k] == g.null {
				table[k] = o
				break
			}
		}
	}
	table[size] = g.smi(int64(len(dict)))
	var imports []uint32
	for _, t := range g.c.libs[:min(3, len(g.c.libs))] {
		if t == l {
			break
		}
		imports = append(imports, g.inst(segOld, c.namespace, g.libObj[t], g.null, g.null, g.libObj[l]))
	}
	importsArr := g.emptyArr
	if len(imports) > 0 {
		importsArr = g.array(segOld, g.null, imports)
	}
	g.setSlots(g.libObj[l], g.symbol(l.name), g.symbol(l.uri), g.str(segOld, fmt.Sprintf("@%d", 1000000+g.rng.IntN(9000000))),
		g.array(segOld, g.null, table), g.null, toplevel, g.growable(segOld, g.null, []uint32{script}, 1),
		g.null, importsArr, g.emptyArr, g.null, g.null, g.null, g.null)
}

// classObject creates the Class object of class id with its functions,
// code, fields (instance and static) and allocation stub.
func (g *gen) classObject(id int, script uint32) uint32 {
	c := g.c
	ci := c.info(id)
	o := g.named(segOld, c.classC, 208, ci.name)
	g.classObj[id] = o
	isDart := ci.vmCid >= c.numPredefined
	owner := o
	if !isDart && g.rng.IntN(2) == 0 {
		// Functions of patched SDK classes are owned by a PatchClass.
		owner = g.inst48(c.patchClass, o, script, g.null)
	}
	names := coreFns
	switch {
	case ci.name == "::":
		names = topFns
	case strings.HasSuffix(ci.name, "Element"):
		names = elementFns
	case strings.HasPrefix(ci.name, "Render"):
		names = renderFns
	case strings.HasPrefix(ci.lib.uri, "package:flutter/src/widgets") || strings.HasPrefix(ci.lib.uri, "package:flutter/src/material"):
		names = widgetFns
	case strings.HasPrefix(ci.lib.uri, "package:"):
		names = modelFns
	}
	var fns []uint32
	for n := 1 + g.rng.IntN(5); n > 0; n-- {
		fns = append(fns, g.function(owner, g.pick(names)))
	}
	var fields []uint32
	if isDart {
		for i, f := range ci.fields {
			if f == "type_arguments_" || f == "native_fields_" {
				continue
			}
			guard := int64(-2) // Field::kNoFixedLength
			if g.rng.IntN(8) == 0 {
				guard = -1 // kUnknownFixedLength
			}
			fields = append(fields, g.field(f, o, g.smi(int64(i+1)), guard))
		}
	}
	for i, s := range staticTable {
		if s.name != "" && s.lib == ci.lib && s.owner == ci.name {
			fields = append(fields, g.field(s.name, o, g.smi(int64(i)), -2))
		}
	}
	stub := g.null
	if isDart && len(ci.fields) > 0 && g.rng.IntN(3) != 0 {
		stub = g.code(o, ci.name)
	}
	super := g.null
	if ci.name != "Object" {
		super = g.typeOf(libCore, "Object")
	}
	fnList, fieldList := g.emptyArr, g.emptyArr
	if len(fns) > 0 {
		fnList = g.array(segOld, g.null, fns)
	}
	if len(fields) > 0 {
		fieldList = g.array(segOld, g.null, fields)
	}
	decl := g.null
	if t := g.typeObj[id]; t != 0 {
		decl = t
	}
	g.setSlots(o, g.symbol(ci.name), g.null, fnList, g.null, fieldList, g.null, g.emptyArr, script,
		g.libObj[ci.lib], g.null, super, g.null, decl, g.emptyArr, stub, g.null, g.null, g.null)
	return o
}

// inst48 creates a PatchClass (48 bytes on 64-bit: the size
// pkg/heap_snapshot uses to detect the architecture).
func (g *gen) inst48(cls int, vals ...uint32) uint32 {
	o := g.alloc(segOld, cls, 48, NoData, 0)
	g.setSlots(o, vals...)
	return o
}

// field creates a Field object.
func (g *gen) field(name string, owner, offsetOrID uint32, guard int64) uint32 {
	f := g.named(segOld, g.c.field, 80, name)
	g.setSlots(f, g.symbol(name), owner, g.anyType(), g.null, offsetOrID, g.smi(guard), g.null)
	return f
}

// function creates a Function, compiled about half of the time.
func (g *gen) function(owner uint32, name string) uint32 {
	fn := g.named(segOld, g.c.function, 96, name)
	code := g.lazyStub
	if g.rng.IntN(2) == 0 {
		code = g.code(fn, name)
	}
	ic := g.null
	if code != g.lazyStub && g.rng.IntN(3) == 0 {
		ic = g.array(segOld, g.null, []uint32{g.smi(int64(g.rng.IntN(100))), g.null})
	}
	g.setSlots(fn, g.symbol(name), owner, g.fnTypes[g.rng.IntN(len(g.fnTypes))], g.null, ic, code, g.null)
	g.functions = append(g.functions, fn)
	return fn
}

// closureFunction creates the Function of a closure ("<anonymous
// closure>") with its ClosureData.
func (g *gen) closureFunction(parent uint32) uint32 {
	fn := g.named(segOld, g.c.function, 96, "<anonymous closure>")
	data := g.inst(segOld, g.c.closureData, g.emptyScope, parent, g.null)
	code := g.lazyStub
	if g.rng.IntN(2) == 0 {
		code = g.code(fn, "<anonymous closure>")
	}
	g.setSlots(fn, g.symbol("<anonymous closure>"), g.classObj[g.c.myApp], g.fnTypes[0], data, g.null, code, g.null)
	return fn
}

// code creates a Code object owned by owner (NameData = owner's name),
// with its object pool (old space) and instructions, descriptors and maps
// (image pages).
func (g *gen) code(owner uint32, name string) uint32 {
	c := g.c
	o := g.named(segOld, c.code, 128, name)
	ins := g.leaf(segImage, c.instructions, roundUp(16+32+g.rng.IntN(3000), 16), NoData, 0)
	pc := g.leaf(segImage, c.pcDescriptors, roundUp(16+4+g.rng.IntN(200), 16), NoData, 0)
	sm := g.leaf(segImage, c.stackMaps, roundUp(16+4+g.rng.IntN(120), 16), NoData, 0)
	csm := g.leaf(segImage, c.codeSrcMap, roundUp(16+4+g.rng.IntN(300), 16), NoData, 0)
	// Object pool: tagged entries are references, untagged ones (immediates,
	// native entry points) are counted in the length only.
	var entries []uint32
	for n := g.rng.IntN(12); n > 0; n-- {
		switch g.rng.IntN(6) {
		case 0:
			entries = append(entries, g.symbol(g.pick(coreFns)))
		case 1:
			entries = append(entries, g.stubs[g.rng.IntN(len(g.stubs))])
		case 2:
			entries = append(entries, g.anyType())
		case 3:
			entries = append(entries, g.smi(int64(g.rng.IntN(64))))
		case 4:
			entries = append(entries, g.null)
		default:
			if len(g.codes) > 0 {
				entries = append(entries, g.codes[g.rng.IntN(len(g.codes))])
			} else {
				entries = append(entries, g.tru)
			}
		}
	}
	length := len(entries) + g.rng.IntN(4)
	pool := g.emptyPool
	if length > 0 {
		pool = g.alloc(segOld, c.objectPool, roundUp(16+9*length, 16), LengthData, int64(length))
		g.setRefs(pool, entries...)
	}
	inlined := g.null
	if len(g.functions) > 4 && g.rng.IntN(5) == 0 {
		inlined = g.array(segOld, g.null, []uint32{g.functions[g.rng.IntN(len(g.functions))], g.functions[g.rng.IntN(len(g.functions))]})
	}
	g.setSlots(o, pool, ins, owner, g.emptyHandlers, pc, g.null, sm, inlined, csm)
	g.codes = append(g.codes, o)
	return o
}

// sourceText is a plausible source for library l (kept by the VM as the
// Script's source_; only its first 128 code units reach the file).
func (g *gen) sourceText(l library) string {
	var b strings.Builder
	if strings.HasPrefix(l.uri, "dart:") {
		b.WriteString("// Copyright (c) 2013, the Dart project authors.  Please see the AUTHORS file\n// for details. All rights reserved. Use of this source code is governed by a\n// BSD-style license that can be found in the LICENSE file.\n\n")
	} else if strings.HasPrefix(l.uri, "package:flutter/") {
		b.WriteString("// Copyright 2014 The Flutter Authors. All rights reserved.\n// Use of this source code is governed by a BSD-style license that can be\n// found in the LICENSE file.\n\nimport 'package:flutter/foundation.dart';\n\n")
	} else {
		b.WriteString("import 'package:flutter/material.dart';\n\n")
	}
	if l == libAppMain {
		b.WriteString("// Zähler-Demo: ein Beispiel → 计数器示例 🎉\n\n") // makes this source two-byte
	}
	for id := 1; id <= len(g.c.classes); id++ {
		ci := g.c.info(id)
		if ci.lib != l || ci.name == "::" || ci.invalid {
			continue
		}
		fmt.Fprintf(&b, "class %s {\n", ci.name)
		for _, f := range ci.fields {
			fmt.Fprintf(&b, "  Object? %s;\n", f)
		}
		b.WriteString("  @override\n  String toString() => '" + ci.name + "';\n}\n\n")
	}
	for n := g.rng.IntN(200); n > 0; n-- {
		b.WriteString("  // ")
		b.WriteString(g.pick(words))
		b.WriteString(" ")
		b.WriteString(g.pick(words))
		b.WriteString("\n")
	}
	return b.String()
}
