package v8

import (
	"bytes"
	"fmt"
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestDigits8 checks the SWAR digit conversion against strconv for every
// digit count and neighbouring byte.
func TestDigits8(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for i := 0; i < 200000; i++ {
		n := r.Intn(9)
		var b [8]byte
		for j := range b {
			b[j] = byte(r.Intn(256))
		}
		for j := 0; j < n; j++ {
			b[j] = byte('0' + r.Intn(10))
		}
		if n < 8 {
			for b[n] >= '0' && b[n] <= '9' {
				b[n] = byte(r.Intn(256))
			}
		}
		x := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
		gn, gv := digits8(x)
		if gn != n {
			t.Fatalf("%q: %d digits, want %d", b, gn, n)
		}
		if n > 0 {
			want, _ := strconv.ParseUint(string(b[:n]), 10, 64)
			if gv != want {
				t.Fatalf("%q: value %d, want %d", b, gv, want)
			}
		} else if gv != 0 {
			t.Fatalf("%q: value %d, want 0", b, gv)
		}
	}
}

// TestRegionParseLengths parses numbers of every length from 1 to 20
// digits, with V8's separators (a row ends in "\n,") and others, and
// checks them and the white space counted against strconv; a number past
// 2^64 is an error at its first digit.
func TestRegionParseLengths(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for _, sep := range []string{",", "\n,", ",\n", "\n\n,", " ,\n"} {
		var text []byte
		var want []uint64
		for i := 0; i < 5000; i++ {
			n := 1 + r.Intn(20)
			digits := make([]byte, n)
			digits[0] = byte('1' + r.Intn(9))
			for j := 1; j < n; j++ {
				digits[j] = byte('0' + r.Intn(10))
			}
			v, err := strconv.ParseUint(string(digits), 10, 64)
			if err != nil {
				continue // 20 digits beyond 2^64-1
			}
			text = append(append(text, digits...), sep...)
			want = append(want, v)
		}
		text = append(text, "18446744073709551615]"...)
		want = append(want, 1<<64-1)
		reg := &region{data: append(text, make([]byte, padPar)...), expect: expectFirst}
		reg.parse()
		if reg.errPos >= 0 {
			t.Fatalf("sep %q: error at %d: %s", sep, reg.errPos, reg.errMsg)
		}
		got := regionValues(reg)
		if !reg.st.done || len(got) != len(want) || reg.st.values != int64(len(want)) {
			t.Fatalf("sep %q: %d values (done %v, counted %d), want %d", sep, len(got), reg.st.done, reg.st.values, len(want))
		}
		n := int64(len(want) - 1)
		if nl, other := int64(strings.Count(sep, "\n"))*n, int64(strings.Count(sep, " "))*n; reg.st.newlines != nl || reg.st.other != other {
			t.Fatalf("sep %q: %d newlines and %d other white space, want %d and %d", sep, reg.st.newlines, reg.st.other, nl, other)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("sep %q: value %d = %d, want %d", sep, i, got[i], want[i])
			}
		}
	}
	bad := []byte("1,18446744073709551616,2]")
	reg := &region{data: append(bad, make([]byte, padPar)...), expect: expectFirst}
	reg.parse()
	if reg.errPos != 2 {
		t.Errorf("2^64: error at %d (%q), want 2", reg.errPos, reg.errMsg)
	}
}

