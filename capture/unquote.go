package capture

import (
	"bytes"
	"errors"
	"unicode/utf8"
)

// unquoter unescapes the bodies of JSON strings, the text of a V8
// snapshot's chunks. A chunk may end between the two escapes of a UTF-16
// surrogate pair, so a high surrogate waits for the next chunk; one that
// stays alone is written as WTF-8, as V8's own reader of the text would
// keep it.
type unquoter struct {
	hi rune // a high surrogate waiting for its pair, or 0
}

var errUnquote = errors.New("a bad escape in a JSON string")

// unquote appends the JSON string body s, up to its closing quote, to dst
// unescaped, and returns what follows the quote.
func (u *unquoter) unquote(dst, s []byte) (out, rest []byte, err error) {
	for {
		j := bytes.IndexAny(s, `"\`)
		if j < 0 {
			return dst, nil, errors.New("a JSON string without its closing quote")
		}
		if j > 0 {
			dst = append(u.flush(dst), s[:j]...)
		}
		if s[j] == '"' {
			return dst, s[j+1:], nil
		}
		s = s[j:]
		if len(s) < 2 {
			return dst, nil, errUnquote
		}
		var c byte
		switch s[1] {
		case '"', '\\', '/':
			c = s[1]
		case 'b':
			c = '\b'
		case 'f':
			c = '\f'
		case 'n':
			c = '\n'
		case 'r':
			c = '\r'
		case 't':
			c = '\t'
		case 'u':
			if len(s) < 6 {
				return dst, nil, errUnquote
			}
			r := rune(0)
			for _, h := range s[2:6] {
				switch {
				case '0' <= h && h <= '9':
					h -= '0'
				case 'a' <= h && h <= 'f':
					h -= 'a' - 10
				case 'A' <= h && h <= 'F':
					h -= 'A' - 10
				default:
					return dst, nil, errUnquote
				}
				r = r<<4 | rune(h)
			}
			s = s[6:]
			switch {
			case 0xD800 <= r && r < 0xDC00:
				dst = u.flush(dst)
				u.hi = r
			case 0xDC00 <= r && r < 0xE000 && u.hi != 0:
				dst = utf8.AppendRune(dst, 0x10000+(u.hi-0xD800)<<10+(r-0xDC00))
				u.hi = 0
			default:
				dst = appendWTF8(u.flush(dst), r)
			}
			continue
		default:
			return dst, nil, errUnquote
		}
		dst = append(u.flush(dst), c)
		s = s[2:]
	}
}

// flush writes a waiting high surrogate alone.
func (u *unquoter) flush(dst []byte) []byte {
	if u.hi == 0 {
		return dst
	}
	dst = appendWTF8(dst, u.hi)
	u.hi = 0
	return dst
}

// appendWTF8 appends r in UTF-8, or a lone surrogate in WTF-8's
// three-byte form (which UTF-8 forbids).
func appendWTF8(dst []byte, r rune) []byte {
	if 0xD800 <= r && r < 0xE000 {
		return append(dst, byte(0xE0|r>>12), byte(0x80|(r>>6)&0x3F), byte(0x80|r&0x3F))
	}
	return utf8.AppendRune(dst, r)
}
