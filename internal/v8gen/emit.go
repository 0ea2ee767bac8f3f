package v8gen

import (
	"io"
	"math/bits"
)

// emitter writes parts, formatting each in chunks into one buffer that
// is reused, so that memory does not grow with the file.
type emitter struct {
	w   io.Writer
	buf []byte
}

// chunkUnits is how many units of a part are formatted at a time (at most
// about 700 kB of text, which stays in a CPU cache).
const chunkUnits = 1 << 12

func (e *emitter) emit(p part) error {
	for lo := 0; lo < p.n; lo += chunkUnits {
		e.buf = p.appendRange(e.buf[:0], lo, min(lo+chunkUnits, p.n))
		if _, err := e.w.Write(e.buf); err != nil {
			return err
		}
	}
	return nil
}

// appendUint appends v in decimal.
func appendUint(b []byte, v uint64) []byte {
	if v < 10 {
		return append(b, byte('0'+v))
	}
	if v < 100 {
		return append(b, pairs[2*v], pairs[2*v+1])
	}
	var buf [20]byte
	i := len(buf)
	for v >= 100 {
		q := v / 100
		r := (v - q*100) * 2
		i -= 2
		buf[i+1], buf[i] = pairs[r+1], pairs[r]
		v = q
	}
	if v >= 10 {
		i -= 2
		buf[i+1], buf[i] = pairs[2*v+1], pairs[2*v]
	} else {
		i--
		buf[i] = byte('0' + v)
	}
	return append(b, buf[i:]...)
}

// pairs holds "00" to "99".
const pairs = "00010203040506070809" +
	"10111213141516171819" +
	"20212223242526272829" +
	"30313233343536373839" +
	"40414243444546474849" +
	"50515253545556575859" +
	"60616263646566676869" +
	"70717273747576777879" +
	"80818283848586878889" +
	"90919293949596979899"

// digits returns the number of decimal digits of v.
func digits(v uint64) int {
	t := bits.Len64(v) * 1233 >> 12 // about log10(v), never more
	if v >= pow10[t] {
		t++
	}
	return max(t, 1)
}

// pow10 holds 10^0 to 10^19.
var pow10 = func() (p [20]uint64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()
