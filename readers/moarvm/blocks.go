package moarvm

import (
	"bytes"
	"encoding/binary"

	moarvmir "github.com/heapconv/heapconv/ir/moarvm"
)

// Block is one block of a version 3 file as Blocks lists it.
type Block struct {
	Name   string
	Offset int64
	// EntrySize is a column's entry size; 0 for other blocks.
	EntrySize int
	// Content is a column's or the strings block's decompressed bytes, a
	// metadata block's JSON (without its NUL), or a TOC's entry names
	// joined by commas (its offsets depend on the compressed sizes).
	Content []byte
}

// Blocks lists the blocks of a complete or truncated version 3 file in file
// order, with their contents: what "the same file, block by block" means
// when the zstd frames differ (tests and debugging use it). It stops at the
// first block that is not whole.
func Blocks(data []byte) ([]Block, error) {
	if !bytes.HasPrefix(data, []byte(moarvmir.Magic3)) {
		return nil, errorf(0, "not a MoarVM heap snapshot of version 3")
	}
	r := &reader{ra: bytes.NewReader(data), size: int64(len(data))}
	r.budget.Store(64*r.size + 32<<20)
	defer r.closeDecoders()
	walked, _, _, _ := r.walk()
	var out []Block
	for _, b := range walked {
		bl := Block{Name: b.name, Offset: b.start}
		switch {
		case b.name == moarvmir.BlockTOC:
			t, _, err := r.readTOC(b.start, b.end+moarvmir.PointerSize)
			if err != nil {
				return nil, err
			}
			var names []byte
			for i, e := range t.blocks {
				if i > 0 {
					names = append(names, ',')
				}
				names = append(names, e.name...)
			}
			bl.Content = names
		case b.name == moarvmir.BlockFileMeta || b.name == moarvmir.BlockSnapMeta:
			js, err := r.readMeta(b)
			if err != nil {
				return nil, err
			}
			bl.Content = js
		case b.name == moarvmir.BlockStrings:
			content, err := r.decompress(data[b.start+moarvmir.HeaderSize:b.end], -1, r.budget.Load())
			if err != nil {
				return nil, errorf(b.start, "strings: %v", err)
			}
			bl.Content = content
		default:
			bl.EntrySize = int(binary.LittleEndian.Uint16(data[b.start+moarvmir.NameSize:]))
			content, err := r.decompress(data[b.start+moarvmir.ColumnHeaderSize:b.end], -1, r.budget.Load())
			if err != nil {
				return nil, errorf(b.start, "%s: %v", b.name, err)
			}
			bl.Content = content
		}
		out = append(out, bl)
	}
	return out, nil
}
