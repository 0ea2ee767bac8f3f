package moarvm

import (
	"errors"
	"fmt"
	"strings"

	"github.com/heapconv/heapconv/ir"
	moarvmir "github.com/heapconv/heapconv/ir/moarvm"
)

// recoverV3 reads a version 3 file whose tables of contents cannot be
// followed (cause says why) by walking its blocks from the start: each
// block's header says where it ends, except for zstd frames, whose end
// their own block headers give. Blocks are grouped into snapshots at each
// snapmeta; every snapshot whose blocks are all complete is kept.
func (r *reader) recoverV3(cause error) (*ir.File, error) {
	blocks, damage, cut, why := r.walk()
	if len(blocks) == 0 || blocks[0].name != moarvmir.BlockFileMeta {
		return nil, cause
	}
	meta := blocks[0]
	// Group into inner TOCs: a snapshot's blocks, closed by its inner TOC.
	var tocs []*toc
	var cur *toc
	complete := 0 // snapshots whose inner TOC was reached
	for _, b := range blocks[1:] {
		switch {
		case b.name == moarvmir.BlockSnapMeta:
			cur = &toc{start: b.start, blocks: []block{b}}
			tocs = append(tocs, cur)
		case b.name == moarvmir.BlockTOC:
			if cur != nil && r.isInnerTOC(b) {
				complete = len(tocs)
				cur = nil
			}
		case cur != nil:
			cur.blocks = append(cur.blocks, b)
		}
	}
	// A snapshot cut before its inner TOC may still be whole: keep it if
	// its blocks read, as the last one.
	started := len(tocs)
	if cut != "" && strings.HasPrefix(moarvmir.BlockSnapMeta, cut) {
		started++ // a snapshot whose first block is cut short
	}
	if len(tocs) > complete {
		if _, ok := tocs[len(tocs)-1].find(moarvmir.RefTarget); !ok {
			tocs = tocs[:len(tocs)-1]
		}
	}
	// Where the damage starts: where the walk stopped, or earlier, where
	// the damage that sent the reader here was found.
	var fe *ir.FormatError
	if errors.As(cause, &fe) && fe.Offset >= int64(moarvmir.MagicSize) && fe.Offset < damage && fe.Offset < r.size-moarvmir.PointerSize {
		damage = fe.Offset
	}
	at := fmt.Sprint(damage)
	if r.within != "" {
		at += " of " + r.within
	}
	for len(tocs) > 0 {
		f, bad, err := r.build(meta, tocs, true)
		if err == nil {
			moarvmir.FileOf(f).Recovery = &moarvmir.Recovery{DamageAt: damage, Reason: fmt.Sprintf("%v; %s", r.mark(cause), why), Lost: started - len(f.Snapshots)}
			f.FormatVersion += fmt.Sprintf(", recovered from a damaged file: %d of %s read, damage at offset %s", len(f.Snapshots), snapshots(started), at)
			return f, nil
		}
		if bad >= len(tocs) {
			break
		}
		tocs = tocs[:bad]
	}
	return nil, fmt.Errorf("%w (and no complete snapshot could be recovered by walking the blocks: %s at offset %s)", r.mark(cause), why, at)
}

// isInnerTOC reports whether the TOC block b is a snapshot's inner TOC
// rather than a copy of the outer one (whose first entry is filemeta).
func (r *reader) isInnerTOC(b block) bool {
	t, _, err := r.readTOC(b.start, b.end+moarvmir.PointerSize)
	return err == nil && (len(t.blocks) == 0 || t.blocks[0].name != moarvmir.BlockFileMeta)
}

// walk lists the complete blocks from the end of the magic on, stopping at the first
// one that is cut short or unknown; it returns where it stopped, the name
// of the block there if it has one, and why (the end of the file counts as
// damage too: a complete file ends with its outer TOC, which recovery is
// not needed for).
func (r *reader) walk() (out []block, damage int64, cut, why string) {
	off := int64(moarvmir.MagicSize)
	var hdr [moarvmir.ColumnHeaderSize]byte
	for off < r.size {
		if r.size-off < moarvmir.HeaderSize {
			cut = moarvmir.ParseName(hdr[:copy(hdr[:moarvmir.NameSize], r.readPrefix(off, moarvmir.NameSize))])
			return out, off, cut, "a block header cut short"
		}
		if err := r.readAt(hdr[:min(moarvmir.ColumnHeaderSize, r.size-off)], off); err != nil {
			return out, off, "", err.Error()
		}
		name, n := moarvmir.ParseHeader(hdr[:moarvmir.HeaderSize]) // n means nothing for a column
		var end int64
		switch name {
		case moarvmir.BlockFileMeta, moarvmir.BlockSnapMeta:
			if n > uint64(r.size-off-moarvmir.HeaderSize) {
				return out, off, name, name + " block cut short"
			}
			end = off + moarvmir.HeaderSize + int64(n)
		case moarvmir.BlockTOC:
			empty := moarvmir.TOCSize(0) + moarvmir.PointerSize
			if r.size-off < empty || n > uint64(r.size-off-empty)/moarvmir.TOCEntrySize {
				return out, off, name, "table of contents cut short"
			}
			end = off + moarvmir.TOCSize(int64(n)) // the TOC's own end, as TOCs list it
			out = append(out, block{name, off, end})
			off = end + moarvmir.PointerSize
			continue
		case moarvmir.BlockStrings:
			e, err := r.frameEnd(off+moarvmir.HeaderSize, r.size)
			if err != nil {
				return out, off, name, "strings block: " + err.Error()
			}
			end = e
		default:
			if moarvmir.EntrySize(name) == 0 {
				return out, off, name, fmt.Sprintf("no block starts here (%q)", name)
			}
			e, err := r.frameEnd(off+moarvmir.ColumnHeaderSize, r.size)
			if err != nil {
				var fe *ir.FormatError
				if errors.As(err, &fe) {
					return out, off, name, fe.Msg
				}
				return out, off, name, name + " block: " + err.Error()
			}
			end = e
		}
		out = append(out, block{name, off, end})
		off = end
	}
	return out, off, "", "the file ends without its final table of contents"
}

// readPrefix returns up to n bytes at off, or nil.
func (r *reader) readPrefix(off int64, n int) []byte {
	b := make([]byte, min(int64(n), r.size-off))
	if r.readAt(b, off) != nil {
		return nil
	}
	return b
}
