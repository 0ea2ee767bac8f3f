package capture

import "time"

// SetTimeouts shortens the waits on a silent VM (idleTimeout) and on an
// endpoint or handshake (connectTimeout) for a test; it returns a
// function that restores them.
func SetTimeouts(idle, connect time.Duration) (restore func()) {
	i, c := idleTimeout, connectTimeout
	idleTimeout, connectTimeout = idle, connect
	return func() { idleTimeout, connectTimeout = i, c }
}
