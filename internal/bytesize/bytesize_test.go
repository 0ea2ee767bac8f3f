package bytesize

import "testing"

func TestString(t *testing.T) {
	for _, tc := range []struct {
		n    uint64
		want string
	}{
		{0, "0 B"}, {1023, "1023 B"}, {1024, "1.0 KiB"}, {1536, "1.5 KiB"},
		{1 << 20, "1.0 MiB"}, {5 << 29, "2.5 GiB"}, {1 << 40, "1024.0 GiB"},
	} {
		if got := String(tc.n); got != tc.want {
			t.Errorf("String(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
