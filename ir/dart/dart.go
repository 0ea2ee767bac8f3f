package dart

import "github.com/heapconv/heapconv/ir"

// Magic is the first 8 bytes of every Dart VM heap snapshot.
const Magic = "dartheap"

// Names of the header figures, which a Dart snapshot keeps in
// Snapshot.Totals.
const (
	TotalShallowSize  = "shallowSize"
	TotalCapacity     = "capacity"
	TotalExternalSize = "externalSize"
)

// HeaderTotals are the header figures in file order, after the flags and
// the snapshot's name.
var HeaderTotals = []string{TotalShallowSize, TotalCapacity, TotalExternalSize}

// RootClass is the name of the VM's root class (the class of object 1
// since 2022), the name the reader gives the class-0 root of the 2019–2020
// writers, and the class of the synthetic root a converter puts in front.
const RootClass = "Root"

// MintClass is the class whose integers the VM writes as signed LEB128
// (IntSLEB); every other class's (_Smi's) are unsigned LEB128 of their
// two's complement (IntULEB).
const MintClass = "_Mint"

// Encodings of a Dart integer value, in Values.Aux of a ValueInt.
const (
	// IntULEB is the unsigned LEB128 of the value's 64-bit two's
	// complement: the VM's encoding of _Smi values (10 bytes when negative).
	IntULEB = 0
	// IntSLEB is signed LEB128: the VM's encoding of _Mint values.
	IntSLEB = 1
)

// IntCoding returns the encoding the VM gives the integers of the named
// class.
func IntCoding(class string) uint8 {
	if class == MintClass {
		return IntSLEB
	}
	return IntULEB
}

// tagValues are the value kinds the data tags carry.
var tagValues = [...]ir.ValueKind{
	NullData: ir.ValueNull, BoolData: ir.ValueBool, IntData: ir.ValueInt,
	DoubleData: ir.ValueFloat, Latin1Data: ir.ValueString, UTF16Data: ir.ValueString,
	LengthData: ir.ValueLength, NameData: ir.ValueString,
}

// ValueKind returns the kind of the value a data tag (an index into
// NodeKinds) carries, and false for NoData and unknown tags,
// which carry none.
func ValueKind(tag uint8) (ir.ValueKind, bool) {
	if tag == NoData || int(tag) >= len(tagValues) {
		return 0, false
	}
	return tagValues[tag], true
}

// IsWeakSlot reports whether field of the Dart class named class is a
// weak slot: the key and value of a _WeakProperty (an ephemeron; treated
// as weak, as DevTools does), the target of a _WeakReference (the VM's
// _WeakReferenceImpl in older SDKs), and the value and detach key of a
// FinalizerEntry.
func IsWeakSlot(class, field string) bool {
	switch class {
	case "_WeakProperty":
		return field == "key_" || field == "value_" || field == "key" || field == "value"
	case "_WeakReference", "_WeakReferenceImpl":
		return field == "target_" || field == "target"
	case "FinalizerEntry":
		return field == "value_" || field == "detach_" || field == "value" || field == "detach"
	}
	return false
}
