package dart_test

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/heapconv/heapconv/ir"
	dartir "github.com/heapconv/heapconv/ir/dart"
)

// TestLEB128: both encodings of values around every boundary are the VM's
// bytes, their lengths are the canonical ones, and they decode back.
func TestLEB128(t *testing.T) {
	for _, tc := range []struct {
		v    int64
		uleb string
		sleb string
	}{
		{0, "00", "00"},
		{5, "05", "05"},
		{63, "3f", "3f"},
		{64, "40", "c0 00"},
		{127, "7f", "ff 00"},
		{128, "80 01", "80 01"},
		{-1, "ff ff ff ff ff ff ff ff ff 01", "7f"},
		{-2, "fe ff ff ff ff ff ff ff ff 01", "7e"},
		{-64, "c0 ff ff ff ff ff ff ff ff 01", "40"},
		{-65, "bf ff ff ff ff ff ff ff ff 01", "bf 7f"},
		{math.MaxInt64, "ff ff ff ff ff ff ff ff 7f", "ff ff ff ff ff ff ff ff ff 00"},
		{math.MinInt64, "80 80 80 80 80 80 80 80 80 01", "80 80 80 80 80 80 80 80 80 7f"},
		{-(1 << 62) - 5, "fb ff ff ff ff ff ff ff bf 01", "fb ff ff ff ff ff ff ff bf 7f"},
	} {
		ub, sb := dartir.AppendULEB(nil, uint64(tc.v)), dartir.AppendSLEB(nil, tc.v)
		if u, s := hexBytes(ub), hexBytes(sb); u != tc.uleb || s != tc.sleb {
			t.Errorf("%d: uleb %s sleb %s, want %s / %s", tc.v, u, s, tc.uleb, tc.sleb)
		}
		if n := dartir.ULEBLen(uint64(tc.v)); n != len(ub) {
			t.Errorf("%d: ULEBLen %d, the encoding has %d bytes", tc.v, n, len(ub))
		}
		if n := dartir.SLEBLen(tc.v); n != len(sb) {
			t.Errorf("%d: SLEBLen %d, the encoding has %d bytes", tc.v, n, len(sb))
		}
		if got, ok := dartir.DecodeULEB(ub); !ok || got != uint64(tc.v) {
			t.Errorf("%d: DecodeULEB reads %d, %v", tc.v, got, ok)
		}
		if got := dartir.DecodeSLEB(sb); got != tc.v {
			t.Errorf("%d: DecodeSLEB reads %d", tc.v, got)
		}
	}
	// A tenth byte above 1 is past 64 bits.
	if _, ok := dartir.DecodeULEB([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}); ok {
		t.Error("DecodeULEB takes a value of 65 bits")
	}
	if got := hexBytes(dartir.AppendString(nil, "héllo")); got != "06 68 c3 a9 6c 6c 6f" {
		t.Errorf("AppendString: %s", got)
	}
}

func hexBytes(b []byte) string {
	parts := make([]string, len(b))
	for i, c := range b {
		parts[i] = strconv.FormatUint(uint64(c)|0x100, 16)[1:]
	}
	return strings.Join(parts, " ")
}

// TestValueKinds: every data tag but none carries a value, of the kind the
// tag's name says.
func TestValueKinds(t *testing.T) {
	want := map[string]ir.ValueKind{"null": ir.ValueNull, "bool": ir.ValueBool, "int": ir.ValueInt, "double": ir.ValueFloat,
		"latin1": ir.ValueString, "utf16": ir.ValueString, "length": ir.ValueLength, "name": ir.ValueString}
	for tag, name := range dartir.NodeKinds {
		k, ok := dartir.ValueKind(uint8(tag))
		if w, has := want[name]; ok != has || k != w {
			t.Errorf("tag %d (%s): %v, %v; want %v, %v", tag, name, k, ok, w, has)
		}
	}
	if _, ok := dartir.ValueKind(uint8(len(dartir.NodeKinds))); ok {
		t.Error("an unknown tag carries a value")
	}
}

// TestClasses: the classes the VM treats specially by name.
func TestClasses(t *testing.T) {
	if dartir.IntCoding(dartir.MintClass) != dartir.IntSLEB || dartir.IntCoding("_Smi") != dartir.IntULEB {
		t.Error("_Mint values are not SLEB128 or _Smi values not ULEB128")
	}
	for _, c := range []struct {
		class, field string
		weak         bool
	}{
		{"_WeakProperty", "key_", true}, {"_WeakProperty", "value", true},
		{"_WeakReference", "target_", true}, {"_WeakReferenceImpl", "target", true},
		{"FinalizerEntry", "detach_", true}, {"FinalizerEntry", "value", true},
		{"FinalizerEntry", "token_", false}, {"_WeakReference", "type_arguments_", false},
		{"_Map", "key_", false},
	} {
		if got := dartir.IsWeakSlot(c.class, c.field); got != c.weak {
			t.Errorf("IsWeakSlot(%q, %q) = %v", c.class, c.field, got)
		}
	}
}
