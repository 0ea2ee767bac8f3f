package ir

import "unicode/utf8"

// Strings in the IR hold WTF-8: UTF-8 that may also encode lone UTF-16
// surrogates (U+D800–U+DFFF) in the three-byte form UTF-8 would give them,
// because V8 snapshots contain such strings. These helpers are the one place
// that knows the encoding.

// AppendWTF8 appends r as UTF-8, encoding a lone surrogate in its
// three-byte form.
func AppendWTF8(b []byte, r rune) []byte {
	if r >= 0xD800 && r < 0xE000 {
		return append(b, 0xED, byte(0x80|(r>>6)&0x3F), byte(0x80|r&0x3F))
	}
	return utf8.AppendRune(b, r)
}

// DecodeWTF8 decodes the first code point of s, lone surrogates included.
// It returns -1 and 1 for a byte that starts no valid sequence.
func DecodeWTF8(s string) (rune, int) {
	if len(s) >= 3 && s[0] == 0xED && s[1] >= 0xA0 && s[1] <= 0xBF && s[2]&0xC0 == 0x80 {
		return rune(s[0]&0x0F)<<12 | rune(s[1]&0x3F)<<6 | rune(s[2]&0x3F), 3
	}
	r, size := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError && size <= 1 {
		return -1, 1
	}
	return r, size
}

// UTF16Len returns the length of s in UTF-16 code units, the unit of V8's
// and Chrome's string limits. An invalid byte counts as one unit.
func UTF16Len(s string) int {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return len(s) // the common case: one unit per byte
	}
	n := 0
	for i := 0; i < len(s); {
		r, size := DecodeWTF8(s[i:])
		if r > 0xFFFF {
			n += 2
		} else {
			n++
		}
		i += size
	}
	return n
}

// AppendJSONWTF8 appends s as a JSON string literal that keeps every code
// point of a WTF-8 string: a lone surrogate is written as its \uXXXX escape
// (JSON allows it; encoding/json would write U+FFFD for each of its three
// bytes), as are control characters; a byte that is not WTF-8 becomes
// U+FFFD, which is all JSON can say of it.
func AppendJSONWTF8(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	u := func(b []byte, r rune) []byte {
		return append(b, '\\', 'u', hex[r>>12&0xF], hex[r>>8&0xF], hex[r>>4&0xF], hex[r&0xF])
	}
	b = append(b, '"')
	for i := 0; i < len(s); {
		r, size := DecodeWTF8(s[i:])
		switch {
		case r < 0:
			b = u(b, utf8.RuneError)
		case r >= 0xD800 && r <= 0xDFFF:
			b = u(b, r)
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r < 0x20:
			if e := JSONShortEscape(byte(r)); e != 0 {
				b = append(b, '\\', e)
			} else {
				b = u(b, r)
			}
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
