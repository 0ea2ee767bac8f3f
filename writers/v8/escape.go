package v8

import (
	"unicode/utf8"

	v8ir "github.com/heapconv/heapconv/ir/v8"

	"github.com/heapconv/heapconv/ir"
)

// appendString appends s (WTF-8) as a JSON string in the given style.
//
// V8's style (OutputStreamWriter::AddJsonEscapedString) writes \b \f \n \r \t,
// \" and \\, other control characters as uppercase \u00XX, ASCII 0x20–0x7F
// as is, and every non-ASCII code point as one uppercase \uXXXX. V8 itself
// truncates astral code points to 16 bits; such a string read back holds the
// truncated BMP code point, which is written the same way again. An astral
// code point from another source is written as a proper surrogate pair.
// Invalid UTF-8 becomes '?', as in V8.
//
// The raw style writes non-ASCII UTF-8 as is (invalid bytes too, so a file
// from such a producer is reproduced), and lone surrogates as \uXXXX.
func appendString(b []byte, s string, esc v8ir.Escape) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case v8ir.EscapesAsU(rune(c)):
				b = append(b, '\\', 'u', '0', '0', v8ir.HexDigits[c>>4], v8ir.HexDigits[c&15])
			case c < 0x20:
				b = append(b, '\\', ir.JSONShortEscape(c))
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := ir.DecodeWTF8(s[i:])
		switch {
		case r < 0: // invalid byte
			if esc == v8ir.EscapeRaw {
				b = append(b, c)
			} else {
				b = append(b, '?')
			}
		case r >= 0xD800 && r < 0xE000:
			b = appendU(b, r)
		case esc == v8ir.EscapeRaw:
			b = append(b, s[i:i+size]...)
		case r > 0xFFFF:
			r -= 0x10000
			b = appendU(b, 0xD800+(r>>10))
			b = appendU(b, 0xDC00+(r&0x3FF))
		default:
			b = appendU(b, r)
		}
		i += size
	}
	return append(b, '"')
}

func appendU(b []byte, r rune) []byte {
	const hex = v8ir.HexDigits
	return append(b, '\\', 'u', hex[r>>12&15], hex[r>>8&15], hex[r>>4&15], hex[r&15])
}
