package v8gen

// The fixed part of the heap: the nodes in front of the Items, and the
// strings they name. It does not depend on the number of Items, so it is
// built once.

import "sync"

// V8's node types (Node 20's meta node_types list) and edge types.
const (
	nodeHidden    = 0
	nodeArray     = 1
	nodeString    = 2
	nodeObject    = 3
	nodeClosure   = 5
	nodeSynthetic = 9
	nodeShape     = 14 // "object shape"

	edgeElement  = 1
	edgeProperty = 2
	edgeInternal = 3
	edgeShortcut = 5
)

// rootCategories are the children of "(GC roots)" in Node 20, in its order
// (V8's Root enum; "(Strong roots)" appears twice).
var rootCategories = []string{
	"(Internalized strings)", "(External strings)", "(Read-only roots)", "(Strong roots)",
	"(Smi roots)", "(Bootstrapper)", "(Stack roots)", "(Relocatable)", "(Debugger)",
	"(Compilation cache)", "(Handle scope)", "(Builtins)", "(Global handles)",
	"(Traced handles)", "(Eternal handles)", "(Thread manager)", "(Strong roots)",
	"(Extensions)", "(Code flusher)", "(Startup object cache)", "(Read-only object cache)",
	"(Shareable object cache)", "(Weak collections)", "(Wrapper tracing)", "(Write barrier)",
	"(Retain maps)", "(Client heap)", "(Unknown)",
}

// Edge targets and names that depend on the layout, encoded as negative
// numbers in fixedEdge.
const (
	toItemsArray = -1 // the array of Items
	toMapObject  = -2 // the Map
)

// fixedNode is a node of the fixed part.
type fixedNode struct {
	typ, name, self int
	edges           []fixedEdge
}

// fixedEdge is an edge of the fixed part. name is a string index, or for
// element edges the index; a negative name -(j+1) is the decimal string j
// (which lives in the numeral part of the string table). A negative to is
// one of the to* constants.
type fixedEdge struct {
	typ, name, to int
}

// fixed is the fixed part: its nodes (node 0 is the root), its strings
// (string 0 is "<dummy>", 2 is "(GC roots)", which V8 also writes as the
// name of the root's shortcut edge to the global object), and the nodes and
// strings the Items refer to.
type fixed struct {
	nodes   []fixedNode
	strings []string
	edges   int // total number of edges of nodes
	// numerals is one more than the largest decimal string the fixed
	// edges name.
	numerals int

	// Nodes the Items refer to.
	stringMap, tableMap                 int
	arrayProto, mapProto                int
	itemProto, pointProto               int
	itemShape, pointShape               int
	holeyArrayShape, packedArrayShape   int
	mapShape                            int
	sItem, sPoint, sArray, sMap, sElems int // node names
	sName, sPt, sTags, sProto, sMapEdge int // edge names
	sElements, sTable                   int
	sTag                                [7]int  // "t0".."t6"
	sTag2                               [11]int // "u0".."u10"
}

var (
	fixedOnce sync.Once
	fixedHeap *fixed
)

// theFixed returns the fixed part, building it on first use.
func theFixed() *fixed {
	fixedOnce.Do(func() { fixedHeap = buildFixed() })
	return fixedHeap
}

// builder makes the fixed part.
type builder struct {
	f   *fixed
	ids map[string]int
}

func (b *builder) str(s string) int {
	if i, ok := b.ids[s]; ok {
		return i
	}
	i := len(b.f.strings)
	b.f.strings = append(b.f.strings, s)
	b.ids[s] = i
	return i
}

func (b *builder) node(typ int, name string, self int) int {
	b.f.nodes = append(b.f.nodes, fixedNode{typ: typ, name: b.str(name), self: self})
	return len(b.f.nodes) - 1
}

func (b *builder) add(from, typ, name, to int) {
	b.f.nodes[from].edges = append(b.f.nodes[from].edges, fixedEdge{typ, name, to})
	b.f.edges++
}

// named adds a property, internal or shortcut edge named s.
func (b *builder) named(from, typ int, s string, to int) { b.add(from, typ, b.str(s), to) }

