package dartgen

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf16"
)

// appState holds the application's long-lived objects.
type appState struct {
	uninitIndex uint32
	statics     map[string]uint32

	taString, taInt, taDouble, taDyn, taStrDyn, taObjN, taNum uint32
	taWidget, taElement, taTodo, taNode, taGNode, taStrGNode  uint32
	taPage, taUint8                                           uint32
	gNodeType                                                 uint32

	lifecycle, axis, mainAxis, textAlign, sched []uint32
	edgeInsets, colors, textStyles, tags        []uint32
	closureFns                                  []uint32

	rootZone, inherited, buildOwner, theme                  uint32
	rootEl, appEl, matEl, stEl, colEl, colW, colFlex        uint32
	appW, matW, pageW, state                                uint32
	page                                                    *column
	pages                                                   column
	finalizer, expando                                      uint32
	finEntries, expandoProps                                []uint32
	recent                                                  [256]uint32
	nRecent                                                 int
	cache                                                   *cacheBuilder
	todos, caches, trees, graphs, buffers, weakRefs, images *pager
	listeners, futures, numbers, typed, misc                *pager
}

// pager collects objects into fixed-capacity growable lists ("pages"); its
// top object is a growable list of the pages.
type pager struct {
	ta    uint32
	size  int
	items []uint32
	pages []uint32
}

func (g *gen) newPager(ta uint32, size int) *pager { return &pager{ta: ta, size: size} }

func (g *gen) add(p *pager, x uint32) {
	p.items = append(p.items, x)
	if len(p.items) == p.size {
		p.pages = append(p.pages, g.growable(segOld, p.ta, p.items, p.size))
		p.items = p.items[:0]
	}
}

func (g *gen) closePager(p *pager) uint32 {
	if len(p.items) > 0 {
		p.pages = append(p.pages, g.growable(segOld, p.ta, p.items, p.size))
		p.items = nil
	}
	return g.growable(segOld, g.null, p.pages, g.growCap(len(p.pages)))
}

// remember keeps o as a candidate target for weak references, graph
// payloads and stack slots.
func (g *gen) remember(o uint32) {
	g.app.recent[g.app.nRecent%len(g.app.recent)] = o
	g.app.nRecent++
}

func (g *gen) recentObj() uint32 {
	n := min(g.app.nRecent, len(g.app.recent))
	if n == 0 {
		return g.null
	}
	return g.app.recent[g.rng.IntN(n)]
}

// words feed strings of all kinds; some are Latin-1 beyond ASCII, some need
// UTF-16 (including characters outside the BMP).
var words = []string{
	"alpha", "build", "counter", "widget", "state", "render", "layout", "paint", "frame", "button",
	"todo", "shopping", "milk", "eggs", "bread", "call", "mom", "review", "pull", "request", "deploy",
	"release", "notes", "meeting", "weekly", "sync", "garden", "water", "plants", "flutter", "dart",
	"isolate", "heap", "snapshot", "memory", "leak", "cache", "image", "network", "retry", "timeout",
	"café", "naïve", "Größe", "façade", "niño", "crème", "brûlée", "smørrebrød", "Ærø", "déjà",
	"日本語", "Привет", "Ελληνικά", "こんにちは", "€100", "→next", "✓done", "😀", "🎉party", "👩‍💻",
}

var jsonKeys = []string{"id", "name", "email", "createdAt", "updatedAt", "tags", "score", "ratio", "active",
	"items", "meta", "avatarUrl", "description", "price", "currency", "lat", "lng", "children",
	"parentId", "version", "count", "title", "body", "userId", "completed"}

var extNames = []string{
	"Unknown native function",
	"tonic::DartWrappable::FinalizeDartWrapper(void*, void*)",
	"dart::FinalizeExternalTypedData(void*, void*)",
	"flutter::ImageDescriptor::~ImageDescriptor()",
	"dart::bin::Socket::ReuseSocketFinalizer(void*, void*)",
}

func (g *gen) phrase(lo, hi int) string {
	n := lo + g.rng.IntN(hi-lo+1)
	ws := make([]string, n)
	for i := range ws {
		ws[i] = g.pick(words)
	}
	return strings.Join(ws, " ")
}

// enum creates the constant values of an enum class (image pages).
func (g *gen) enum(cls int, names ...string) []uint32 {
	out := make([]uint32, len(names))
	for i, n := range names {
		out[i] = g.inst(segImage, cls, 0, g.str(segImage, n))
	}
	return out
}

