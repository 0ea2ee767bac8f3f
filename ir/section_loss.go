package ir

import (
	"fmt"
	"strings"
)

// The kinds of loss of a V8 or MoarVM file's own section, which every
// other format's writer reports through V8Loss and MoarVMLoss (a Dart
// file's: LossDartSection, through DartLoss).
const (
	// LossV8Detachedness: nodes' detachedness (DOM nodes attached or
	// detached, what DevTools' "Detached <tag>" rows show); Count is nodes
	// with a state.
	LossV8Detachedness = "v8-detachedness"
	// LossV8Locations: objects' allocation locations (script, line,
	// column); Count is locations.
	LossV8Locations = "v8-locations"
	// LossV8Samples: allocation samples (timestamp, last assigned id) of a
	// snapshot taken with allocation tracking; Count is samples.
	LossV8Samples = "v8-samples"
	// LossV8Fields: node and edge fields a producer added beyond the
	// common ones; Count is fields.
	LossV8Fields = "v8-fields"
	// LossMoarVMStaticFrames: MoarVM's static frames (name, compilation
	// unit, file, line); Count is frames.
	LossMoarVMStaticFrames = "moarvm-static-frames"
	// LossMoarVMMetadata: MoarVM's file and snapshot metadata (format
	// subversion, start time, process id; each snapshot's time and GC
	// sequence number); Count is fields.
	LossMoarVMMetadata = "moarvm-metadata"
)

// V8Loss names what snapshot s of f has in its V8 section that a file of
// another format cannot hold: detachedness, allocation locations, samples,
// fields of other producers and top-level keys the model does not know,
// and the allocation traces unless the format keeps them (pprof does, as
// sample stacks). format names the target for the report ("a Dart file").
// A snapshot without a V8 section loses nothing here.
func V8Loss(f *File, s *Snapshot, format string, keepsStacks bool) LossReport {
	v := s.V8
	if v == nil {
		return nil
	}
	var loss LossReport
	add := func(n int, kind, what string) *Loss { return loss.noPlace(n, kind, what, format) }
	var fields []string
	for _, c := range v.NodeExtra {
		switch c.Name {
		case "detachedness":
			states, detached := 0, 0
			for i := range c.Values.Len() {
				if x := c.Values.At(i); x != 0 {
					states++
					if x == V8Detached {
						detached++
					}
				}
			}
			if l := add(states, LossV8Detachedness, "nodes' detachedness (whether a DOM node is attached; DevTools' Detached <tag> rows)"); l != nil {
				l.WithExample(fmt.Sprintf("%d detached", detached))
			}
		case "trace_node_id":
			if !keepsStacks {
				traced := 0
				for i := range c.Values.Len() {
					if c.Values.At(i) != 0 {
						traced++
					}
				}
				add(traced, LossAllocationStacks, "objects' allocation traces")
			}
		case V8DartClassField: // the Dart heap's, which its writer reads back
		default:
			fields = append(fields, "node field "+c.Name)
		}
	}
	for _, c := range v.EdgeExtra {
		fields = append(fields, "edge field "+c.Name)
	}
	if l := add(len(fields), LossV8Fields, "fields other producers added"); l != nil {
		l.WithExample(strings.Join(fields, ", "))
	}
	if nf := len(v.MetaList("location_fields")); nf > 0 {
		add(v.Locations.Len()/nf, LossV8Locations, "objects' allocation locations (script, line, column)")
	}
	if nf := len(v.MetaList("sample_fields")); nf > 0 {
		add(v.Samples.Len()/nf, LossV8Samples, "allocation samples (timestamp, last object id)")
	}
	var keys []string
	for _, k := range v.Keys {
		if k.Value != nil {
			keys = append(keys, k.Name)
		}
	}
	if l := add(len(keys), LossV8Section, "top-level sections other producers added"); l != nil {
		l.WithExample(strings.Join(keys, ", "))
	}
	return loss
}

// The detachedness of a V8 node: unknown (0), attached (a DOM node in the
// document, or reached from one) or detached.
const (
	V8Attached = 1
	V8Detached = 2
)

// MoarVMLoss names what a MoarVM file f has beyond the common model that a
// file of another format cannot hold: the static frames (unless the format
// keeps them), the highscore boards, and the file's and snapshots'
// metadata. format names the target for the report. A file without a
// MoarVM section loses nothing here.
func MoarVMLoss(f *File, format string, keepsFrames bool) LossReport {
	m := f.MoarVM
	if m == nil {
		return nil
	}
	var loss LossReport
	add := func(n int, kind, what string) *Loss { return loss.noPlace(n, kind, what, format) }
	if !keepsFrames {
		if l := add(m.Frames(), LossMoarVMStaticFrames, "static frames (name, compilation unit, file, line)"); l != nil {
			l.WithExample(fmt.Sprintf("%s at %s:%d", f.String(m.FrameName[0]), f.String(m.FrameFile[0]), m.FrameLine[0]))
		}
	}
	meta, entries := 0, 0
	if m.HasMeta {
		meta += 2 // subversion, start time
		if m.HasPID {
			meta++
		}
	}
	for _, s := range f.Snapshots {
		if ms := s.MoarVM; ms != nil {
			if ms.HasMeta {
				meta += 2 // snap time, GC sequence number
			}
			entries += len(ms.TopIDs)
		}
	}
	add(meta, LossMoarVMMetadata, "file and snapshot metadata (format subversion, start time, process id; snapshot times and GC sequence numbers)")
	add(entries, LossMoarVMHighscores, "highscore board entries (the types and frames with the most objects, bytes or calls)")
	return loss
}

// DartLoss names what snapshot s of f has in its Dart section that a file
// of another format cannot hold: the classes' flags and the fields' flags
// and slots (the VM's layout), and unless the format keeps the class table
// and external properties (keepsClasses: V8 does, for converting back) the
// classes' library URIs and the external properties' names. format names
// the target for the report. A snapshot without a Dart section loses
// nothing here.
func DartLoss(f *File, s *Snapshot, format string, keepsClasses bool) LossReport {
	d := s.Dart
	if d == nil {
		return nil
	}
	var loss LossReport
	if n := f.Classes.Len() + len(f.Classes.FieldName); n > 0 {
		loss.Addf(LossDartSection, int64(n), "the VM's class flags and field flags and slots (%d classes, %d fields) have no place in %s",
			f.Classes.Len(), len(f.Classes.FieldName), format)
	}
	if keepsClasses {
		return loss
	}
	uris, example := 0, ""
	for k, u := range d.ClassURI {
		if uri := f.String(u); uri != "" && !IsDartForeignURI(uri) {
			if uris == 0 {
				example = f.String(f.Classes.Name[k]) + " of " + uri
			}
			uris++
		}
	}
	if n := uris + len(d.ExternalName); n > 0 {
		loss.Addf(LossDartSection, int64(n), "classes' library URIs (%d; the library names qualify class names where two share one) "+
			"and the names of external properties (%d) have no place in %s", uris, len(d.ExternalName), format).WithExample(example)
	}
	return loss
}

// noPlace adds n items of kind (what they are) that have no place in
// format; nothing when n is 0.
func (l *LossReport) noPlace(n int, kind, what, format string) *Loss {
	if n <= 0 {
		return nil
	}
	return l.Add(kind, int64(n), what+" have no place in "+format)
}
