package v8

import (
	"strconv"

	"github.com/heapconv/heapconv/ir"
)

// maxDepth bounds nesting in the JSON values the reader keeps (the header and
// other producers' extra keys); V8's header nests three deep.
const maxDepth = 64

// value reads any JSON value into an ir.JSON.
func (s *scanner) value(depth int, es *escapeStats) (ir.JSON, error) {
	return s.valueAt(depth, es, nil)
}

// valueAt is value that, when the value is an object, calls at with each
// of its own fields' keys and the offset where the field's value begins
// (for messages about one header field).
func (s *scanner) valueAt(depth int, es *escapeStats, at func(key string, off int64)) (ir.JSON, error) {
	if depth > maxDepth {
		return ir.JSON{}, s.errorf("JSON nested deeper than %d levels", maxDepth)
	}
	s.skipWS()
	c, ok := s.peek()
	if !ok {
		return ir.JSON{}, s.eofErrorf("unexpected end of file, expected a value")
	}
	switch {
	case c == '{':
		s.pos++
		obj := ir.JSON{Kind: ir.JSONObject}
		s.skipWS()
		if c, _ := s.peek(); c == '}' {
			s.pos++
			return obj, nil
		}
		for {
			keyOff := s.offset()
			k, err := s.str(es)
			if err != nil {
				return obj, err
			}
			if obj.Get(k) != nil {
				// JSON.parse (DevTools) would take the last value, a lenient
				// reader the first: refuse rather than guess.
				return obj, s.errorAtOffset(keyOff, "duplicate key %q in an object", k)
			}
			if err := s.expect(':'); err != nil {
				return obj, err
			}
			if at != nil {
				s.skipWS()
				at(k, s.offset())
			}
			v, err := s.value(depth+1, es)
			if err != nil {
				return obj, err
			}
			obj.Fields = append(obj.Fields, ir.JSONField{Key: k, Value: v})
			s.skipWS()
			c, ok := s.peek()
			switch {
			case ok && c == ',':
				s.pos++
			case ok && c == '}':
				s.pos++
				return obj, nil
			default:
				return obj, s.errorf("expected ',' or '}' in an object")
			}
		}
	case c == '[':
		s.pos++
		arr := ir.JSON{Kind: ir.JSONArray}
		s.skipWS()
		if c, _ := s.peek(); c == ']' {
			s.pos++
			return arr, nil
		}
		for {
			v, err := s.value(depth+1, es)
			if err != nil {
				return arr, err
			}
			arr.Elems = append(arr.Elems, v)
			s.skipWS()
			c, ok := s.peek()
			switch {
			case ok && c == ',':
				s.pos++
			case ok && c == ']':
				s.pos++
				return arr, nil
			default:
				return arr, s.errorf("expected ',' or ']' in an array")
			}
		}
	case c == '"':
		str, err := s.str(es)
		return ir.JSONStr(str), err
	case c == 't' || c == 'f' || c == 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if s.literal(lit) {
				switch lit {
				case "true":
					return ir.JSON{Kind: ir.JSONBool, Bool: true}, nil
				case "false":
					return ir.JSON{Kind: ir.JSONBool}, nil
				}
				return ir.JSON{}, nil
			}
		}
		return ir.JSON{}, s.errorf("invalid literal")
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	}
	return ir.JSON{}, s.errorf("unexpected %q, expected a value", c)
}

// literal consumes lit if it comes next.
func (s *scanner) literal(lit string) bool {
	if !s.ensure(len(lit)) || string(s.buf[s.pos:s.pos+len(lit)]) != lit {
		return false
	}
	s.pos += len(lit)
	return true
}

// number reads a JSON number: an integer when it is one that fits in int64,
// else a float.
func (s *scanner) number() (ir.JSON, error) {
	start := s.offset()
	var b []byte
	isInt := true
	for {
		c, ok := s.peek()
		if !ok {
			break
		}
		if c >= '0' && c <= '9' || c == '-' {
		} else if c == '.' || c == 'e' || c == 'E' || c == '+' {
			isInt = false
		} else {
			break
		}
		if len(b) > 400 {
			return ir.JSON{}, s.errorAtOffset(start, "number too long")
		}
		b = append(b, c)
		s.pos++
	}
	if isInt {
		if v, err := strconv.ParseInt(string(b), 10, 64); err == nil {
			return ir.JSONNum(v), nil
		}
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return ir.JSON{}, s.errorAtOffset(start, "invalid or out-of-range number %q", b)
	}
	return ir.JSON{Kind: ir.JSONFloat, Float: f}, nil
}