// TestTwoChainsAsOne checks that parse, which scans a region's two halves
// at once, leaves what one scan of the whole region leaves: the values,
// the counts, and the first error with its place, on regions of V8's
// layout with damage anywhere, near the split above all.
func TestTwoChainsAsOne(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	damage := []byte(" \n\r\t,]-.ex0123456789")
	for i := 0; i < 3000; i++ {
		var text []byte
		for n := 0; len(text) < twoChainsMin+r.Intn(3*twoChainsMin); n++ {
			digits := 1 + r.Intn(9)
			if r.Intn(50) == 0 {
				digits = 10 + r.Intn(12) // up to 21 digits, past 2^64
			}
			for j := 0; j < digits; j++ {
				text = append(text, byte('0'+r.Intn(10)))
			}
			if n%7 == 6 {
				text = append(text, '\n')
			}
			text = append(text, ',')
		}
		if r.Intn(2) == 0 {
			text[len(text)-1] = ']'
		}
		for k := r.Intn(3); k > 0; k-- {
			at := r.Intn(len(text))
			if r.Intn(2) == 0 {
				at = len(text)/2 + r.Intn(64) - 32 // near the split
			}
			text[at] = damage[r.Intn(len(damage))]
		}
		if r.Intn(4) == 0 {
			// The second chain's first byte, or the comma before it.
			at := len(text)/2 + bytes.IndexByte(text[len(text)/2:], ',') + r.Intn(2)
			text[min(at, len(text)-1)] = damage[r.Intn(len(damage))]
		}
		expect := uint8(expectFirst + r.Intn(2))
		reg := &region{data: append(text, make([]byte, padPar)...), expect: expect}
		reg.parse()
		one := scanState{end: len(text), expect: expect, errPos: -1}
		one.scan(reg.data)
		want := arrayState{expect: one.expect, done: one.done, values: int64(len(one.vals)), newlines: one.newlines, other: one.other}
		if reg.errPos != one.errPos || reg.errMsg != one.errMsg {
			t.Fatalf("region %d (%q): error at %d %q, one scan: at %d %q", i, text, reg.errPos, reg.errMsg, one.errPos, one.errMsg)
		}
		if got := regionValues(reg); reg.errPos < 0 && (reg.st != want || !slices.Equal(got, one.vals)) {
			t.Fatalf("region %d (%q): state %+v and %d values, one scan: %+v and %d", i, text, reg.st, len(got), want, len(one.vals))
		}
	}
}

// regionValues returns a parsed region's values, its two parts joined.
func regionValues(r *region) []uint64 {
	return append(slices.Clip(r.vals), r.second...)
}

// TestTwoChains checks that twoChains takes V8's layout as it is: both
// parts until one of them ends (the second before its last number, which
// ']' follows), each value in its place.
func TestTwoChains(t *testing.T) {
	var text []byte
	for n := 0; n < 2000; n++ {
		text = strconv.AppendUint(text, uint64(n)*uint64(n)*977, 10)
		if n%7 == 6 {
			text = append(text, '\n')
		}
		text = append(text, ',')
	}
	mid := len(text) / 2
	mid += bytes.IndexByte(text[mid:], ',') + 1
	text[len(text)-1] = ']'
	last := bytes.LastIndexByte(text, ',') + 1
	buf := append(text, make([]byte, padPar)...)
	out := make([]uint64, 2000)
	pa, pb, na, nb := twoChains(buf, 0, mid, mid, len(text), out, 0, 1000)
	if pa != mid && pb != last {
		t.Fatalf("stopped at %d and %d, before either end (%d, %d)", pa, pb, mid, last)
	}
	if pa != 0 && buf[pa-1] != ',' || pb != mid && buf[pb-1] != ',' {
		t.Fatalf("stopped at %d and %d, not after a comma", pa, pb)
	}
	f := bytes.Count(text[:mid], []byte(",")) // the second part's first number
	if na != bytes.Count(text[:pa], []byte(",")) || nb-1000 != bytes.Count(text[mid:pb], []byte(",")) {
		t.Fatalf("%d and %d values up to %d and %d", na, nb-1000, pa, pb)
	}
	for k, v := range out[:na] {
		if want := uint64(k) * uint64(k) * 977; v != want {
			t.Fatalf("value %d = %d, want %d", k, v, want)
		}
	}
	for k, v := range out[1000:nb] {
		if n := uint64(f + k); v != n*n*977 {
			t.Fatalf("value %d = %d, want %d", f+k, v, n*n*977)
		}
	}
}

