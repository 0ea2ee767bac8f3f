package irstream

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/heapconv/heapconv/ir"

	"github.com/vmihailenco/msgpack/v5"
)

// A .heapir.zst is cut into zstd frames at the stream's parts — the head,
// each snapshot, the end record — and ends with their seek table in the
// format of zstd's seekable format (contrib/seekable_format in the zstd
// sources): a skippable frame listing each frame's compressed and
// decompressed size, ending in a 9-byte footer. Any zstd reader skips the
// table; DecodeSnapshot uses it to decompress only the frames one snapshot
// needs (SPEC.md, Compressed streams).

// The seekable format's constants.
const (
	skippableMagic = 0x184D2A5E
	seekableMagic  = 0x8F92EAB1
	seekFooterLen  = 9
)

// ErrNoIndex is returned by DecodeSnapshot for a stream it cannot read one
// snapshot of alone: not compressed, without a seek table (written before
// schema 8, or by another writer), or of frames not cut at its parts.
// Decode reads such a stream whole.
var ErrNoIndex = errors.New("the stream has no index of its snapshots")

// ErrNoSnapshot is returned by DecodeSnapshot for a snapshot number past
// the stream's last snapshot.
var ErrNoSnapshot = errors.New("no such snapshot")

type seekEntry struct{ compressed, decompressed int64 }

// seekTable returns the skippable frame holding the frames' seek table, or
// nothing when a frame is too large for the format's 32-bit sizes.
func seekTable(frames []seekEntry) []byte {
	for _, f := range frames {
		if f.compressed > math.MaxUint32 || f.decompressed > math.MaxUint32 {
			return nil
		}
	}
	n := 8*len(frames) + seekFooterLen
	b := make([]byte, 0, 8+n)
	b = binary.LittleEndian.AppendUint32(b, skippableMagic)
	b = binary.LittleEndian.AppendUint32(b, uint32(n))
	for _, f := range frames {
		b = binary.LittleEndian.AppendUint32(b, uint32(f.compressed))
		b = binary.LittleEndian.AppendUint32(b, uint32(f.decompressed))
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(frames)))
	b = append(b, 0) // descriptor: no checksums
	return binary.LittleEndian.AppendUint32(b, seekableMagic)
}

// frame is one frame of a compressed stream: where it is in the file and
// where its bytes are in the stream.
type frame struct{ off, size, streamOff, streamSize int64 }

// readSeekTable reads the frames of a compressed stream of size bytes
// from its seek table.
func readSeekTable(r io.ReaderAt, size int64) ([]frame, error) {
	if size < 8+seekFooterLen {
		return nil, ErrNoIndex
	}
	var foot [seekFooterLen]byte
	if _, err := r.ReadAt(foot[:], size-seekFooterLen); err != nil {
		return nil, err
	}
	n := int64(binary.LittleEndian.Uint32(foot[:4]))
	if binary.LittleEndian.Uint32(foot[5:]) != seekableMagic || foot[4] != 0 {
		return nil, ErrNoIndex
	}
	tableLen := 8 + 8*n + seekFooterLen
	if tableLen > size {
		return nil, ErrNoIndex
	}
	table := make([]byte, tableLen-seekFooterLen)
	if _, err := r.ReadAt(table, size-tableLen); err != nil {
		return nil, err
	}
	if binary.LittleEndian.Uint32(table) != skippableMagic || int64(binary.LittleEndian.Uint32(table[4:])) != tableLen-8 {
		return nil, ErrNoIndex
	}
	frames := make([]frame, n)
	var off, streamOff int64
	for i := range frames {
		e := table[8+8*i:]
		c, d := int64(binary.LittleEndian.Uint32(e)), int64(binary.LittleEndian.Uint32(e[4:]))
		frames[i] = frame{off, c, streamOff, d}
		off, streamOff = off+c, streamOff+d
	}
	if off != size-tableLen {
		return nil, ErrNoIndex
	}
	return frames, nil
}

// CountSnapshots returns how many snapshots a .heapir.zst of size bytes
// holds, from its seek table alone (one frame for the head, one per
// snapshot, one for the end record), or ErrNoIndex.
func CountSnapshots(r io.ReaderAt, size int64) (int, error) {
	frames, err := readSeekTable(r, size)
	if err != nil {
		return 0, err
	}
	if len(frames) < 2 {
		return 0, ErrNoIndex
	}
	return len(frames) - 2, nil
}

// frameReader returns a reader of frame f's decompressed bytes.
func frameReader(r io.ReaderAt, f frame) (io.Reader, func(), error) {
	zr, err := newZstdReader(io.NewSectionReader(r, f.off, f.size))
	if err != nil {
		return nil, nil, err
	}
	return zr, zr.Close, nil
}

