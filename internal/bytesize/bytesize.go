// Package bytesize writes sizes in bytes for people: the one spelling the
// command's progress line and the HTML report share.
package bytesize

import "fmt"

// String gives n in the largest binary unit it reaches, with one decimal
// ("1.5 MiB"), or in bytes below 1 KiB ("512 B").
func String(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
