// Package prefetch asks the processor to start loading memory that code
// will read a little later, where the hardware cannot guess it: a hash
// table's slot, say, known long before it is read. It changes no result:
// on architectures without an assembly version, and with the build tag
// purego (which CI tests), it does nothing.
package prefetch
