// Package analysis computes what people ask of a heap, over package ir's
// model: the dominator tree and retained sizes (Dominators), and the
// per-class summary (Summarize, SummarizeBy, ClassStats) that `heapconv
// info` prints.
//
// For a V8 heap the summary is Chrome DevTools' Summary view, row for row:
// plain objects named by their shape, detached DOM nodes, classes split by
// allocation location, the self sizes DevTools shows (DevToolsSelfSizes)
// and the edges it does not let retain (DevToolsIgnore). For other formats
// a class is the class table's, qualified where two libraries define one
// name (ir.ClassLabels).
package analysis