func (g *gen) appBootstrap() {
	c, a := g.c, &g.app
	tString, tInt := g.typeOf(libCore, "String"), g.typeOf(libCore, "int")
	tObj := g.typeOf(libCore, "Object")
	a.taString = g.typeArgs("<String>", tString)
	a.taInt = g.typeArgs("<int>", tInt)
	a.taDouble = g.typeArgs("<double>", g.typeOf(libCore, "double"))
	a.taNum = g.typeArgs("<num>", g.typeOf(libCore, "num"))
	a.taDyn = g.typeArgs("<dynamic>", g.dynType)
	a.taStrDyn = g.typeArgs("<String, dynamic>", tString, g.dynType)
	a.taObjN = g.typeArgs("<Object?>", tObj)
	a.taWidget = g.typeArgs("<Widget>", g.typeOf(libFramework, "Widget"))
	a.taElement = g.typeArgs("<Element>", g.typeOf(libFramework, "Element"))
	a.taTodo = g.typeArgs("<Todo>", g.typeOf(libAppTodo, "Todo"))
	a.taNode = g.typeArgs("<Node>", g.typeOf(libAppTree, "Node"))
	a.gNodeType = g.newType(a.taString)
	a.taGNode = g.typeArgs("<Node<String>>", a.gNodeType)
	a.taStrGNode = g.typeArgs("<String, Node<String>>", tString, a.gNodeType)
	a.taPage = g.typeArgs("<CounterPage>", g.typeOf(libAppMain, "CounterPage"))
	a.taUint8 = g.typeArgs("<Uint8>", tInt)

	a.lifecycle = g.enum(c.lifecycleE, "initial", "active", "inactive", "defunct")
	a.axis = g.enum(c.axisE, "horizontal", "vertical")
	a.mainAxis = g.enum(c.mainAxisE, "start", "end", "center", "spaceBetween", "spaceAround", "spaceEvenly")
	a.textAlign = g.enum(c.textAlignE, "left", "right", "center", "justify", "start", "end")
	a.sched = g.enum(c.schedPhaseE, "idle", "transientCallbacks", "midFrameMicrotasks", "persistentCallbacks", "postFrameCallbacks")
	for i := 0; i < 3; i++ {
		a.edgeInsets = append(a.edgeInsets, g.inst(segImage, c.edgeInsets, 0, 0, 0, 0))
	}
	for i := 0; i < 6; i++ {
		a.colors = append(a.colors, g.inst(segImage, c.color, 0))
	}
	for i := 0; i < 24; i++ {
		a.closureFns = append(a.closureFns, g.closureFunction(g.functions[g.rng.IntN(len(g.functions))]))
	}
	for i := 0; i < 12; i++ {
		a.tags = append(a.tags, g.str(segOld, g.pick(words)))
	}
	for i := 0; i < 3; i++ {
		a.textStyles = append(a.textStyles, g.inst(segOld, c.textStyle, g.tru, a.colors[i], g.null,
			g.double(segOld, float64(12+2*i)), g.null, g.null, g.null, g.null, g.null, g.null, g.null,
			g.null, g.null, g.null, g.null, g.null, g.null, g.null, g.null, g.null, g.null,
			g.str(segOld, "englishLike bodyMedium 2021"), g.symbol("Roboto"), g.null, g.null, g.null))
	}

	a.rootZone = g.inst(segOld, c.rootZone)
	a.statics["zone"] = a.rootZone
	a.statics["random"] = g.inst(segOld, c.random, 0)
	var timers []uint32
	for i := 0; i < 3+g.rng.IntN(4); i++ {
		cl := g.closure(segOld, a.closureFns[i], g.null)
		timers = append(timers, g.inst(segOld, c.timer, g.smi(int64(i)), 0, cl, 0, 0, g.boolRef(i == 0)))
	}
	for len(timers) < 8 {
		timers = append(timers, g.null)
	}
	a.statics["timerHeap"] = g.array(segOld, g.null, timers)
	a.statics["timerId"] = g.smi(int64(40 + g.rng.IntN(1000)))
	a.statics["theme"] = g.inst(segOld, c.theme, g.fls, g.emptyHash(segOld, c.mapC, g.null), g.null, g.null, g.null,
		g.null, g.null, g.null, g.tru, g.null, a.colors[3], a.colors[4], g.null, a.colors[5], g.null)
	a.theme = a.statics["theme"]
	a.statics["channel"] = g.inst(segOld, c.methodChannel, g.str(segImage, "plugins.flutter.io/path_provider"), g.null, g.null)

	// The element tree spine: RootElement > MyApp > MaterialApp > CounterPage
	// (stateful) > Column, whose children are pages of items.
	a.inherited = g.emptyHash(segOld, c.mapC, a.taObjN)
	inactive := g.inst(segOld, c.inactiveEls, g.fls, g.emptyHash(segOld, c.setC, a.taElement))
	a.buildOwner = g.inst(segOld, c.buildOwner, g.closure(segOld, a.closureFns[0], g.null), inactive,
		g.growable(segOld, a.taElement, nil, 0), g.fls, g.null, g.null, g.emptyHash(segOld, c.mapC, a.taObjN))
	a.rootEl = g.alloc(segOld, c.rootEl, instSize(14), NoData, 0)
	a.appEl = g.alloc(segOld, c.statelessEl, instSize(14), NoData, 0)
	a.matEl = g.alloc(segOld, c.statelessEl, instSize(14), NoData, 0)
	a.stEl = g.alloc(segOld, c.statefulEl, instSize(16), NoData, 0)
	a.state = g.alloc(segOld, c.counterState, instSize(8), NoData, 0)
	a.appW = g.inst(segOld, c.myApp, g.null)
	a.pageW = g.inst(segOld, c.counterPage, g.inst(segOld, c.valueKey, a.taString, g.str(segImage, "home")), g.str(segImage, "Flutter Demo Home Page"))
	a.matW = g.inst(segOld, c.materialApp, g.null, g.null, a.pageW, g.emptyHash(segImage, c.constMap, g.null), g.null,
		g.str(segImage, "Flutter Demo"), a.theme, g.tru)
	a.colEl = g.alloc(segOld, c.multiEl, instSize(17), NoData, 0)
	a.colW = g.alloc(segOld, c.column, instSize(11), NoData, 0)
	a.colFlex = g.alloc(segOld, c.renderFlex, instSize(26), NoData, 0)
	a.statics["binding"] = g.inst(segOld, c.binding, a.buildOwner, a.rootEl, g.tru,
		g.growable(segOld, g.null, nil, 0), g.emptyHash(segOld, c.mapC, g.null), 0, g.null)

	a.finalizer = g.alloc(segOld, c.finalizer, 64, NoData, 0)
	a.statics["finalizer"] = a.finalizer
	a.expando = g.alloc(segOld, c.expando, instSize(4), NoData, 0)
	a.statics["expando"] = a.expando

	a.todos = g.newPager(a.taTodo, 64)
	a.caches = g.newPager(g.null, 32)
	a.cache = &cacheBuilder{}
	a.trees = g.newPager(a.taNode, 32)
	a.graphs = g.newPager(g.null, 16)
	a.buffers = g.newPager(g.null, 64)
	a.weakRefs = g.newPager(g.null, 128)
	a.images = g.newPager(g.null, 16)
	a.listeners = g.newPager(g.null, 64)
	a.futures = g.newPager(g.null, 64)
	a.numbers = g.newPager(g.null, 32)
	a.typed = g.newPager(g.null, 32)
	a.misc = g.newPager(g.null, 64)
	g.edgeCases()
}