// TestSplitRegionErrors damages edge targets throughout a region that
// parse scans in two chains, where the rows meet the second part's start
// above all, and requires the error a serial read gives, at its offset:
// the reader passes the two parts on separately, and the second part's
// values must still be found where they are.
func TestSplitRegionErrors(t *testing.T) {
	data := synthSnapshot(3000, true)
	i, j := edgesArray(data)
	if j-i < 2*twoChainsMin {
		t.Fatalf("the edges array holds %d bytes, too few to split", j-i)
	}
	// The edges' third field, to_node, is a multiple of the node width:
	// one more is an error the reader finds after parsing.
	mid := i + (j-i)/2
	var spots []int
	for k := i; k < j; k += 997 {
		spots = append(spots, k)
	}
	for k := mid - 64; k < mid+64; k++ {
		spots = append(spots, k)
	}
	checked := 0
	for _, at := range spots {
		// The start of the edge row at or after at.
		row := at + bytes.Index(data[at:j], []byte("\n,")) + 2
		if row < at+2 || row >= j {
			continue
		}
		v, e := rowField(data, row, 2)
		bad := slices.Clone(data)
		last := &bad[e-1]
		*last = '0' + (*last-'0'+1)%10 // not a multiple of 7 any more
		serial, parallel := serialAndParallel(bad)
		if serial == nil || parallel == nil || serial.Error() != parallel.Error() {
			t.Fatalf("to_node at %d damaged: serial read: %v; parallel: %v", v, serial, parallel)
		}
		checked++
	}
	if checked < 100 {
		t.Fatalf("only %d damaged files checked", checked)
	}
}

// TestRegionBoundaryErrors damages the edge rows where the reader cuts the
// edges array into regions, so that a damaged row begins in one region
// (scanned in two chains) and ends in the next, and requires the error a
// serial read gives, at its offset.
func TestRegionBoundaryErrors(t *testing.T) {
	data := synthSnapshot(120_000, true)
	i, j := edgesArray(data)
	checked, failed := 0, 0
	// The reader cuts a region at the last comma of the next regionSize
	// bytes.
	for b := i + bytes.LastIndexByte(data[i:i+regionSize], ',') + 1; b+regionSize < j; b += bytes.LastIndexByte(data[b:b+regionSize], ',') + 1 {
		// The row the cut falls in, and the rows either side of it.
		row := bytes.LastIndex(data[:b], []byte("\n,")) + 2
		row = bytes.LastIndex(data[:row-2], []byte("\n,")) + 2
		for range 3 {
			for field := range 3 {
				v, e := rowField(data, row, field)
				bad := slices.Clone(data)
				// A type or to_node out of range, or a name past the strings.
				copy(bad[v:e], bytes.Repeat([]byte("9"), e-v))
				// (An element edge's name is an index, which 9s do not spoil.)
				serial, parallel := serialAndParallel(bad)
				if fmt.Sprint(serial) != fmt.Sprint(parallel) {
					t.Fatalf("edge field %d at %d damaged: serial read: %v; parallel: %v", field, v, serial, parallel)
				}
				if serial != nil {
					failed++
				}
				checked++
			}
			row += bytes.Index(data[row:], []byte("\n,")) + 2
		}
	}
	if checked < 18 || failed < checked/2 {
		t.Fatalf("%d damaged files checked, %d of them failing: the edges array holds fewer than three regions, or the damage does not show", checked, failed)
	}
}

// edgesArray returns where the edges array's values begin and its ']' is
// in a snapshot.
func edgesArray(data []byte) (begin, end int) {
	begin = bytes.Index(data, []byte(`"edges":[`)) + len(`"edges":[`)
	return begin, begin + bytes.IndexByte(data[begin:], ']')
}

// rowField returns where value k of the row that begins at row starts
// and ends.
func rowField(data []byte, row, k int) (start, end int) {
	start = row
	for range k {
		start += bytes.IndexByte(data[start:], ',') + 1
	}
	return start, start + bytes.IndexAny(data[start:], ",\n]")
}

// serialAndParallel reads data serially and in parallel regions, and
// returns both errors.
func serialAndParallel(data []byte) (serial, parallel error) {
	_, serial = Read(bytes.NewReader(data), Options{})
	_, parallel = Read(bytes.NewReader(data), Options{Size: parallelMin})
	return serial, parallel
}
