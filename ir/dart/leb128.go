package dart

// Every number of a Dart heap snapshot but a double's is LEB128: 7 bits a
// byte, low group first, the high bit set on every byte but the last. The
// VM writes the canonical (shortest) form, so the lengths below are the
// ones a byte-exact reader and writer agree on.

// AppendULEB appends v as unsigned LEB128. A negative _Smi reaches here as
// its 64-bit two's complement and takes ten bytes, the last being 0x01.
func AppendULEB(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// AppendSLEB appends v as signed LEB128: groups go out until the rest is
// 0 or -1 and bit 6 of the last group agrees with the sign.
func AppendSLEB(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7F)
		v >>= 7
		if slebDone(v, c) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// slebDone reports whether group c, with v the value left above it, is
// the last of a signed LEB128 encoding.
func slebDone(v int64, c byte) bool {
	return (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0)
}

// AppendString appends a Utf8String: its length in bytes as unsigned
// LEB128, then the bytes.
func AppendString(b []byte, s string) []byte {
	return append(AppendULEB(b, uint64(len(s))), s...)
}

// ULEBLen returns the length of v's canonical unsigned LEB128 encoding.
func ULEBLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// SLEBLen returns the length of v's canonical signed LEB128 encoding.
func SLEBLen(v int64) int {
	for n := 1; ; n++ {
		c := byte(v & 0x7F)
		v >>= 7
		if slebDone(v, c) {
			return n
		}
	}
}

// DecodeULEB decodes b, one whole LEB128 encoding, as unsigned; false when
// its value does not fit in 64 bits.
func DecodeULEB(b []byte) (uint64, bool) {
	var v uint64
	for k, c := range b {
		if k == 9 && c > 1 {
			return 0, false
		}
		v |= uint64(c&0x7F) << (7 * uint(k))
	}
	return v, true
}

// DecodeSLEB decodes b, one whole LEB128 encoding of at most 10 bytes, as
// signed.
func DecodeSLEB(b []byte) int64 {
	var v int64
	shift := uint(0)
	for _, c := range b {
		v |= int64(c&0x7F) << shift
		shift += 7
	}
	if shift < 64 && b[len(b)-1]&0x40 != 0 {
		v |= -1 << shift
	}
	return v
}