// edgeCases builds one list holding every encoding corner case, so even
// the smallest heap has them all.
func (g *gen) edgeCases() {
	c, a := g.c, &g.app
	var e []uint32
	for _, v := range []int64{0, 1, -1, -2, 63, 64, 100, 127, 128, 8191, 8192, 16383, 16384,
		1 << 31, -(1 << 31), 1<<53 + 1, -(1 << 53), smiMax, smiMin, smiMax - 1, smiMin + 1, -1000000007} {
		e = append(e, g.smi(v))
	}
	for _, v := range []int64{math.MaxInt64, math.MinInt64, 1 << 62, -(1 << 62) - 1, -(1 << 62) - 5,
		1<<62 + 12345, -(1 << 63) + 1, 0x7fffffffffffff00} {
		e = append(e, g.mint(segOld, v))
	}
	for _, f := range []float64{math.NaN(), math.Copysign(0, -1), 0, math.Inf(1), math.Inf(-1), 0.1,
		1e308, 5e-324, -1.5, math.MaxFloat64, math.SmallestNonzeroFloat64 * 3} {
		e = append(e, g.double(segOld, f))
	}
	e = append(e, g.tru, g.fls, g.null, g.uninit, g.emptyStr, g.emptyArr, g.zeroArr)
	ascii := strings.Repeat("0123456789abcdef", 20) // 320 units
	e = append(e,
		g.str(segOld, "a"),
		g.str(segOld, ascii[:127]), g.str(segOld, ascii[:128]), g.str(segOld, ascii[:129]),
		g.str(segOld, ascii+ascii+ascii),                     // 960 units, truncated
		g.str(segOld, strings.Repeat("café crème ", 30)),     // Latin-1 beyond ASCII, truncated
		g.str(segOld, "Grüße, 世界"),                           // two-byte
		g.str(segOld, "thumbs up 👍🏽 done"),                   // surrogate pairs
		g.str(segOld, strings.Repeat("日本語のテキスト", 40)),        // two-byte, truncated
		g.str(segOld, strings.Repeat("x", 127)+"😀"+"tail"),   // truncation splits a surrogate pair
		g.utf16(segOld, []uint16{'a', 0xD800, 'b'}),          // lone high surrogate
		g.utf16(segOld, []uint16{'e', 'n', 'd', 0xDC00}),     // lone low surrogate at the end
		g.utf16(segOld, []uint16{0xDBFF, 0xDFFF, 0xFFFF, 0}), // U+10FFFF, U+FFFF, NUL
		g.latin1(segOld, []byte{0, 'n', 'u', 'l', 0xff}),     // NUL and ÿ
	)
	// External strings: character data owned outside the heap (32-byte
	// objects; the data is an external property).
	ext1 := []byte("external one-byte string from a native API")
	ext2 := utf16.Encode([]rune("external two-byte string → ∑ 🚀"))
	o1 := g.latin1As(segOld, c.extOneByte, 32, ext1)
	o2 := g.utf16As(segOld, c.extTwoByte, 32, ext2)
	g.external(o1, uint64(len(ext1)), extNames[0])
	g.external(o2, uint64(2*len(ext2)), extNames[0])
	e = append(e, o1, o2)
	// Const collections on image pages.
	k1, k2 := g.str(segImage, "light"), g.str(segImage, "dark")
	e = append(e,
		g.immutable(segImage, a.taString, []uint32{k1, k2, g.str(segImage, "system")}),
		g.hashMap(segImage, c.constMap, a.taStrDyn, []uint32{k1, k2}, []uint32{g.smi(1), g.smi(2)}, 0),
		g.hashSet(segImage, c.constSet, a.taString, []uint32{k1, k2}),
		g.hashMap(segOld, c.mapC, a.taStrDyn, []uint32{g.str(segOld, "kept")}, []uint32{g.null}, 3),
	)
	// Weak objects with cleared referents.
	e = append(e, g.inst(segOld, c.weakProp, g.null, g.null), g.inst(segOld, c.weakRef, g.null, a.taObjN))
	// A three-deep context chain and a closure over it.
	ctx := g.context(segOld, g.null, g.smi(1))
	ctx = g.context(segOld, ctx, g.str(segOld, "captured"), g.null)
	ctx = g.context(segOld, ctx, a.state, g.smi(-7), g.double(segOld, 2.5))
	e = append(e, g.closure(segOld, a.closureFns[1], ctx))
	// Unboxed slots of every flavour.
	e = append(e, g.inst(segOld, c.offset, 0, 0), g.inst(segOld, c.rect, 0, 0, 0, 0),
		g.inst(segOld, c.duration, 0), g.inst(segOld, c.boxConstraints, 0, 0, 0, 0))
	// Assorted VM objects.
	codes := []uint32{g.codes[0], g.codes[1], g.null}
	e = append(e,
		g.inst(segOld, c.stackTrace, g.null, g.array(segOld, g.null, codes), g.typed(segOld, "Uint32", 3)),
		g.typed(segOld, "Float32x4", 4),
		g.leaf(segOld, c.capability, 16, NoData, 0),
		g.inst(segOld, c.pointer, a.taUint8),
		g.inst(segOld, c.userTag, g.str(segOld, "AppStartUp")),
		g.inst(segOld, c.unlinkedCall, g.symbol("toString"), g.array(segOld, g.null, []uint32{g.smi(0), g.smi(1)})),
		g.inst(segOld, c.libPrefix, g.symbol("ui"), g.libObj[libAppMain], g.array(segOld, g.null, nil)),
	)
	a.statics["edge"] = g.array(segOld, g.null, e)
}

// cacheBuilder fills LruCache objects with URL -> decoded JSON entries.
type cacheBuilder struct{ keys, vals []uint32 }

// sceneKinds is the number of scene kinds sceneOf knows.
const sceneKinds = 13

// sceneWeights are the cumulative percentages of the scene kinds.
var sceneWeights = [sceneKinds]int{24, 36, 48, 57, 62, 66, 72, 79, 84, 90, 91, 93, 100}

// scene adds one randomly chosen piece of application state.
func (g *gen) scene() {
	r := g.rng.IntN(100)
	k := 0
	for sceneWeights[k] <= r {
		k++
	}
	g.sceneOf(k, g.young())
}

// sceneOf adds one piece of application state of kind k.
func (g *gen) sceneOf(k int, seg segment) {
	a := &g.app
	switch k {
	case 0:
		g.elementItem(seg)
	case 1:
		g.add(a.todos, g.todo(seg))
	case 2:
		g.cacheEntry(seg)
	case 3:
		g.closureScene(seg)
	case 4:
		g.add(a.trees, g.tree(seg, 1+g.rng.IntN(5)))
	case 5:
		g.add(a.graphs, g.graphScene(seg))
	case 6:
		g.add(a.typed, g.typedScene(seg))
	case 7:
		g.weakScene(seg)
	case 8:
		g.add(a.numbers, g.numbers(seg))
	case 9:
		g.add(a.misc, g.miscScene(seg))
	case 10:
		g.add(a.images, g.imageScene(seg))
	case 11:
		g.add(a.buffers, g.nativeBuffer(seg))
	default:
		g.garbage(seg)
	}
}

