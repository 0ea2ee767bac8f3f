package ir

import (
	"errors"
	"fmt"
)

// Conditions of malformed input that callers may act on; a *FormatError
// wraps them (errors.Is).
var (
	// ErrTruncated: the input ends where more data was needed (a file
	// cut short by an interrupted copy or a full disk).
	ErrTruncated = errors.New("unexpected end of input")
	// ErrNewerVersion: an IR stream of a schema version newer than this
	// package reads; a newer heapconv reads it.
	ErrNewerVersion = errors.New("newer IR schema version")
)

// FormatError reports malformed input: which format, where (byte offset in
// the input, or -1 when the problem is not tied to one place) and what.
type FormatError struct {
	Format string
	Offset int64
	Msg    string
	// Within, when set, says what Offset counts the bytes of when it is
	// not the file as given: "the decompressed data" for a file read
	// through gzip or zstd.
	Within string
	// Err, when set, is the condition the error is an instance of
	// (ErrTruncated, ErrNewerVersion); Msg says it in full.
	Err error
}

// Unwrap returns Err.
func (e *FormatError) Unwrap() error { return e.Err }

// Truncated returns a *FormatError for input that ends at offset where
// more was needed; it wraps ErrTruncated.
func Truncated(format string, offset int64, msg string, args ...any) *FormatError {
	e := Errorf(format, offset, msg, args...)
	e.Err = ErrTruncated
	return e
}

// Error gives the format, the offset when known, and the message.
func (e *FormatError) Error() string {
	switch {
	case e.Offset < 0:
		return fmt.Sprintf("%s: %s", e.Format, e.Msg)
	case e.Within != "":
		return fmt.Sprintf("%s: offset %d of %s: %s", e.Format, e.Offset, e.Within, e.Msg)
	}
	return fmt.Sprintf("%s: offset %d: %s", e.Format, e.Offset, e.Msg)
}

// Decompressed is FormatError.Within for offsets in a file's decompressed
// data.
const Decompressed = "the decompressed data"

// Errorf returns a *FormatError.
func Errorf(format string, offset int64, msg string, args ...any) *FormatError {
	return &FormatError{Format: format, Offset: offset, Msg: fmt.Sprintf(msg, args...)}
}
