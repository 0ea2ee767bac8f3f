package capture

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// escapeUTF16 escapes s as V8's inspector sends a chunk: every character
// beyond ASCII as \u escapes of its UTF-16 code units, returned one
// escape or character at a time, so that a test can cut between any two.
func escapeUTF16(s string) []string {
	var parts []string
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			parts = append(parts, `\`+string(r))
		case r < 0x20 || r >= 0x80:
			for _, u := range utf16.Encode([]rune{r}) {
				parts = append(parts, fmt.Sprintf(`\u%04x`, u))
			}
		default:
			parts = append(parts, string(r))
		}
	}
	return parts
}

// FuzzUnquote: a string cut into two chunks anywhere between its escapes
// (between a surrogate pair's halves too) comes back whole; and whatever
// encoding/json reads, unquote reads the same (outside lone surrogates,
// which it keeps as WTF-8 where encoding/json puts U+FFFD).
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{"", "plain", "a \"q\" \\ b", "Zürich 東京 🙂", "\x01\n\t", "🙂🙂"} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, s string, cut int) {
		if !utf8.ValidString(s) {
			return
		}
		parts := escapeUTF16(s)
		cut = min(max(cut, 0), len(parts))
		var u unquoter
		var out []byte
		for _, chunk := range []string{strings.Join(parts[:cut], ""), strings.Join(parts[cut:], "")} {
			var err error
			var rest []byte
			out, rest, err = u.unquote(out, []byte(chunk+`"}}`))
			if err != nil || string(rest) != "}}" {
				t.Fatalf("%q: %v, rest %q", chunk, err, rest)
			}
		}
		out = u.flush(out)
		if string(out) != s {
			t.Fatalf("got %q, want %q", out, s)
		}
		// Any JSON string encoding/json writes.
		enc, _ := json.Marshal(s)
		got, rest, err := new(unquoter).unquote(nil, enc[1:])
		if err != nil || len(rest) != 0 || string(got) != s {
			t.Fatalf("json.Marshal's %s: got %q, %v", enc, got, err)
		}
	})
}

func TestUnquoteLoneSurrogates(t *testing.T) {
	for in, want := range map[string]string{
		`\ud800"`:         "\xed\xa0\x80",
		`\udc00x"`:        "\xed\xb0\x80x",
		`\ud800\ud800"`:   "\xed\xa0\x80\xed\xa0\x80",
		`\ud83d\ude42"`:   "🙂",
		`a\ud83da\ude42"`: "a\xed\xa0\xbda\xed\xb9\x82",
		`\u00e9\u0041\/"`: "éA/",
		`\b\f\n\r\t\"\\"`: "\b\f\n\r\t\"\\",
	} {
		var u unquoter
		got, _, err := u.unquote(nil, []byte(in))
		got = u.flush(got)
		if err != nil || string(got) != want {
			t.Errorf("%s: got %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{`abc`, `\x"`, `\u12"`, `\u12g4"`, `\`} {
		if _, _, err := new(unquoter).unquote(nil, []byte(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// TestForbidden: a 403 answer is told by its status code, not by its
// text: an address with 403 in it (port 40357) is no refusal.
func TestForbidden(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{&statusError{"GET http://127.0.0.1:40357/getVersion", 404, "404 Not Found"}, false},
		{fmt.Errorf("wrapped: %w", &statusError{"GET http://127.0.0.1:8181/getVersion", 403, "403 Forbidden"}), true},
		{fmt.Errorf("%w: http://127.0.0.1:40357: no answer", ErrUnreachable), false},
		{nil, false},
	} {
		if got := forbidden(c.err); got != c.want {
			t.Errorf("forbidden(%v) = %v, want %v", c.err, got, c.want)
		}
	}
	if err := (&statusError{"GET x", 404, "404 Not Found"}); !errors.Is(err, ErrNotVM) || err.Error() != "not a V8 inspector or Dart VM service: GET x: 404 Not Found" {
		t.Errorf("statusError: %v", err)
	}
}
