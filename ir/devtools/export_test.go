package devtools

// Unexported pieces the external tests (package devtools_test, which may
// import writers/v8 to write what Convert makes) check directly.
var (
	FromMoarVM        = fromMoarVM
	DevtoolsClassName = devtoolsClassName
	V8NodeKind        = v8NodeKind
	V8EdgeKind        = v8EdgeKind
)
