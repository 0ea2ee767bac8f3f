package ir

import "slices"

// Canonical node kind names. They are V8's, because V8 is the format every
// conversion to Chrome DevTools ends in; readers of other formats map into
// them where the meaning matches and add their own names otherwise.
const (
	KindHidden             = "hidden"
	KindArray              = "array"
	KindString             = "string"
	KindObject             = "object"
	KindCode               = "code"
	KindClosure            = "closure"
	KindRegexp             = "regexp"
	KindNumber             = "number"
	KindNative             = "native"
	KindSynthetic          = "synthetic"
	KindConcatenatedString = "concatenated string"
	KindSlicedString       = "sliced string"
	KindSymbol             = "symbol"
	KindBigint             = "bigint"
	KindObjectShape        = "object shape"
	KindWasmObject         = "wasm object"
)

// Canonical edge kind names (V8's).
const (
	EdgeContext  = "context"
	EdgeElement  = "element"
	EdgeProperty = "property"
	EdgeInternal = "internal"
	EdgeHidden   = "hidden"
	EdgeShortcut = "shortcut"
	EdgeWeak     = "weak"
)

// V8NodeKinds is V8's node type list (V8 12 and later).
var V8NodeKinds = []string{
	KindHidden, KindArray, KindString, KindObject, KindCode, KindClosure, KindRegexp, KindNumber,
	KindNative, KindSynthetic, KindConcatenatedString, KindSlicedString, KindSymbol, KindBigint,
	KindObjectShape,
}

// V8EdgeKinds is V8's edge type list; element and hidden edges are named by
// index.
var V8EdgeKinds = []EdgeKind{
	{EdgeContext, false}, {EdgeElement, true}, {EdgeProperty, false}, {EdgeInternal, false},
	{EdgeHidden, true}, {EdgeShortcut, false}, {EdgeWeak, false},
}

// EdgeKindIndexed reports whether V8 (and DevTools) name edges of the named
// kind by an integer index.
func EdgeKindIndexed(name string) bool { return name == EdgeElement || name == EdgeHidden }

// HasV8NodeKinds reports whether a snapshot's node kinds are V8's (its
// table begins with V8NodeKinds): a V8 heap, or one shaped like it.
func HasV8NodeKinds(s *Snapshot) bool {
	return len(s.NodeKinds) >= len(V8NodeKinds) && slices.Equal(s.NodeKinds[:len(V8NodeKinds)], V8NodeKinds)
}
