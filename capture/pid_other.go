//go:build !linux

package capture

import (
	"context"
	"fmt"
)

// connectPID needs Linux's /proc to tell a Node process and its
// inspector's socket.
func connectPID(ctx context.Context, t Target, opts *Options) (vm, Producer, error) {
	return nil, Producer{}, fmt.Errorf("%w: pid:N targets work on Linux only; start node with --inspect and give its address", ErrNoTarget)
}
