package v8

// What a number array expects next.
const (
	expectFirst = iota // a value or ']' (just after '[')
	expectValue        // a value (after ',')
	expectSep          // ',' or ']' (after a value)
)

// arrayState is the progress of reading one JSON array of unsigned integers.
type arrayState struct {
	expect uint8
	done   bool // the closing bracket has been consumed
	values int64
	// White space inside the array, for the layout check.
	newlines, other int64
}

// uints reads up to len(dst) values of the array whose '[' has been consumed
// and returns how many it read; st.done is set after the closing ']'.
// Values must be JSON unsigned integers below 2^64: V8 writes nothing else,
// and DevTools would misread anything else.
//
// All values of one call lie in the buffer from s.batch on (the buffer is
// refilled only before the first value), so valueOffset can find any of them
// again for an error message.
func (s *scanner) uints(dst []uint64, st *arrayState) (int, error) {
	n := 0
	var err error
	for n < len(dst) && !st.done {
		if s.end-s.pos < 64 && !s.eof {
			s.fill() // keeps the batch's bytes (see scanner.batch)
		}
		if n == 0 {
			s.startBatch()
		}
		before := s.pos
		if s.end-s.pos >= 64 {
			n, err = s.uintsFast(dst, n, st)
		}
		if err == nil && s.pos == before && !st.done && n < len(dst) {
			// Near the end of the buffer, or a number that may go on
			// past it: one token the slow way (which refills).
			n, err = s.uintsSlow(dst, n, st)
		}
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// uintsFast parses while at least 32 bytes stay buffered. The common case,
// digits followed directly by a comma, takes one tight loop; everything else
// (white space, the closing bracket, errors) goes through the state machine.
func (s *scanner) uintsFast(dst []uint64, n int, st *arrayState) (int, error) {
	buf, pos, end := s.buf[:s.end+1], s.pos, s.end-32
	defer func() { s.pos = pos }()
	for n < len(dst) && pos < end {
		c := buf[pos]
		if st.expect != expectSep && c-'0' < 10 {
			start := pos
			// buf[s.end] is a sentinel non-digit: the loop cannot run off.
			var v uint64
			v, pos = moreDigits(buf, pos+1, uint64(c-'0'))
			if pos-start > 19 {
				if pos-start > 20 {
					// More than 20 digits never fit, however many follow.
					return n, s.errorAtPos(start, "number does not fit in 64 bits")
				}
				if pos == s.end {
					// The number may go on past the buffered data: the
					// caller reads it token by token (uintsSlow).
					pos = start
					return n, nil
				}
				var ok bool
				if v, ok = parseBig(buf[start:pos]); !ok {
					return n, s.errorAtPos(start, "number does not fit in 64 bits")
				}
			}
			dst[n] = v
			n++
			st.values++
			if buf[pos] == ',' {
				pos++
				st.expect = expectValue
				continue
			}
			if c := buf[pos]; c == '.' || c == 'e' || c == 'E' {
				return n, s.errorAtPos(start, "number is not an unsigned integer")
			}
			st.expect = expectSep
			continue
		}
		switch {
		case c == '\n':
			st.newlines++
			pos++
		case c == ' ' || c == '\r' || c == '\t':
			st.other++
			pos++
		case st.expect == expectSep:
			pos++
			switch c {
			case ',':
				st.expect = expectValue
			case ']':
				st.done = true
				return n, nil
			default:
				return n, s.errorAtPos(pos-1, "expected ',' or ']' in a number array, found %q", c)
			}
		case c == ']' && st.expect == expectFirst:
			pos++
			st.done = true
			return n, nil
		default:
			return n, s.notUint(pos)
		}
	}
	return n, nil
}

// uintsSlow handles one token near the end of the buffer, refilling as needed.
func (s *scanner) uintsSlow(dst []uint64, n int, st *arrayState) (int, error) {
	nl, ot := s.wsNewline, s.wsOther
	s.skipWS()
	st.newlines += s.wsNewline - nl
	st.other += s.wsOther - ot
	c, ok := s.peek()
	if !ok {
		return n, s.eofErrorf("unexpected end of file inside a number array")
	}
	if st.expect == expectSep {
		s.pos++
		switch c {
		case ',':
			st.expect = expectValue
		case ']':
			st.done = true
		default:
			return n, s.errorAtPos(s.pos-1, "expected ',' or ']' in a number array, found %q", c)
		}
		return n, nil
	}
	if c == ']' && st.expect == expectFirst {
		s.pos++
		st.done = true
		return n, nil
	}
	if c < '0' || c > '9' {
		return n, s.notUint(s.pos)
	}
	if n == 0 {
		s.startBatch()
	}
	start := s.offset()
	var digits [21]byte
	k := 0
	for {
		c, ok := s.peek()
		if !ok || c < '0' || c > '9' {
			if ok && (c == '.' || c == 'e' || c == 'E') {
				return n, s.errorAtOffset(start, "number is not an unsigned integer")
			}
			break
		}
		if k == len(digits) {
			return n, s.errorAtOffset(start, "number does not fit in 64 bits")
		}
		digits[k] = c
		k++
		s.pos++
	}
	v, ok := parseBig(digits[:k])
	if !ok {
		return n, s.errorAtOffset(start, "number does not fit in 64 bits")
	}
	dst[n] = v
	st.values++
	st.expect = expectSep
	return n + 1, nil
}

// parseBig parses decimal digits with overflow checking.
func parseBig(b []byte) (uint64, bool) {
	if len(b) > 20 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		d := uint64(c - '0')
		if v > (1<<64-1-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	return v, true
}

// notUint reports a value that is not an unsigned integer at buffer index pos.
func (s *scanner) notUint(pos int) error {
	switch c := s.buf[pos]; c {
	case '-':
		return s.errorAtPos(pos, "negative number in a number array (V8 writes unsigned integers only)")
	case ']':
		return s.errorAtPos(pos, "expected a number after ','")
	default:
		return s.errorAtPos(pos, "expected an unsigned integer, found %q", c)
	}
}

func (s *scanner) errorAtPos(pos int, format string, args ...any) error {
	save := s.pos
	s.pos = pos
	err := s.errorf(format, args...)
	s.pos = save
	return err
}

func (s *scanner) errorAtOffset(off int64, format string, args ...any) error {
	return s.errorAtPos(int(off-s.base), format, args...)
}

// startBatch marks the next byte as the start of a batch of values.
func (s *scanner) startBatch() {
	s.batch = s.pos
	s.curPos, s.curK = s.pos, 0
}

// valueOffset returns the file offset of value k of the last uints batch
// (approximate for a negative k: a value of the batch before).
func (s *scanner) valueOffset(k int) int64 {
	if s.batch < 0 || k < 0 {
		return s.base + int64(max(s.batch, 0))
	}
	pos, i := s.batch, 0
	if k >= s.curK && s.curPos >= s.batch {
		pos, i = s.curPos, s.curK
	}
	for pos < s.end {
		c := s.buf[pos]
		if c >= '0' && c <= '9' {
			if i == k {
				s.curPos, s.curK = pos, k
				return s.base + int64(pos)
			}
			for pos < s.end && s.buf[pos] >= '0' && s.buf[pos] <= '9' {
				pos++
			}
			i++
			continue
		}
		pos++
	}
	return s.offset()
}
