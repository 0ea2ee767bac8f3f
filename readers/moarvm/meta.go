package moarvm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/heapconv/heapconv/ir"
	moarvmir "github.com/heapconv/heapconv/ir/moarvm"
)

// metaField is one key of a metadata object, with its value as JSON.
type metaField struct {
	key   string
	value json.RawMessage
}

// parseObject reads a JSON object's fields in order. Metadata blocks are
// under a kilobyte, so encoding/json is the right tool here.
func parseObject(js []byte) ([]metaField, error) {
	d := json.NewDecoder(bytes.NewReader(js))
	d.UseNumber()
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("not a JSON object")
	}
	var out []metaField
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return nil, err
		}
		key, _ := t.(string)
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, fmt.Errorf("%q: %v", key, err)
		}
		out = append(out, metaField{key, v})
	}
	if t, err := d.Token(); err != nil || t != json.Delim('}') {
		return nil, fmt.Errorf("unterminated JSON object")
	}
	if _, err := d.Token(); err == nil {
		return nil, fmt.Errorf("text after the JSON object")
	}
	return out, nil
}

func parseUint(f metaField) (uint64, error) {
	v, err := strconv.ParseUint(string(f.value), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q: %s is not an unsigned integer", f.key, f.value)
	}
	return v, nil
}

// parseFileMeta reads filemeta's fields into m. It returns a note when the
// JSON is not exactly what MoarVM writes, so that writing it back changes it.
func parseFileMeta(js []byte, m *moarvmir.File) (string, error) {
	fields, err := parseObject(js)
	if err != nil {
		return "", err
	}
	var hasHS bool
	for _, f := range fields {
		switch f.key {
		case "subversion":
			m.Subversion, err = parseUint(f)
		case "start_time":
			m.StartTime, err = parseUint(f)
		case "pid":
			m.PID, err = parseUint(f)
			m.HasPID = true
		case "highscore_structure":
			hasHS = true
			var hs struct {
				EntryCount *uint64  `json:"entry_count"`
				DataOrder  []string `json:"data_order"`
			}
			if err = json.Unmarshal(f.value, &hs); err == nil && hs.EntryCount == nil {
				err = fmt.Errorf("highscore_structure without entry_count")
			}
			if err == nil {
				m.EntryCount, m.DataOrder = *hs.EntryCount, hs.DataOrder
			}
		}
		if err != nil {
			return "", err
		}
	}
	if !hasHS {
		return "", fmt.Errorf("no highscore_structure (every MoarVM writes one, and readers need it)")
	}
	if m.EntryCount > moarvmir.MaxHighscores || uint64(len(m.DataOrder))*m.EntryCount > moarvmir.MaxHighscores {
		return "", fmt.Errorf("highscore_structure of %d boards of %d entries (MoarVM writes 4 of 40; at most %d in all)", len(m.DataOrder), m.EntryCount, moarvmir.MaxHighscores)
	}
	if moarvmir.FileMetaJSON(m) != string(js) {
		return "filemeta JSON not in MoarVM's layout: written back in it", nil
	}
	return "", nil
}

// parseSnapMeta reads snapmeta: snap_time and gc_seq_num into m, the other
// (integer) fields into totals, in order.
func parseSnapMeta(js []byte, m *moarvmir.Snapshot) ([]ir.Total, string, error) {
	fields, err := parseObject(js)
	if err != nil {
		return nil, "", err
	}
	var totals []ir.Total
	for _, f := range fields {
		v, err := parseUint(f)
		if err != nil {
			return nil, "", err
		}
		switch f.key {
		case "snap_time":
			m.SnapTime = v
		case "gc_seq_num":
			m.GCSeqNum = v
		default:
			totals = append(totals, ir.Total{Name: f.key, Value: v})
		}
	}
	if moarvmir.SnapMetaJSON(m, totals) != string(js) {
		return totals, "snapmeta JSON not in MoarVM's layout: written back in it", nil
	}
	return totals, "", nil
}
