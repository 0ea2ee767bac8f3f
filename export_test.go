package heapconv

// SetDartMapped tells mapped, for every Dart input read, whether it was
// mapped into memory. It returns a function that restores the default.
func SetDartMapped(mapped func(bool)) (restore func()) {
	m := dartMapped
	dartMapped = mapped
	return func() { dartMapped = m }
}
