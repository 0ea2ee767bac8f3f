package moarvm

import (
	"strconv"

	"github.com/heapconv/heapconv/ir"
)

// FileMetaJSON renders the filemeta JSON as MoarVM's writer does
// (heapsnapshot.c's snprintf layout), without the terminating NUL: the
// writer writes it, and the reader compares a file's with it to tell
// whether writing the file back changes the text.
func FileMetaJSON(m *File) string {
	b := []byte(`{ "subversion": `)
	b = strconv.AppendUint(b, m.Subversion, 10)
	b = append(b, `, "start_time": `...)
	b = strconv.AppendUint(b, m.StartTime, 10)
	if m.HasPID {
		b = append(b, `, "pid": `...)
		b = strconv.AppendUint(b, m.PID, 10)
	}
	b = append(b, `, "highscore_structure": { "entry_count": `...)
	b = strconv.AppendUint(b, m.EntryCount, 10)
	b = append(b, `, "data_order": [`...)
	for i, name := range m.DataOrder {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = ir.AppendJSONString(b, name)
	}
	b = append(b, "]}}"...)
	return string(b)
}

// SnapMetaJSON renders a snapshot's snapmeta JSON as MoarVM's writer does,
// from its section and its Totals, without the terminating NUL (used as
// FileMetaJSON is).
func SnapMetaJSON(m *Snapshot, totals []ir.Total) string {
	b := []byte(`{ "snap_time": `)
	b = strconv.AppendUint(b, m.SnapTime, 10)
	b = append(b, `, "gc_seq_num": `...)
	b = strconv.AppendUint(b, m.GCSeqNum, 10)
	for _, t := range totals {
		b = append(b, ", "...)
		b = ir.AppendJSONString(b, t.Name)
		b = append(b, ": "...)
		b = strconv.AppendUint(b, t.Value, 10)
	}
	b = append(b, " }"...)
	return string(b)
}
