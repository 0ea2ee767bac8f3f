package main

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"heapconv/ir"
)

// plural says "1 snapshot" or "n snapshots".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// tableNameMax is how many characters of a class name info's table shows;
// --json has them whole.
const tableNameMax = 100

// tableName makes a name fit a table row: control characters and lone
// surrogates written as escapes, and cut after tableNameMax characters
// with a note of its length.
func tableName(s string) string {
	var b strings.Builder
	n := 0
	for i := 0; i < len(s); {
		r, size := ir.DecodeWTF8(s[i:])
		i += size
		if n == tableNameMax {
			fmt.Fprintf(&b, "… (%d characters)", utf8.RuneCountInString(s))
			return b.String()
		}
		n++
		switch {
		case r >= 0xD800 && r <= 0xDFFF:
			fmt.Fprintf(&b, `\u%04x`, r)
		case r < 0:
			fmt.Fprintf(&b, `\x%02x`, s[i-1])
		case !unicode.IsPrint(r) && r != ' ':
			q := fmt.Sprintf("%+q", string(r))
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// wtf8String is a name from the IR, whose strings are WTF-8 (V8 and Dart
// strings may hold lone UTF-16 surrogates): in JSON a surrogate is written
// as its \udXXX escape, which JSON allows, where encoding/json would write
// three U+FFFD and lose it.
type wtf8String string

func (s wtf8String) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, len(s)+2)
	b = append(b, '"')
	for i := 0; i < len(s); {
		r, size := ir.DecodeWTF8(string(s[i:]))
		switch {
		case r >= 0xD800 && r <= 0xDFFF:
			b = fmt.Appendf(b, `\u%04x`, r)
		case r < 0:
			// Not WTF-8 either: JSON has no way to say which byte.
			b = append(b, `\ufffd`...)
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r < 0x20:
			if e := ir.JSONShortEscape(byte(r)); e != 0 {
				b = append(b, '\\', e)
			} else {
				b = fmt.Appendf(b, `\u%04x`, r)
			}
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"'), nil
}
