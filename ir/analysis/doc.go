// Package analysis computes what people ask of a heap, over package ir's
// model: the dominator tree and retained sizes (Dominators), the per-class
// summary (Summarize, SummarizeBy, ClassStats) that `heapconv info`
// prints, what holds an object and how (Navigator: retainers, distances,
// shortest retainer paths, dominator chains; `heapconv paths`), and what
// changed between snapshots of one program (Compare: classes, and the
// objects new and still alive where formats keep their identity;
// `heapconv diff`).
//
// For a V8 heap the summary is Chrome DevTools' Summary view, row for row:
// plain objects named by their shape, detached DOM nodes, classes split by
// allocation location, the self sizes DevTools shows (DevToolsSelfSizes)
// and the edges it does not let retain (DevToolsIgnore); and a retainer
// path is the one DevTools' Retainers view expands, each object named as
// the view names it (Navigator.Shown: "onChange()", a string's text in
// quotes, "{a, b}"). For other formats a
// class is the class table's, qualified where two libraries define one
// name (ir.ClassLabels).
package analysis
