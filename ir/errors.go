package ir

import "fmt"

// FormatError reports malformed input: which format, where (byte offset in
// the input, or -1 when the problem is not tied to one place) and what.
type FormatError struct {
	Format string
	Offset int64
	Msg    string
}

func (e *FormatError) Error() string {
	if e.Offset < 0 {
		return fmt.Sprintf("%s: %s", e.Format, e.Msg)
	}
	return fmt.Sprintf("%s: offset %d: %s", e.Format, e.Offset, e.Msg)
}

// Errorf returns a *FormatError.
func Errorf(format string, offset int64, msg string, args ...any) *FormatError {
	return &FormatError{Format: format, Offset: offset, Msg: fmt.Sprintf(msg, args...)}
}

// LossReport lists what a conversion could not carry into its output. Writers
// return one; an empty report means nothing was lost.
type LossReport []string

// Addf appends a line to the report.
func (l *LossReport) Addf(format string, args ...any) { *l = append(*l, fmt.Sprintf(format, args...)) }
