// Package explore serves heaps to a browser: a page to look around a heap
// of any format (its classes, their instances, an object's fields,
// retainers, dominators and what it keeps alive) and the small JSON HTTP
// API the page is a client of, which scripts use too. docs/api.md
// describes the API.
//
// The analysis happens once, in Go, when a Server is made: each heap's
// navigator (ir/analysis: retainers, distances, dominator tree, retained
// sizes, classes). Every request is answered from it, a page of results at
// a time, so that the browser holds only what is on screen whatever the
// heap's size.
//
// The server is for one person on their own machine: every request must
// carry the token the Server was made with (a web page of another site, or
// another user of the machine, cannot read the heap), a Host header that
// names the address it listens on (against DNS rebinding), and may only
// read: no endpoint writes a file or changes the heaps.
package explore
