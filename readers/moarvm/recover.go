package moarvm

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/heapconv/heapconv/ir"
)

// recoverV3 reads a version 3 file whose tables of contents cannot be
// followed (cause says why) by walking its blocks from the start: each
// block's header says where it ends, except for zstd frames, whose end
// their own block headers give. Blocks are grouped into snapshots at each
// snapmeta; every snapshot whose blocks are all complete is kept.
func (r *reader) recoverV3(cause error) (*ir.File, error) {
	blocks, damage, cut, why := r.walk()
	if len(blocks) == 0 || blocks[0].name != "filemeta" {
		return nil, cause
	}
	meta := blocks[0]
	// Group into inner TOCs: a snapshot's blocks, closed by its inner TOC.
	var tocs []*toc
	var cur *toc
	complete := 0 // snapshots whose inner TOC was reached
	for _, b := range blocks[1:] {
		switch {
		case b.name == "snapmeta":
			cur = &toc{start: b.start, blocks: []block{b}}
			tocs = append(tocs, cur)
		case b.name == "toc":
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
	if cut != "" && strings.HasPrefix("snapmeta", cut) {
		started++ // a snapshot whose first block is cut short
	}
	if len(tocs) > complete {
		if _, ok := tocs[len(tocs)-1].find("reftrget"); !ok {
			tocs = tocs[:len(tocs)-1]
		}
	}
	// Where the damage starts: where the walk stopped, or earlier, where
	// the damage that sent the reader here was found.
	var fe *ir.FormatError
	if errors.As(cause, &fe) && fe.Offset >= 16 && fe.Offset < damage && fe.Offset < r.size-8 {
		damage = fe.Offset
	}
	for len(tocs) > 0 {
		f, bad, err := r.build(meta, tocs, true)
		if err == nil {
			f.MoarVM.Recovery = &ir.MoarVMRecovery{DamageAt: damage, Reason: fmt.Sprintf("%v; %s", cause, why), Lost: started - len(f.Snapshots)}
			f.FormatVersion += fmt.Sprintf(", recovered from a damaged file: %d of %s read, damage at offset %d", len(f.Snapshots), snapshots(started), damage)
			return f, nil
		}
		if bad >= len(tocs) {
			break
		}
		tocs = tocs[:bad]
	}
	return nil, fmt.Errorf("%w (and no complete snapshot could be recovered by walking the blocks: %s at offset %d)", cause, why, damage)
}

// isInnerTOC reports whether the TOC block b is a snapshot's inner TOC
// rather than a copy of the outer one (whose first entry is filemeta).
func (r *reader) isInnerTOC(b block) bool {
	t, _, err := r.readTOC(b.start, b.end+8)
	return err == nil && (len(t.blocks) == 0 || t.blocks[0].name != "filemeta")
}

// walk lists the complete blocks from offset 16 on, stopping at the first
// one that is cut short or unknown; it returns where it stopped, the name
// of the block there if it has one, and why (the end of the file counts as
// damage too: a complete file ends with its outer TOC, which recovery is
// not needed for).
func (r *reader) walk() (out []block, damage int64, cut, why string) {
	off := int64(16)
	var hdr [18]byte
	for off < r.size {
		if r.size-off < 16 {
			cut = blockName(hdr[:copy(hdr[:8], r.readPrefix(off, 8))])
			return out, off, cut, "a block header cut short"
		}
		if err := r.readAt(hdr[:min(18, r.size-off)], off); err != nil {
			return out, off, "", err.Error()
		}
		name := blockName(hdr[:8])
		var end int64
		switch name {
		case "filemeta", "snapmeta":
			n := binary.LittleEndian.Uint64(hdr[8:16])
			if n > uint64(r.size-off-16) {
				return out, off, name, name + " block cut short"
			}
			end = off + 16 + int64(n)
		case "toc":
			n := binary.LittleEndian.Uint64(hdr[8:16])
			if r.size-off < 24 || n > uint64(r.size-off-24)/24 {
				return out, off, name, "table of contents cut short"
			}
			end = off + 16 + 24*int64(n) // the TOC's own end, as TOCs list it
			out = append(out, block{name, off, end})
			off = end + 8
			continue
		case "strings":
			e, err := r.frameEnd(off+16, r.size)
			if err != nil {
				return out, off, name, "strings block: " + err.Error()
			}
			end = e
		default:
			if _, ok := columnWidths[name]; !ok {
				return out, off, name, fmt.Sprintf("no block starts here (%q)", name)
			}
			e, err := r.frameEnd(off+18, r.size)
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
