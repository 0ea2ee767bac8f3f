package v8

import (
	"bytes"
	"testing"
)

// BenchmarkRegionParse measures one worker's digit scanning alone: the
// number arrays of the synthetic snapshot, cut into regions as the reader
// cuts them, parsed one after another on one goroutine: the per-core
// ceiling of the reader's parallel part.
func BenchmarkRegionParse(b *testing.B) {
	data := synthSnapshot(500_000, true)
	var regions []*region
	for _, key := range []string{`"nodes":[`, `"edges":[`} {
		i := bytes.Index(data, []byte(key)) + len(key)
		expect := uint8(expectFirst)
		for {
			j := min(len(data), i+regionSize)
			if k := bytes.IndexByte(data[i:j], ']'); k >= 0 {
				j = i + k + 1
			} else {
				j = i + bytes.LastIndexByte(data[i:j], ',') + 1
			}
			r := &region{data: append(append([]byte(nil), data[i:j]...), make([]byte, padPar)...), expect: expect}
			regions = append(regions, r)
			if data[j-1] == ']' {
				break
			}
			i, expect = j, expectValue
		}
	}
	var total int64
	for _, r := range regions {
		total += int64(len(r.data) - padPar)
	}
	b.SetBytes(total)
	for b.Loop() {
		for _, r := range regions {
			r.parse()
			if r.errPos >= 0 {
				b.Fatal(r.errMsg)
			}
		}
	}
}