// garbage builds something nothing refers to (unreachable, not yet
// collected).
func (g *gen) garbage(seg segment) {
	switch g.rng.IntN(5) {
	case 0:
		g.todo(seg)
	case 1:
		g.jsonValue(seg, 1)
	case 2:
		g.tree(seg, 2)
	case 3:
		g.array(seg, g.null, []uint32{g.str(seg, g.phrase(1, 3)), g.smi(int64(g.rng.IntN(1000)))})
	default:
		g.closure(seg, g.app.closureFns[g.rng.IntN(len(g.app.closureFns))], g.context(seg, g.null, g.recentObj()))
	}
}

// ---- widgets, elements, render objects ----

// column is a Column widget with its element and RenderFlex.
type column struct {
	el, widget, flex                uint32
	items, widgets, renders, offset []uint32
	pds                             []uint32
}

// elementSlots are the 13 slots every Element has.
func (g *gen) elementSlots(parent, widget uint32, depth int) []uint32 {
	a := &g.app
	return []uint32{parent, g.null, g.null, g.smi(int64(depth)), widget, a.buildOwner, g.null,
		a.inherited, g.null, g.fls, a.lifecycle[1], g.fls, g.fls}
}

// renderBoxSlots are the slots of RenderObject + RenderBox (self is the
// render object, its own relayout boundary).
func (g *gen) renderBoxSlots(seg segment, self, parentData, parent, constraints uint32) []uint32 {
	c := g.c
	return []uint32{parentData, 0, parent, g.null, g.fls, self, constraints, g.fls,
		g.inst(seg, c.layerHandle, g.null, g.null), g.fls, g.null,
		g.inst(seg, c.layoutCache, g.null, g.null, g.null, g.null), g.inst(seg, c.size, 0, 0)}
}

// elementItem adds one item subtree to the current page of the column:
// Padding > Text > RichText with their elements and render objects, or a
// stateful counter card.
func (g *gen) elementItem(seg segment) {
	c, a := g.c, &g.app
	if a.page == nil || len(a.page.items) >= 48 {
		if a.page != nil {
			g.closePage()
		}
		a.page = &column{
			el:     g.alloc(segOld, c.multiEl, instSize(17), NoData, 0),
			widget: g.alloc(segOld, c.column, instSize(11), NoData, 0),
			flex:   g.alloc(segOld, c.renderFlex, instSize(26), NoData, 0),
		}
	}
	p := a.page
	constraints := g.inst(seg, c.boxConstraints, 0, 0, 0, 0)
	pd := g.alloc(seg, c.flexParentData, instSize(5), NoData, 0)
	off := g.inst(seg, c.offset, 0, 0)
	var el, w, ro uint32
	if g.rng.IntN(6) == 0 {
		el, w, ro = g.counterCard(seg, p, pd, constraints)
	} else {
		el, w, ro = g.textRow(seg, p, pd, constraints)
	}
	p.items = append(p.items, el)
	p.widgets = append(p.widgets, w)
	p.renders = append(p.renders, ro)
	p.pds = append(p.pds, pd)
	p.offset = append(p.offset, off)
	g.remember(el)
}

// textRow is Padding > Text > RichText.
func (g *gen) textRow(seg segment, p *column, pd, constraints uint32) (el, widget, render uint32) {
	c, a := g.c, &g.app
	padEl := g.alloc(seg, c.singleEl, instSize(16), NoData, 0)
	textEl := g.alloc(seg, c.statelessEl, instSize(14), NoData, 0)
	richEl := g.alloc(seg, c.multiEl, instSize(17), NoData, 0)
	rPad := g.alloc(seg, c.renderPad, instSize(17), NoData, 0)
	rPara := g.alloc(seg, c.renderPara, instSize(17), NoData, 0)

	var s uint32
	switch g.rng.IntN(10) {
	case 0:
		s = g.str(seg, g.phrase(20, 40)) // long, truncated in the file
	case 1:
		s = g.str(segImage, g.pick(words)) // a literal
	default:
		s = g.str(seg, g.phrase(1, 4))
	}
	key := g.null
	if g.rng.IntN(3) == 0 {
		key = g.inst(seg, c.valueKey, a.taInt, g.smi(int64(g.rng.IntN(100000))))
	}
	style := a.textStyles[g.rng.IntN(len(a.textStyles))]
	maxLines := g.null
	if g.rng.IntN(4) == 0 {
		maxLines = g.smi(int64(1 + g.rng.IntN(3)))
	}
	align := a.textAlign[g.rng.IntN(len(a.textAlign))]
	insets := a.edgeInsets[g.rng.IntN(len(a.edgeInsets))]
	span := g.inst(seg, c.textSpan, style, s, g.null, g.null, g.null, g.null, g.null, g.null, g.null, g.null)
	richW := g.inst(seg, c.richText, g.null, g.emptyArr, span, align, g.null, g.tru, g.null, g.null, maxLines,
		g.null, g.null, g.null, g.null, g.null, g.null)
	textW := g.inst(seg, c.text, g.null, s, g.null, style, g.null, align, g.null, g.null, g.null, g.null, g.null,
		maxLines, g.null, g.null, g.null, g.null)
	padW := g.inst(seg, c.padding, key, textW, insets)

	g.setSlots(padEl, append(g.elementSlots(p.el, padW, 6), rPad, p.el, textEl)...)
	g.setSlots(textEl, append(g.elementSlots(padEl, textW, 7), richEl)...)
	g.setSlots(richEl, append(g.elementSlots(textEl, richW, 8), rPara, padEl, g.emptyArr, g.emptyHash(seg, c.setC, a.taElement))...)

	painter := g.inst(seg, c.textPainter, g.null, span, align, g.null, g.null, maxLines, g.null, g.null, g.null, g.null, g.null)
	paraPD := g.inst(seg, c.boxParentData, g.inst(seg, c.offset, 0, 0))
	g.setSlots(rPara, append(g.renderBoxSlots(seg, rPara, paraPD, rPad, constraints), painter, g.tru, g.null, g.null)...)
	g.setSlots(rPad, append(g.renderBoxSlots(seg, rPad, pd, p.flex, constraints), rPara, insets, insets, g.null)...)
	return padEl, padW, rPad
}

