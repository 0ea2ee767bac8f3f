package heapconv

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// compareWriter compares what is written with an original's bytes as it
// is written (a multi-GB snapshot is never held twice) and keeps the first
// difference with the bytes around it.
type compareWriter struct {
	orig    io.Reader
	n       int64 // bytes written
	origLen int64 // bytes of the original read
	diffAt  int64 // -1 while everything was the same
	// line and col locate the next byte while everything is the same.
	line, col int64
	// before is what both had just before the difference (at most
	// contextBytes); origTail and outTail are what each has from it on.
	before, origTail, outTail []byte
	buf                       []byte
}

const contextBytes = 40

func newCompareWriter(orig io.Reader) *compareWriter {
	return &compareWriter{orig: orig, diffAt: -1, line: 1, col: 1}
}

func (c *compareWriter) Write(p []byte) (int, error) {
	if c.diffAt >= 0 {
		c.outTail = appendUpTo(c.outTail, p)
		c.n += int64(len(p))
		return len(p), nil
	}
	if cap(c.buf) < len(p) {
		c.buf = make([]byte, len(p))
	}
	b := c.buf[:len(p)]
	k, _ := io.ReadFull(c.orig, b)
	c.origLen += int64(k)
	i := 0
	for i < k && b[i] == p[i] {
		i++
	}
	c.same(p[:i])
	if i < len(p) {
		c.diffAt = c.n + int64(i)
		c.origTail = appendUpTo(nil, b[i:k])
		c.outTail = appendUpTo(nil, p[i:])
	}
	c.n += int64(len(p))
	return len(p), nil
}

// same takes in bytes both had.
func (c *compareWriter) same(p []byte) {
	if nl := bytes.Count(p, []byte{'\n'}); nl > 0 {
		c.line += int64(nl)
		c.col = int64(len(p) - bytes.LastIndexByte(p, '\n'))
	} else {
		c.col += int64(len(p))
	}
	if len(p) >= contextBytes {
		c.before = append(c.before[:0], p[len(p)-contextBytes:]...)
	} else {
		c.before = append(c.before, p...)
		c.before = c.before[max(0, len(c.before)-contextBytes):]
	}
}

func appendUpTo(dst, p []byte) []byte {
	return append(dst, p[:min(len(p), contextBytes-len(dst))]...)
}

// finish reads the rest of the original: bytes beyond the output are a
// difference too.
func (c *compareWriter) finish() {
	var more [contextBytes]byte
	k, _ := io.ReadFull(c.orig, more[:])
	c.origLen += int64(k)
	if c.diffAt < 0 && k > 0 {
		c.diffAt = c.n
	}
	if c.diffAt >= 0 {
		c.origTail = appendUpTo(c.origTail, more[:k])
	}
	rest, _ := io.Copy(io.Discard, c.orig)
	c.origLen += rest
}

// shown returns the bytes around the difference cut at whole characters:
// a difference inside a multi-byte character starts at the character.
func (c *compareWriter) shown() (before, orig, out []byte) {
	before, orig, out = c.before, c.origTail, c.outTail
	for len(before) > 0 && !utf8.RuneStart(before[0]) {
		before = before[1:]
	}
	if j := lastRuneStart(before); j >= 0 && !utf8.FullRune(before[j:]) {
		part := before[j:]
		before = before[:j]
		orig = append(append([]byte(nil), part...), orig...)
		out = append(append([]byte(nil), part...), out...)
	}
	cutEnd := func(p []byte) []byte {
		if j := lastRuneStart(p); j >= 0 && !utf8.FullRune(p[j:]) {
			return p[:j]
		}
		return p
	}
	return before, cutEnd(orig), cutEnd(out)
}

// lastRuneStart is the index of the last byte of p that may start a
// character, among its last utf8.UTFMax bytes; -1 when none does.
func lastRuneStart(p []byte) int {
	for j := len(p) - 1; j >= 0 && j >= len(p)-utf8.UTFMax; j-- {
		if utf8.RuneStart(p[j]) {
			return j
		}
	}
	return -1
}

// text reports whether the bytes around the difference are text (a JSON
// snapshot), to be shown as such rather than in hex.
func (c *compareWriter) text() bool {
	before, orig, out := c.shown()
	for _, p := range [][]byte{before, orig, out} {
		if !utf8.Valid(p) {
			return false
		}
		for _, r := range string(p) {
			if r < 0x20 && r != '\n' && r != '\t' && r != '\r' || r == 0x7f {
				return false
			}
		}
	}
	return true
}

// position says where the difference is in a text file.
func (c *compareWriter) position() string {
	if !c.text() {
		return ""
	}
	return fmt.Sprintf(" (line %d, column %d)", c.line, c.col)
}

// excerpt shows the bytes around the difference: the original's and the
// output's, one line each, and a caret under the first that differs.
func (c *compareWriter) excerpt() string {
	var b strings.Builder
	if c.text() {
		shownBefore, orig, out := c.shown()
		before := escapeText(shownBefore)
		if c.diffAt > int64(len(c.before)) {
			before = "…" + before
		}
		fmt.Fprintf(&b, "  original: %s%s%s\n", before, escapeText(orig), c.more(c.origLen, c.origTail))
		fmt.Fprintf(&b, "  written:  %s%s%s\n", before, escapeText(out), c.more(c.n, c.outTail))
		fmt.Fprintf(&b, "            %s^", strings.Repeat(" ", utf8.RuneCountInString(before)))
		return b.String()
	}
	const hexContext = 12
	before := c.before[max(0, len(c.before)-hexContext):]
	line := func(tail []byte) string {
		var l strings.Builder
		for _, x := range before {
			fmt.Fprintf(&l, " %02x", x)
		}
		for i, x := range tail[:min(len(tail), hexContext)] {
			if i == 0 {
				fmt.Fprintf(&l, " [%02x]", x)
			} else {
				fmt.Fprintf(&l, " %02x", x)
			}
		}
		if len(tail) == 0 {
			l.WriteString(" [end of file]")
		}
		return l.String()
	}
	dots := ""
	if c.diffAt > int64(len(before)) {
		dots = " …"
	}
	fmt.Fprintf(&b, "  original:%s%s\n", dots, line(c.origTail))
	fmt.Fprintf(&b, "  written: %s%s", dots, line(c.outTail))
	return b.String()
}

// more says whether a side goes on after the tail shown (of a file of
// size bytes).
func (c *compareWriter) more(size int64, tail []byte) string {
	if size > c.diffAt+int64(len(tail)) {
		return "…"
	}
	return "[end of file]"
}

// escapeText writes line breaks and tabs as \n, \t, \r, so that an
// excerpt stays on one line.
func escapeText(p []byte) string {
	r := strings.NewReplacer("\n", `\n`, "\t", `\t`, "\r", `\r`)
	return r.Replace(strings.ToValidUTF8(string(p), "?"))
}