// DecodeSnapshot reads snapshot n of a .heapir.zst of size bytes from its
// seek table, decompressing only the head, that snapshot and the
// snapshots it is stored against (SPEC.md, Snapshots stored against a
// base), and returns it as (*ir.File).Select(n) of the whole file gives
// it: for a series, the file the snapshot came from. It returns ErrNoIndex
// for a stream it cannot read so (and for a file whose sections of the
// file depend on all its snapshots), which Decode reads whole.
func DecodeSnapshot(r io.ReaderAt, size int64, n int) (*ir.File, error) {
	frames, err := readSeekTable(r, size)
	if err != nil {
		return nil, err
	}
	if len(frames) < 2 {
		return nil, ErrNoIndex
	}
	d := &decoder{budget: 0}
	for _, f := range frames {
		d.budget += f.size * compressedReserveRatio
	}
	if err := d.feed(r, frames[0], true); err != nil {
		return nil, err
	}
	if len(d.f.Sections) > 0 || uint64(len(frames)) != d.nSnapshots+2 || uint64(len(d.f.Strings)) != d.nStrings {
		return nil, ErrNoIndex
	}
	if n < 0 || uint64(n) >= d.nSnapshots {
		return nil, fmt.Errorf("%w: snapshot %d (the file has %d)", ErrNoSnapshot, n, d.nSnapshots)
	}
	// The chain of bases, from n back to a snapshot stored as it is.
	chain := []int{n}
	for k := n; ; {
		b, err := peekBase(r, frames[1+k])
		if err != nil {
			return nil, err
		}
		if b < 0 || b >= k {
			break
		}
		chain = append(chain, b)
		k = b
	}
	for i := len(chain) - 1; i >= 0; i-- {
		k := chain[i]
		for len(d.f.Snapshots) < k {
			d.f.Snapshots = append(d.f.Snapshots, &ir.Snapshot{Root: ir.NoNode})
			d.snaps = append(d.snaps, nil)
		}
		if err := d.feed(r, frames[1+k], false); err != nil {
			return nil, err
		}
		if err := d.closeSnapshot(d.snap); err != nil {
			return nil, err
		}
		if len(d.f.Snapshots) != k+1 {
			return nil, ir.Errorf(ir.FormatIR, frames[1+k].streamOff, "frame %d does not hold snapshot %d alone", 1+k, k)
		}
	}
	for _, sc := range d.snaps {
		if sc != nil {
			if err := d.finish(sc); err != nil {
				return nil, err
			}
		}
	}
	if err := d.finish(d.file); err != nil {
		return nil, err
	}
	g, err := d.f.Select(n)
	if err != nil {
		return nil, err
	}
	if err := g.Validate(); err != nil {
		return nil, ir.Errorf(ir.FormatIR, -1, "invalid: %v", err)
	}
	return g, nil
}

// peekBase returns the base of the snapshot whose frame is f: the base
// field of its snapshot record, -1 for none.
func peekBase(r io.ReaderAt, f frame) (int, error) {
	zr, done, err := frameReader(r, f)
	if err != nil {
		return 0, err
	}
	defer done()
	dec := msgpack.NewDecoder(io.LimitReader(zr, 1<<20))
	n, err := dec.DecodeArrayLen()
	if err != nil || n != 3 {
		return 0, ErrNoIndex
	}
	if kind, err := dec.DecodeString(); err != nil || kind != "snapshot" {
		return 0, ErrNoIndex
	}
	m, err := dec.DecodeMapLen()
	if err != nil {
		return 0, ErrNoIndex
	}
	base := -1
	for range m {
		k, err := dec.DecodeString()
		if err != nil {
			return 0, ErrNoIndex
		}
		if k == "base" {
			if base != -1 {
				return 0, ErrNoIndex // twice: the decoder refuses it
			}
			b, err := dec.DecodeInt64()
			if err != nil {
				return 0, ErrNoIndex
			}
			base = int(max(b, -1))
			continue
		}
		if err := dec.Skip(); err != nil {
			return 0, ErrNoIndex
		}
	}
	return base, nil
}

// feed decodes the records of one frame; head says it is the stream's
// first (the header, then the file's records).
func (d *decoder) feed(r io.ReaderAt, f frame, head bool) error {
	zr, done, err := frameReader(r, f)
	if err != nil {
		return err
	}
	defer done()
	d.cr = &countingReader{r: bufioReader(zr), off: f.streamOff}
	if d.dec == nil {
		d.dec = msgpack.NewDecoder(d.cr)
	} else {
		d.dec.Reset(d.cr)
	}
	err = d.records(head)
	var fe *ir.FormatError
	if errors.As(err, &fe) && fe.Offset >= 0 && fe.Within == "" {
		fe.Within = ir.Decompressed
	}
	return err
}