// counterCard is a stateful CounterPage card: StatefulElement with its
// State (a ValueNotifier, a closure over the state) and a Padding child
// without a child of its own.
func (g *gen) counterCard(seg segment, p *column, pd, constraints uint32) (el, widget, render uint32) {
	c, a := g.c, &g.app
	stEl := g.alloc(seg, c.statefulEl, instSize(16), NoData, 0)
	padEl := g.alloc(seg, c.singleEl, instSize(16), NoData, 0)
	rPad := g.alloc(seg, c.renderPad, instSize(17), NoData, 0)
	state := g.alloc(seg, c.counterState, instSize(8), NoData, 0)
	cardW := g.inst(seg, c.counterPage, g.inst(seg, c.valueKey, a.taString, g.str(seg, fmt.Sprintf("card-%d", g.rng.IntN(1e6)))), g.str(seg, g.phrase(1, 3)))
	insets := a.edgeInsets[0]
	padW := g.inst(seg, c.padding, g.null, g.null, insets)
	onTap := g.closure(seg, a.closureFns[g.rng.IntN(len(a.closureFns))], g.context(seg, g.null, state))
	listeners := g.array(seg, g.null, []uint32{onTap, g.null})
	notifier := g.inst(seg, c.valueNotifier, 0, listeners, 0, 0, a.taInt, g.smi(int64(g.rng.IntN(1000))))
	var todos []uint32
	for n := g.rng.IntN(3); n > 0; n-- {
		todos = append(todos, g.todo(seg))
	}
	g.setSlots(state, a.taPage, cardW, g.null, stEl, 0,
		g.growable(seg, a.taTodo, todos, g.growCap(len(todos))), notifier, onTap)
	g.setSlots(stEl, append(g.elementSlots(p.el, cardW, 6), padEl, state, g.fls)...)
	g.setSlots(padEl, append(g.elementSlots(stEl, padW, 7), rPad, p.el, g.null)...)
	g.setSlots(rPad, append(g.renderBoxSlots(seg, rPad, pd, p.flex, constraints), g.null, insets, insets, g.null)...)
	return stEl, cardW, rPad
}

// closePage closes the current page of items and adds it to the top column.
func (g *gen) closePage() {
	c, a := g.c, &g.app
	pd := g.alloc(segOld, c.flexParentData, instSize(5), NoData, 0)
	g.closeColumn(a.page, a.colEl, a.colFlex, pd, 5)
	a.pages.items = append(a.pages.items, a.page.el)
	a.pages.widgets = append(a.pages.widgets, a.page.widget)
	a.pages.renders = append(a.pages.renders, a.page.flex)
	a.pages.pds = append(a.pages.pds, pd)
	a.pages.offset = append(a.pages.offset, g.inst(segOld, c.offset, 0, 0))
	a.page = nil
}

// closeColumn sets the references of a column once its children are known.
func (g *gen) closeColumn(p *column, parentEl, parentRender, parentData uint32, depth int) {
	c, a := g.c, &g.app
	n := len(p.items)
	for i, pd := range p.pds {
		prev, next := g.null, g.null
		if i > 0 {
			prev = p.renders[i-1]
		}
		if i+1 < n {
			next = p.renders[i+1]
		}
		g.setSlots(pd, p.offset[i], prev, next, g.null, g.null)
	}
	first, last := g.null, g.null
	if n > 0 {
		first, last = p.renders[0], p.renders[n-1]
	}
	widgets := g.growable(segOld, a.taWidget, p.widgets, g.growCap(n))
	g.setSlots(p.widget, g.null, widgets, a.axis[1], a.mainAxis[0], g.null, g.null, g.null, g.null, g.null, g.null, 0)
	constraints := g.inst(segOld, c.boxConstraints, 0, 0, 0, 0)
	g.setSlots(p.flex, append(g.renderBoxSlots(segOld, p.flex, parentData, parentRender, constraints),
		0, first, last, a.axis[1], a.mainAxis[g.rng.IntN(len(a.mainAxis))], g.null, g.null, g.null, g.null, g.null, g.null, 0, 0)...)
	g.setSlots(p.el, append(g.elementSlots(parentEl, p.widget, depth), p.flex, parentEl,
		g.array(segOld, a.taElement, p.items), g.emptyHash(segOld, c.setC, a.taElement))...)
}

// ---- models ----

func (g *gen) todo(seg segment) uint32 {
	c, a := g.c, &g.app
	title := g.str(seg, g.phrase(1, 5))
	note := g.null
	switch g.rng.IntN(6) {
	case 0:
		note = g.str(seg, g.phrase(25, 60)) // longer than 128 code units
	case 1:
		note = g.str(seg, g.phrase(1, 6))
	}
	var tags []uint32
	for n := g.rng.IntN(4); n > 0; n-- {
		tags = append(tags, a.tags[g.rng.IntN(len(a.tags))])
	}
	attachment := g.null
	if g.rng.IntN(10) == 0 {
		attachment = g.typed(seg, "Uint8", g.rng.IntN(2048))
	}
	created := g.inst(seg, c.dateTime, 0, g.boolRef(g.rng.IntN(4) == 0))
	t := g.inst(seg, c.todo, 0, title, note, g.boolRef(g.rng.IntN(3) == 0),
		g.growable(seg, a.taString, tags, g.growCap(len(tags))), created, 0, attachment)
	g.remember(t)
	return t
}

// intValue is an integer as found in decoded JSON and counters: mostly
// small, sometimes negative, 64..127 (one uleb byte, bit 6 set), large, or
// near the Smi limits; rarely beyond them (a Mint).
func (g *gen) intValue() int64 {
	switch r := g.rng.IntN(100); {
	case r < 40:
		return int64(g.rng.IntN(64))
	case r < 55:
		return 64 + int64(g.rng.IntN(64))
	case r < 70:
		return int64(g.rng.IntN(1 << 20))
	case r < 82:
		return -1 - int64(g.rng.IntN(1<<16))
	case r < 90:
		return int64(1600000000000 + g.rng.IntN(1<<30)) // epoch millis
	case r < 95:
		return smiMax - int64(g.rng.IntN(1000))
	case r < 99:
		return smiMin + int64(g.rng.IntN(1000))
	default:
		if g.rng.IntN(2) == 0 {
			return smiMax + 1 + int64(g.rng.IntN(1<<20))
		}
		return smiMin - 1 - int64(g.rng.IntN(1<<20))
	}
}

func (g *gen) doubleValue() float64 {
	switch g.rng.IntN(40) {
	case 0:
		return math.NaN()
	case 1:
		return math.Copysign(0, -1)
	case 2:
		return math.Inf(1 - 2*g.rng.IntN(2))
	}
	return math.Round(g.rng.NormFloat64()*1e4) / 100
}

