// Package dart writes the IR as a Dart VM heap snapshot ("dartheap"), the
// binary format the Dart VM writes for its service protocol and DevTools
// exports. The format is described in docs/formats/dart.md; ir/dart/snapshot.go says
// how it maps into the IR.
//
// IR read from a Dart file is written back byte for byte: the VM's layout
// (and the 2019–2021 one, and DevTools' padded exports) is modelled by the
// IR's Dart section, so the writer needs no bytes of the input. Numbers are
// written as canonical LEB128, as every Dart writer does. IR from other
// formats goes through Convert first. The facts of the format the writer
// shares with readers/dart are package ir/dart's.
package dart

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/heapconv/heapconv/ir"
	dartir "github.com/heapconv/heapconv/ir/dart"
)

// Options control Write.
type Options struct {
	// Progress, if set, is called now and then with the bytes written so far.
	Progress func(written int64)
}

// Write writes the file's single snapshot as a Dart heap snapshot.
func Write(w io.Writer, f *ir.File, opts Options) (ir.LossReport, error) {
	if len(f.Snapshots) != 1 {
		return nil, fmt.Errorf("dart: a Dart heap snapshot holds one snapshot; the input has %d (select one with ir.File.Select)", len(f.Snapshots))
	}
	var loss ir.LossReport
	if dartir.Of(f.Snapshots[0]) == nil {
		var err error
		if f, loss, err = Convert(f); err != nil {
			return nil, err
		}
	}
	s := f.Snapshots[0]
	wr := &writer{w: bufio.NewWriterSize(w, 1<<20), f: f, s: s, d: dartir.Of(s), progress: opts.Progress}
	if err := wr.file(); err != nil {
		return loss, err
	}
	return loss, wr.flush()
}

type writer struct {
	w        *bufio.Writer
	f        *ir.File
	s        *ir.Snapshot
	d        *dartir.Snapshot
	buf      []byte
	written  int64
	progress func(int64)
	err      error
}

// flush hands the buffered bytes to the output.
func (w *writer) flush() error {
	if w.err == nil && len(w.buf) > 0 {
		_, w.err = w.w.Write(w.buf)
		w.written += int64(len(w.buf))
		w.buf = w.buf[:0]
		if w.progress != nil {
			w.progress(w.written)
		}
	}
	if w.err == nil {
		w.err = w.w.Flush()
	}
	return w.err
}

// maybeFlush flushes once enough bytes are buffered.
func (w *writer) maybeFlush() error {
	if len(w.buf) >= 256<<10 {
		return w.flush()
	}
	return w.err
}

func (w *writer) uleb(v uint64) { w.buf = dartir.AppendULEB(w.buf, v) }

func (w *writer) sleb(v int64) { w.buf = dartir.AppendSLEB(w.buf, v) }

// utf8 writes string str as a Utf8String.
func (w *writer) utf8(str uint32) { w.buf = dartir.AppendString(w.buf, w.f.String(str)) }

func (w *writer) total(name string) uint64 {
	for _, t := range w.s.Totals {
		if t.Name == name {
			return t.Value
		}
	}
	return 0
}

