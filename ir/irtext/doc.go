// Package irtext is the IR's text form: a file written line by line, every
// table and column of the core and of each section, that reads back into
// the same file. `heapconv dump` prints it, golden tests compare it, and
// edge cases are written in it by hand (testdata/*.txtar), where building
// a stream byte by byte in Go would hide what a test is about.
//
// The form, by example:
//
//	heapir 8
//	format "v8"
//	format_version ""
//	producer ""
//	strings 3
//	  s0 ""
//	  s1 "(GC roots)"
//	  s2 "Foo"
//	classes 1
//	  c1 "Foo" library="" fields=[]
//	snapshot 0 name="" capture_time=0
//	  node_kinds "synthetic" "object"
//	  edge_kinds "element"[i] "property"
//	  root n0
//	  gcroot n1 "(GC roots)"
//	  origin strings s0 s1 s2 classes c1
//	  section v8 v2
//	    header={"meta":{}}
//	    ...
//	  nodes 2 edges 1 values 1
//	  n0 "synthetic" "" id=1 self=0 v8.node.detachedness=0
//	    "element" [1] -> n1
//	  n1 "object" "Foo" id=3 self=16 class=c1 v8.node.detachedness=0 value=3.5
//	  v8.trace_tree [0]
//
// A string is referred to by its quoted text where that is its first place
// in the string table, else as s<index>; a node as n<index>, a class as
// c<1+index> (c0 for none), a kind by its quoted name (or k<index> after
// its first place). A snapshot of a series gives its origin, the string
// and class tables of the file it came from, as s<index> and c<1+index>
// in their order. A section's block gives its name and version, a field
// a line, "present" and the optional columns it has, and for a section no
// package of this program registered the declaration of each column. A
// section's columns of the node and edge tables are on the node and edge
// lines as name=value; its other tables follow the nodes: a table of one
// column as COLUMN [values] (bytes as <count>:<hex>), others as
// "table NAME ROWS" and a line per entry. Numbers are decimal but for
// addresses, in hex (0x1000): the columns a section declares so (ir.Hex)
// and node ids a section writes so (ir.NodeIDNotation: Fuchsia's block
// addresses). Reading accepts what writing gives, hex for any unsigned
// number, and a string table that leaves out strings the file quotes.
package irtext