// jsonValue is one value of decoded JSON.
func (g *gen) jsonValue(seg segment, depth int) uint32 {
	a := &g.app
	switch r := g.rng.IntN(100); {
	case r < 28:
		if g.rng.IntN(12) == 0 {
			return g.str(seg, g.phrase(30, 60))
		}
		return g.str(seg, g.phrase(1, 3))
	case r < 52:
		return g.integer(seg, g.intValue())
	case r < 62:
		return g.double(seg, g.doubleValue())
	case r < 70:
		return g.boolRef(g.rng.IntN(2) == 0)
	case r < 74:
		return g.null
	case r < 88 && depth < 3:
		n := g.rng.IntN(8)
		keys, vals := make([]uint32, n), make([]uint32, n)
		used := map[string]bool{}
		for i := range n {
			k := g.pick(jsonKeys)
			for used[k] {
				k += "_"
			}
			used[k] = true
			keys[i] = g.str(seg, k)
			vals[i] = g.jsonValue(seg, depth+1)
		}
		return g.hashMap(seg, g.c.mapC, a.taStrDyn, keys, vals, 0)
	case depth < 3:
		n := g.rng.IntN(6)
		vals := make([]uint32, n)
		for i := range vals {
			vals[i] = g.jsonValue(seg, depth+1)
		}
		return g.growable(seg, a.taDyn, vals, g.growCap(n))
	default:
		return g.str(seg, g.pick(jsonKeys))
	}
}

// cacheEntry adds a URL -> JSON entry to the current LruCache.
func (g *gen) cacheEntry(seg segment) {
	a := &g.app
	cb := a.cache
	cb.keys = append(cb.keys, g.str(seg, fmt.Sprintf("https://api.example.com/v2/items/%d?lang=%s", g.rng.IntN(1e7), g.pick([]string{"en", "de", "ja"}))))
	v := g.jsonValue(seg, 0)
	cb.vals = append(cb.vals, v)
	g.remember(v)
	if len(cb.keys) >= 64 {
		g.flushCache()
	}
}

func (g *gen) flushCache() {
	c, a := g.c, &g.app
	cb := a.cache
	if len(cb.keys) == 0 {
		return
	}
	m := g.hashMap(segOld, c.mapC, a.taStrDyn, cb.keys, cb.vals, g.rng.IntN(3))
	g.add(a.caches, g.inst(segOld, c.lruCache, a.taStrDyn, m, 0, g.integer(segOld, g.intValue()), g.smi(int64(g.rng.IntN(500)))))
	cb.keys, cb.vals = cb.keys[:0], cb.vals[:0]
}

// closureScene: a closure over a context chain, often with a pending
// future and its listener.
func (g *gen) closureScene(seg segment) {
	c, a := g.c, &g.app
	parent := g.null
	if g.rng.IntN(3) == 0 {
		parent = g.context(seg, g.null, g.recentObj())
	}
	vars := []uint32{g.recentObj()}
	for n := g.rng.IntN(3); n > 0; n-- {
		vars = append(vars, g.integer(seg, g.intValue()))
	}
	cl := g.closure(seg, a.closureFns[g.rng.IntN(len(a.closureFns))], g.context(seg, parent, vars...))
	g.add(a.listeners, cl)
	if g.rng.IntN(2) == 0 {
		fut := g.alloc(seg, c.future, instSize(4), NoData, 0)
		result := g.inst(seg, c.future, a.taDyn, g.smi(0), a.rootZone, g.null)
		listener := g.inst(seg, c.futListener, g.null, result, 0, cl, g.null)
		state := []int64{0, 1, 2, 4, 8, 16}[g.rng.IntN(6)]
		g.setSlots(fut, a.taDyn, g.smi(state), a.rootZone, listener)
		g.add(a.futures, g.inst(seg, c.completer, a.taDyn, fut))
	}
}

// tree is a binary tree of package:myapp/src/tree.dart Nodes.
func (g *gen) tree(seg segment, depth int) uint32 {
	if depth == 0 {
		return g.null
	}
	l, r := g.tree(seg, depth-1), g.null
	if g.rng.IntN(4) != 0 {
		r = g.tree(seg, depth-1)
	}
	var v uint32
	switch g.rng.IntN(4) {
	case 0:
		v = g.str(seg, g.pick(words))
	case 1:
		v = g.double(seg, g.doubleValue())
	default:
		v = g.integer(seg, g.intValue())
	}
	return g.inst(seg, g.c.treeNode, v, l, r, 0)
}

// graphScene is a package:graph_kit Graph: Node<String>s whose edges form
// cycles, indexed by id in a map.
func (g *gen) graphScene(seg segment) uint32 {
	c, a := g.c, &g.app
	n := 3 + g.rng.IntN(12)
	nodes := make([]uint32, n)
	for i := range nodes {
		nodes[i] = g.alloc(seg, c.graphNode, instSize(5), NoData, 0)
	}
	ids := make([]uint32, n)
	for i, o := range nodes {
		ids[i] = g.str(seg, fmt.Sprintf("n%d", i))
		var edges []uint32
		for k := g.rng.IntN(4); k > 0; k-- {
			edges = append(edges, nodes[g.rng.IntN(n)])
		}
		payload := g.null
		if g.rng.IntN(4) == 0 {
			payload = g.recentObj()
		}
		g.setSlots(o, a.taString, ids[i], g.growable(seg, a.taGNode, edges, g.growCap(len(edges))), 0, payload)
	}
	byID := g.hashMap(seg, c.mapC, a.taStrGNode, ids, nodes, 0)
	return g.inst(seg, c.graph, a.taString, g.growable(seg, a.taGNode, nodes, g.growCap(n)), byID)
}

// typedScene is typed data: internal lists, views, byte buffers and
// external arrays with their external property.
func (g *gen) typedScene(seg segment) uint32 {
	c := g.c
	switch g.rng.IntN(7) {
	case 0:
		return g.typed(seg, "Float64", g.rng.IntN(64))
	case 1:
		return g.typed(seg, "Int32", g.rng.IntN(256))
	case 2:
		base := g.typed(seg, "Uint8", 16+g.rng.IntN(4096))
		// Views have no LengthData (docs/formats/dart.md lists internal
		// and external typed data only).
		v := g.alloc(seg, c.typedBase["Uint8"]+1, 48, NoData, 0)
		g.setSlots(v, g.smi(16), base, g.smi(int64(g.rng.IntN(16))))
		return v
	case 3:
		base := g.typed(seg, "Uint8", 64)
		v := g.alloc(seg, c.byteDataView, 48, NoData, 0)
		g.setSlots(v, g.smi(64), base, g.smi(0))
		return v
	case 4:
		n := 1 + g.rng.IntN(64<<10)
		if g.rng.IntN(10) == 0 {
			n = 1<<20 + g.rng.IntN(3<<20) // a decoded asset
		}
		o := g.alloc(seg, c.typedBase["Uint8"]+2, 32, LengthData, int64(n))
		g.setSlots(o, g.smi(int64(n)))
		g.external(o, uint64(n), extNames[2])
		return o
	case 5:
		base := g.typed(seg, "Uint8", 32)
		v := g.alloc(seg, c.typedBase["Uint8"]+3, 48, NoData, 0)
		g.setSlots(v, g.smi(32), base, g.smi(0))
		return v
	default:
		return g.typed(seg, "Uint8", g.rng.IntN(512))
	}
}

