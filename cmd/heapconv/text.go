package main

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/analysis"
)

// plural says "1 snapshot" or "n snapshots".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "s") {
		return fmt.Sprintf("%d %ses", n, noun)
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
			fmt.Fprintf(&b, "… (%d characters)", codePoints(s))
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

// codePoints counts the code points of a WTF-8 string (a lone surrogate is
// one).
func codePoints(s string) int {
	n := 0
	for i := 0; i < len(s); n++ {
		_, size := ir.DecodeWTF8(s[i:])
		i += size
	}
	return n
}

// classLabel is a class's name in info's table, with the allocation
// location of a V8 class DevTools splits by location: "Foo at script 3
// line 11 column 5", line and column counted from 1 as DevTools shows them
// (--json has V8's zero-based numbers).
func classLabel(c analysis.ClassStat) string {
	return analysis.ClassStat{Name: tableName(c.Name), Location: c.Location}.Label()
}