// numbered adds an internal edge named by the decimal string of j, as V8
// names the slots of handle lists and hash tables.
func (b *builder) numbered(from, j, to int) {
	b.add(from, edgeInternal, -(j + 1), to)
	b.f.numerals = max(b.f.numerals, j+1)
}

// shape makes a map ("object shape" "system / Map") whose objects have the
// given prototype and constructor (-1: none) and props named properties.
func (b *builder) shape(proto, ctor, props, metaMap int) int {
	s := b.node(nodeShape, "system / Map", 72)
	if props > 0 {
		d := b.node(nodeShape, "system / DescriptorArray", 24+24*props)
		b.named(s, edgeInternal, "descriptors", d)
	}
	if proto >= 0 {
		b.named(s, edgeInternal, "prototype", proto)
	}
	if ctor >= 0 {
		b.named(s, edgeInternal, "constructor_or_back_pointer", ctor)
	}
	b.named(s, edgeInternal, "map", metaMap)
	return s
}

func buildFixed() *fixed {
	f := &fixed{}
	b := &builder{f: f, ids: map[string]int{}}
	b.str("<dummy>")
	root := b.node(nodeSynthetic, "", 0)
	gcRoots := b.node(nodeSynthetic, "(GC roots)", 0)
	if f.strings[2] != "(GC roots)" {
		panic("v8gen: string 2 is not (GC roots)")
	}
	cats := make([]int, len(rootCategories))
	for i, name := range rootCategories {
		cats[i] = b.node(nodeSynthetic, name, 0)
	}
	category := func(name string) int {
		for i, c := range rootCategories {
			if c == name {
				return cats[i]
			}
		}
		panic("v8gen: no root category " + name)
	}

	metaMap := b.node(nodeHidden, "system / Map", 72)
	f.stringMap = b.node(nodeHidden, "system / Map (OneByteString)", 72)
	f.tableMap = b.node(nodeHidden, "system / Map", 72)
	nativeContext := b.node(nodeHidden, "system / NativeContext", 2264)
	global := b.node(nodeObject, "global", 40)
	holder := b.node(nodeObject, "Object", 40)
	objectProto := b.node(nodeObject, "Object", 56)
	f.arrayProto = b.node(nodeObject, "Array", 32)
	f.mapProto = b.node(nodeObject, "Map", 56)
	f.itemProto = b.node(nodeObject, "Object", 24)
	f.pointProto = b.node(nodeObject, "Object", 24)
	objectCtor := b.node(nodeClosure, "Object", 64)
	arrayCtor := b.node(nodeClosure, "Array", 64)
	mapCtor := b.node(nodeClosure, "Map", 64)
	itemCtor := b.node(nodeClosure, "Item", 64)
	pointCtor := b.node(nodeClosure, "Point", 64)
	functionShape := b.shape(-1, -1, 3, metaMap)
	globalShape := b.shape(objectProto, -1, 0, metaMap)
	holderShape := b.shape(objectProto, objectCtor, 2, metaMap)
	objectProtoShape := b.shape(-1, objectCtor, 12, metaMap)
	arrayProtoShape := b.shape(objectProto, arrayCtor, 40, metaMap)
	mapProtoShape := b.shape(objectProto, mapCtor, 14, metaMap)
	itemProtoShape := b.shape(objectProto, itemCtor, 1, metaMap)
	pointProtoShape := b.shape(objectProto, pointCtor, 1, metaMap)
	f.itemShape = b.shape(f.itemProto, itemCtor, 4, metaMap)
	f.pointShape = b.shape(f.pointProto, pointCtor, 2, metaMap)
	f.holeyArrayShape = b.shape(f.arrayProto, arrayCtor, 1, metaMap)
	f.packedArrayShape = b.shape(f.arrayProto, arrayCtor, 1, metaMap)
	f.mapShape = b.shape(f.mapProto, mapCtor, 0, metaMap)

	// The root holds "(GC roots)" and, by a shortcut edge that V8 writes
	// with the name index 2, the global object.
	b.add(root, edgeElement, 1, gcRoots)
	b.add(root, edgeShortcut, 2, global)
	for i, c := range cats {
		b.add(gcRoots, edgeElement, i+1, c)
	}
	ro := category("(Read-only roots)")
	b.named(ro, edgeInternal, "meta_map", metaMap)
	b.named(ro, edgeInternal, "one_byte_string_map", f.stringMap)
	b.named(ro, edgeInternal, "ordered_hash_map_map", f.tableMap)
	gh := category("(Global handles)")
	b.numbered(gh, 1, nativeContext)
	b.numbered(gh, 2, global)

	b.named(metaMap, edgeInternal, "map", metaMap)
	b.named(f.stringMap, edgeInternal, "map", metaMap)
	b.named(f.tableMap, edgeInternal, "map", metaMap)

	b.named(nativeContext, edgeInternal, "global_proxy_object", global)
	b.named(nativeContext, edgeInternal, "object_function", objectCtor)
	b.named(nativeContext, edgeInternal, "array_function", arrayCtor)
	b.named(nativeContext, edgeInternal, "js_map_fun", mapCtor)
	b.named(nativeContext, edgeInternal, "map", metaMap)

	b.named(global, edgeProperty, "heapconvBig", holder)
	b.named(global, edgeProperty, "Object", objectCtor)
	b.named(global, edgeProperty, "Array", arrayCtor)
	b.named(global, edgeProperty, "Map", mapCtor)
	b.named(global, edgeProperty, "globalThis", global)
	b.named(global, edgeInternal, "native_context", nativeContext)
	b.named(global, edgeInternal, "map", globalShape)

	b.named(holder, edgeProperty, "items", toItemsArray)
	b.named(holder, edgeProperty, "byName", toMapObject)
	b.named(holder, edgeProperty, "__proto__", objectProto)
	b.named(holder, edgeInternal, "map", holderShape)

	proto := func(p, ctor, parent, shape int) {
		b.named(p, edgeProperty, "constructor", ctor)
		if parent >= 0 {
			b.named(p, edgeProperty, "__proto__", parent)
		}
		b.named(p, edgeInternal, "map", shape)
	}
	proto(objectProto, objectCtor, -1, objectProtoShape)
	proto(f.arrayProto, arrayCtor, objectProto, arrayProtoShape)
	proto(f.mapProto, mapCtor, objectProto, mapProtoShape)
	proto(f.itemProto, itemCtor, objectProto, itemProtoShape)
	proto(f.pointProto, pointCtor, objectProto, pointProtoShape)

	for _, c := range []struct{ ctor, proto int }{
		{objectCtor, objectProto}, {arrayCtor, f.arrayProto}, {mapCtor, f.mapProto},
		{itemCtor, f.itemProto}, {pointCtor, f.pointProto},
	} {
		b.named(c.ctor, edgeProperty, "prototype", c.proto)
		b.named(c.ctor, edgeInternal, "context", nativeContext)
		b.named(c.ctor, edgeInternal, "map", functionShape)
	}

	f.sItem = b.str("Item")
	f.sPoint = b.str("Point")
	f.sArray = b.str("Array")
	f.sMap = b.str("Map")
	f.sElems = b.str("(object elements)")
	f.sName = b.str("name")
	f.sPt = b.str("pt")
	f.sTags = b.str("tags")
	f.sProto = b.str("__proto__")
	f.sMapEdge = b.str("map")
	f.sElements = b.str("elements")
	f.sTable = b.str("table")
	for i := range f.sTag {
		f.sTag[i] = b.str("t" + itoa(i))
	}
	for i := range f.sTag2 {
		f.sTag2[i] = b.str("u" + itoa(i))
	}
	for _, s := range f.strings {
		if !plainString(s) {
			panic("v8gen: fixed string needs escaping: " + s)
		}
	}
	return f
}

// plainString reports whether s is written as is between quotes: printable
// ASCII without '"' and '\\', and neither a decimal numeral nor an
// "item-" name (those are the Items' strings, which must not repeat).
func plainString(s string) bool {
	digits := s != ""
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
		if c < '0' || c > '9' {
			digits = false
		}
	}
	return !digits && (len(s) < 5 || s[:5] != "item-")
}

func itoa(i int) string { return string(appendUint(nil, uint64(i))) }