// weakScene: an Expando entry (a _WeakProperty), a WeakReference, or a
// finalizer entry.
func (g *gen) weakScene(seg segment) {
	c, a := g.c, &g.app
	switch g.rng.IntN(3) {
	case 0:
		a.expandoProps = append(a.expandoProps, g.inst(seg, c.weakProp, g.recentObj(), g.str(seg, g.pick(words))))
	case 1:
		target := g.recentObj()
		if g.rng.IntN(5) == 0 {
			target = g.null // cleared
		}
		g.add(a.weakRefs, g.inst(seg, c.weakRef, target, a.taObjN))
	default:
		g.nativeBuffer(seg) // registered with the finalizer but not kept
	}
}

// nativeBuffer is a NativeBuffer whose Pointer is freed by a Finalizer.
func (g *gen) nativeBuffer(seg segment) uint32 {
	c, a := g.c, &g.app
	ptr := g.inst(seg, c.pointer, a.taUint8)
	buf := g.alloc(seg, c.nativeBuf, instSize(3), NoData, 0)
	next := g.null
	if n := len(a.finEntries); n > 0 && g.rng.IntN(4) == 0 {
		next = a.finEntries[n-1]
	}
	entry := g.inst(seg, c.finEntry, buf, buf, ptr, a.finalizer, next)
	a.finEntries = append(a.finEntries, entry)
	g.setSlots(buf, ptr, 0, entry)
	return buf
}

// numbers is a List<num> of Smis, boxed doubles and the odd Mint, or a
// List<double> of boxed doubles.
func (g *gen) numbers(seg segment) uint32 {
	a := &g.app
	n := 2 + g.rng.IntN(24)
	vals := make([]uint32, n)
	doubles := g.rng.IntN(3) == 0
	for i := range vals {
		if doubles || g.rng.IntN(3) == 0 {
			vals[i] = g.double(seg, g.doubleValue())
		} else {
			vals[i] = g.integer(seg, g.intValue())
		}
	}
	ta := a.taNum
	if doubles {
		ta = a.taDouble
	}
	return g.growable(seg, ta, vals, g.growCap(n))
}

// imageScene is a decoded image: dart:ui Image wrapping a native _Image
// with one or two external properties.
func (g *gen) imageScene(seg segment) uint32 {
	c := g.c
	native := g.typed(seg, "Int64", 1) // native_fields_
	img := g.inst(seg, c.uiImageNative, native, 0, 0, g.fls)
	w, h := 16+g.rng.IntN(512), 16+g.rng.IntN(512)
	g.external(img, uint64(w*h*4), extNames[1])
	if g.rng.IntN(2) == 0 {
		g.external(img, uint64(96+g.rng.IntN(200)), extNames[0])
	}
	return g.inst(seg, c.uiImage, img, g.fls)
}

// miscScene: string buffers, URIs, queues, durations, dart:ui text styles.
func (g *gen) miscScene(seg segment) uint32 {
	c, a := g.c, &g.app
	switch g.rng.IntN(5) {
	case 0:
		var parts []uint32
		for n := 1 + g.rng.IntN(5); n > 0; n-- {
			parts = append(parts, g.str(seg, g.phrase(1, 3)))
		}
		buf := g.null
		if g.rng.IntN(2) == 0 {
			buf = g.typed(seg, "Uint16", 128)
		}
		return g.inst(seg, c.stringBuffer, g.growable(seg, a.taString, parts, g.growCap(len(parts))), 0, 0, 0, 0, buf, 0)
	case 1:
		port := g.null
		if g.rng.IntN(3) == 0 {
			port = g.smi(8080)
		}
		path := g.str(seg, "/v2/"+g.pick(jsonKeys))
		return g.inst(seg, c.uri, g.symbol("https"), g.emptyStr, g.str(seg, "api.example.com"), port, path,
			g.null, g.null, g.null, g.null, g.null, g.null, g.null)
	case 2:
		n := 8
		var xs []uint32
		for i := 0; i < n; i++ {
			if i < 3 {
				xs = append(xs, g.recentObj())
			} else {
				xs = append(xs, g.null)
			}
		}
		return g.inst(seg, c.listQueue, a.taObjN, g.array(seg, a.taObjN, xs), 0, 0, 0)
	case 3:
		return g.inst(seg, c.duration, 0)
	default:
		return g.inst(seg, c.uiTextStyle, g.typed(seg, "Int32", 9), g.null, g.symbol("Roboto"), g.null,
			g.double(seg, 14), g.null, g.null, g.null, g.null, g.null, g.null, g.null, g.null, g.null, g.null)
	}
}

// ---- finish ----

