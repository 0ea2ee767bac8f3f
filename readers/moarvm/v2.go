package moarvm

import "heapconv/ir"

func (r *reader) readV2() (*ir.File, error) {
	return nil, errorf(0, "version 2 is not read yet")
}