func (w *writer) file() error {
	f, s, d := w.f, w.s, w.d
	// Node kinds are NonReferenceData tags by name.
	tags := make([]uint8, len(s.NodeKinds))
	for k, name := range s.NodeKinds {
		tags[k] = 255
		for t, dn := range dartir.NodeKinds {
			if dn == name {
				tags[k] = uint8(t)
			}
		}
		if tags[k] == 255 {
			return fmt.Errorf("dart: node kind %q is not a Dart data tag", name)
		}
	}

	w.buf = append(w.buf, dartir.Magic...)
	w.uleb(d.Flags)
	w.utf8(s.Name)
	for _, name := range dartir.HeaderTotals {
		w.uleb(w.total(name))
	}

	c := &f.Classes
	w.uleb(uint64(c.Len()))
	for k := 0; k < c.Len(); k++ {
		w.uleb(d.ClassFlags.At(k))
		w.utf8(c.Name[k])
		w.utf8(c.Library[k])
		w.utf8(d.ClassURI[k])
		w.utf8(d.ClassReserved[k])
		lo, hi := c.FirstField[k], c.FirstField[k+1]
		w.uleb(uint64(hi - lo))
		for j := lo; j < hi; j++ {
			w.uleb(d.FieldFlags.At(int(j)))
			w.uleb(d.FieldIndex.At(int(j)))
			w.utf8(c.FieldName[j])
			w.utf8(d.FieldReserved[j])
		}
		if err := w.maybeFlush(); err != nil {
			return err
		}
	}

	w.uleb(d.ReferenceCount)
	nd := &s.Nodes
	n := nd.Len()
	w.uleb(uint64(n))
	v := &s.Values
	vi, zi := 0, 0
	for i := 0; i < n; i++ {
		if len(nd.Class) > 0 {
			w.uleb(uint64(nd.Class[i]))
		} else {
			w.uleb(0)
		}
		w.uleb(nd.SelfSize.At(i))
		tag := tags[nd.Kind[i]]
		w.uleb(uint64(tag))
		hasValue := vi < len(v.Node) && v.Node[vi] == uint32(i)
		if tag != dartir.NoData {
			if !hasValue {
				return fmt.Errorf("dart: node %d has data tag %s but no value", i, dartir.NodeKinds[tag])
			}
			if err := w.data(i, tag, v.Kind[vi], v.Bits[vi], v.Aux[vi]); err != nil {
				return err
			}
		}
		if hasValue {
			vi++
		}
		// References: the edges, with the zero references at their slots.
		lo, hi := nd.EdgeRange(i)
		zlo := zi
		for zi < len(d.ZeroRefNode) && d.ZeroRefNode[zi] == uint32(i) {
			zi++
		}
		total := hi - lo + zi - zlo
		w.uleb(uint64(total))
		e, z := lo, zlo
		for j := 0; j < total; j++ {
			if z < zi && d.ZeroRefSlot[z] == uint32(j) {
				w.buf = append(w.buf, 0)
				z++
				continue
			}
			if e >= hi {
				return fmt.Errorf("dart: node %d: zero reference at slot %d beyond its %d references", i, d.ZeroRefSlot[z], total)
			}
			w.uleb(uint64(s.Edges.Target[e]) + 1)
			e++
		}
		if err := w.maybeFlush(); err != nil {
			return err
		}
	}
	if zi != len(d.ZeroRefNode) {
		return fmt.Errorf("dart: zero references out of order or beyond the nodes")
	}

	w.uleb(uint64(len(d.ExternalNode)))
	for k, node := range d.ExternalNode {
		w.uleb(uint64(node) + 1)
		w.uleb(d.ExternalSize.At(k))
		w.utf8(d.ExternalName[k])
		if err := w.maybeFlush(); err != nil {
			return err
		}
	}
	if d.IdentityHashes {
		for i := 0; i < n; i++ {
			w.uleb(nd.ID.At(i))
			if err := w.maybeFlush(); err != nil {
				return err
			}
		}
	}
	for pad := d.Padding; pad > 0; {
		k := min(pad, 64<<10)
		w.buf = append(w.buf, make([]byte, k)...)
		pad -= k
		if err := w.maybeFlush(); err != nil {
			return err
		}
	}
	return w.err
}

// data writes the NonReferenceData payload of node i.
func (w *writer) data(i int, tag uint8, kind ir.ValueKind, bits, aux uint64) error {
	if want, _ := dartir.ValueKind(tag); kind != want {
		return fmt.Errorf("dart: node %d: a %s value cannot be written with data tag %s", i, kind, dartir.NodeKinds[tag])
	}
	switch tag {
	case dartir.NullData:
	case dartir.BoolData, dartir.LengthData:
		w.uleb(bits)
	case dartir.IntData:
		if aux == dartir.IntSLEB {
			w.sleb(int64(bits))
		} else {
			w.uleb(bits)
		}
	case dartir.DoubleData:
		w.buf = binary.LittleEndian.AppendUint64(w.buf, bits)
	case dartir.NameData:
		if bits > math.MaxUint32 {
			return fmt.Errorf("dart: node %d: string index %d", i, bits)
		}
		w.utf8(uint32(bits))
	case dartir.Latin1Data, dartir.UTF16Data:
		if bits > math.MaxUint32 {
			return fmt.Errorf("dart: node %d: string index %d", i, bits)
		}
		str := w.f.String(uint32(bits))
		var units []byte
		count := 0
		for k := 0; k < len(str); {
			r, size := ir.DecodeWTF8(str[k:])
			if r < 0 {
				return fmt.Errorf("dart: node %d: string holds a byte that is not WTF-8", i)
			}
			k += size
			if tag == dartir.Latin1Data {
				if r > 0xFF {
					return fmt.Errorf("dart: node %d: %U cannot be written as Latin-1", i, r)
				}
				units = append(units, byte(r))
				count++
				continue
			}
			if r > 0xFFFF {
				r -= 0x10000
				units = binary.LittleEndian.AppendUint16(units, uint16(0xD800+(r>>10)))
				units = binary.LittleEndian.AppendUint16(units, uint16(0xDC00+(r&0x3FF)))
				count += 2
				continue
			}
			units = binary.LittleEndian.AppendUint16(units, uint16(r))
			count++
		}
		length := uint64(count)
		if aux != 0 {
			length = aux
		}
		w.uleb(length)
		w.uleb(uint64(count))
		w.buf = append(w.buf, units...)
	}
	return nil
}