// finish closes all pending structures and sets the references of the
// synthetic objects: isolates (statics, roots, stack), Root and Read-Only
// Pages.
func (g *gen) finish() {
	c, a := g.c, &g.app
	if a.page == nil {
		g.elementItem(segOld)
	}
	g.closePage()
	a.pages.el, a.pages.widget, a.pages.flex = a.colEl, a.colW, a.colFlex
	g.closeColumn(&a.pages, a.stEl, g.null, g.inst(segOld, c.boxParentData, g.inst(segOld, c.offset, 0, 0)), 4)

	// The spine of the element tree.
	g.setSlots(a.rootEl, append(g.elementSlots(g.null, a.appW, 0), a.appEl)...)
	g.setSlots(a.appEl, append(g.elementSlots(a.rootEl, a.appW, 1), a.matEl)...)
	g.setSlots(a.matEl, append(g.elementSlots(a.appEl, a.matW, 2), a.stEl)...)
	g.setSlots(a.stEl, append(g.elementSlots(a.matEl, a.pageW, 3), a.colEl, a.state, g.fls)...)
	g.flushCache()
	todos := g.closePager(a.todos)
	onTap := g.closure(segOld, a.closureFns[2], g.context(segOld, g.null, a.state))
	notifier := g.inst(segOld, c.valueNotifier, 0, g.array(segOld, g.null, []uint32{onTap}), 0, 0, a.taInt, g.smi(3))
	g.setSlots(a.state, a.taPage, a.pageW, g.null, a.stEl, 0, todos, notifier, onTap)

	a.statics["todos"] = todos
	a.statics["cache"] = g.closePager(a.caches)
	a.statics["trees"] = g.closePager(a.trees)
	a.statics["graphs"] = g.closePager(a.graphs)
	a.statics["buffers"] = g.closePager(a.buffers)
	a.statics["weakRefs"] = g.closePager(a.weakRefs)
	a.statics["images"] = g.closePager(a.images)
	a.statics["listeners"] = g.closePager(a.listeners)
	a.statics["futures"] = g.closePager(a.futures)
	a.statics["numbers"] = g.closePager(a.numbers)
	a.statics["typed"] = g.closePager(a.typed)
	a.statics["misc"] = g.closePager(a.misc)

	// Expando: an open-addressing table of weak properties.
	size := 8
	for size < len(a.expandoProps)*2 {
		size *= 2
	}
	table := make([]uint32, size)
	for i := range table {
		table[i] = g.null
	}
	for _, p := range a.expandoProps {
		for {
			if k := g.rng.IntN(size); table[k] == g.null {
				table[k] = p
				break
			}
		}
	}
	g.setSlots(a.expando, a.taObjN, g.str(segOld, "_expando"), g.array(segOld, g.null, table), 0)
	// Finalizer: all entries in a set, a few already collected.
	collected := g.null
	if n := len(a.finEntries); n > 0 {
		collected = a.finEntries[n-1]
	}
	g.setSlots(a.finalizer, g.emptyHash(segOld, c.mapC, g.null), g.hashSet(segOld, c.setC, g.null, a.finEntries),
		collected, a.taObjN, g.closure(segOld, a.closureFns[3], g.null))

	// Program-wide tables.
	symSize := 64
	for symSize < len(g.symOrder)*4/3 {
		symSize *= 2
	}
	symTable := make([]uint32, symSize+1)
	for i := range symTable {
		symTable[i] = g.null
	}
	for _, s := range g.symOrder {
		for {
			if k := g.rng.IntN(symSize); symTable[k] == g.null {
				symTable[k] = s
				break
			}
		}
	}
	symTable[symSize] = g.smi(int64(len(g.symOrder)))
	var libs []uint32
	for _, l := range c.libs {
		libs = append(libs, g.libObj[l])
	}
	objStore := []uint32{
		g.growable(segOld, g.null, libs, g.growCap(len(libs))),
		g.array(segOld, g.null, symTable),
		g.array(segOld, g.null, g.taOrder),
		g.kernelInfo, g.libObj[libCore], g.libObj[libAsync], g.libObj[libCollection], g.libObj[libTyped],
		g.libObj[libIsolate], g.libObj[libInternal], g.libObj[libUI], g.libObj[libAppMain],
		g.typeOf(libCore, "Object"), g.typeOf(libCore, "int"), g.typeOf(libCore, "double"),
		g.typeOf(libCore, "String"), g.typeOf(libCore, "bool"), g.dynType, g.voidType, g.null,
		g.emptyArr, g.zeroArr, g.growEmpty, a.uninitIndex,
	}
	for _, id := range []int{c.list, c.growable, c.mapC, c.setC, c.oneByte, c.twoByte, c.smi, c.mint,
		c.double, c.boolC, c.closure, c.typeC, c.weakProp, c.weakRef, c.finEntry, c.null} {
		objStore = append(objStore, g.classObj[id])
	}

	// Isolates: static field values, isolate roots, stack slots.
	for i, iso := range g.isos {
		var refs []uint32
		for _, s := range staticTable {
			refs = append(refs, g.staticValue(s, i == 0))
		}
		tag := g.inst(segOld, c.userTag, g.str(segOld, "Default"))
		sendPort := g.leaf(segOld, c.sendPort, 32, NoData, 0)
		port := g.inst(segOld, c.rawRecvPort, sendPort, g.closure(segOld, a.closureFns[4], g.null))
		finalizers := g.growable(segOld, g.null, nil, 0)
		if i == 0 {
			finalizers = g.growable(segOld, g.null, []uint32{g.inst(segOld, c.weakRef, a.finalizer, a.taObjN)}, 1)
		}
		refs = append(refs, tag, tag, g.growable(segOld, g.null, []uint32{tag}, 1), port, g.null, finalizers)
		depth := 8 + g.rng.IntN(16)
		if i == 0 {
			depth = 30 + g.rng.IntN(50)
		}
		for d := 0; d < depth; d++ {
			switch g.rng.IntN(5) {
			case 0:
				refs = append(refs, g.codes[g.rng.IntN(len(g.codes))])
			case 1:
				refs = append(refs, g.functions[g.rng.IntN(len(g.functions))])
			case 2:
				refs = append(refs, g.smi(int64(g.rng.IntN(256))))
			case 3:
				refs = append(refs, g.null)
			default:
				refs = append(refs, g.recentObj())
			}
		}
		g.setRefs(iso, refs...)
	}

	// Root: shared pointers (object store, class table), then Read-Only
	// Pages, then the isolates.
	refs := objStore
	for id := 1; id <= len(c.classes); id++ {
		if o := g.classObj[id]; o != 0 {
			refs = append(refs, o)
		}
	}
	refs = append(refs, g.ro)
	refs = append(refs, g.isos...)
	g.setRefs(g.root, refs...)

	// Read-Only Pages: every object on image pages (nothing is created after
	// this point).
	var ro []uint32
	for i := 1; i <= g.count(); i++ {
		if g.seg[i] == segImage {
			ro = append(ro, uint32(i))
		}
	}
	g.setRefs(g.ro, ro...)
}

// staticValue is what isolate holds in static field s.
func (g *gen) staticValue(s staticSpec, main bool) uint32 {
	switch s.key {
	case "":
		return g.null
	case "uninit":
		return g.uninit
	case "initializing":
		return g.initializing
	case "false":
		return g.fls
	}
	if !main {
		switch s.key {
		case "zone", "emptyList", "timerId":
		default:
			return g.uninit // not initialized in this isolate
		}
	}
	v, ok := g.app.statics[s.key]
	if !ok {
		panic("dartgen: no value for static " + s.name)
	}
	return v
}
