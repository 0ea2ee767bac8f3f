package fuchsia

import "strconv"

// ContentsName returns the name ffx --output-contents-dir gives the file
// holding the contents of the block at addr of snapshot s: the address as
// AppendAddress spells it, prefixed with "<koid>-" (the process koid in
// decimal) in a multi-process snapshot.
func ContentsName(s *Snapshot, addr uint64) string {
	return string(AppendContentsName(nil, s, addr))
}

// AppendContentsName appends ContentsName(s, addr) to b: the reader and
// the writer name a file per block, and reuse one buffer for all.
func AppendContentsName(b []byte, s *Snapshot, addr uint64) []byte {
	if s.HasProcessKoid {
		b = strconv.AppendInt(b, s.ProcessKoid, 10)
		b = append(b, '-')
	}
	return AppendAddress(b, addr)
}
