package v8

import (
	"fmt"
	"strings"

	"github.com/heapconv/heapconv/ir"
)

// The kinds of loss of a V8 section, which every other format's writer
// reports (ir.SectionLoss).
const (
	// LossDetachedness: nodes' detachedness (DOM nodes attached or
	// detached, what DevTools' "Detached <tag>" rows show); Count is nodes
	// with a state.
	LossDetachedness = "v8-detachedness"
	// LossLocations: objects' allocation locations (script, line,
	// column); Count is locations.
	LossLocations = "v8-locations"
	// LossSamples: allocation samples (timestamp, last assigned id) of a
	// snapshot taken with allocation tracking; Count is samples.
	LossSamples = "v8-samples"
	// LossFields: node and edge fields a producer added beyond the
	// common ones; Count is fields.
	LossFields = "v8-fields"
	// LossSection: top-level sections of a V8 file that other producers
	// added; Count is sections.
	LossSection = "v8-section"
	// LossHeader: header values of a V8 file that the V8 writer corrects
	// so that DevTools loads what it writes (a trace_function_count that
	// does not count the functions); Count is how many functions the
	// count was off by.
	LossHeader = "v8-header"
)

// HeaderLoss names what the V8 writer corrects in the header when it
// writes the section again (writers/v8): a trace_function_count that is
// not the number of functions (TraceFunctionCountWrong).
func (v *Snapshot) HeaderLoss() ir.LossReport {
	declared, wrong := v.TraceFunctionCountWrong()
	if !wrong {
		return nil
	}
	n := v.TraceFunctions()
	off := int64(n)
	if c, ok := v.Header.Get(HeaderTraceFunctionCount).Uint(); ok {
		off = max(int64(c)-int64(n), int64(n)-int64(c))
	}
	var loss ir.LossReport
	loss.Addf(LossHeader, off, "functions the header's trace_function_count miscounted (%s for the %d of trace_function_infos; Node 20's inspector writes it short when it tracks allocations, and DevTools' loader fails on it): written as %d", declared, n, n)
	return loss
}

// Loss names what the section holds that a file of another format cannot:
// detachedness, allocation locations, samples, fields of other producers
// and top-level keys the model does not know, and the allocation traces
// unless the target keeps stacks (pprof does, as sample stacks).
func (v *Snapshot) Loss(f *ir.File, s *ir.Snapshot, t ir.Target) ir.LossReport {
	if t.Format == Format {
		return nil
	}
	var loss ir.LossReport
	add := func(n int, kind, what string) *ir.Loss { return loss.NoPlace(n, kind, what, t.Name) }
	var fields []string
	for _, c := range v.NodeExtra {
		switch c.Name {
		case NodeDetachedness:
			states, detached := 0, 0
			for i := range c.Values.Len() {
				if x := c.Values.At(i); x != 0 {
					states++
					if x == Detached {
						detached++
					}
				}
			}
			if l := add(states, LossDetachedness, "nodes' detachedness (whether a DOM node is attached; DevTools' Detached <tag> rows)"); l != nil {
				l.WithExample(fmt.Sprintf("%d detached", detached))
			}
		case NodeTraceNodeID:
			if !t.KeepsStacks {
				add(v.tracedObjects(f, s), ir.LossAllocationStacks, "objects' allocation traces")
			}
		case DartClassField: // the Dart heap's, which its writer reads back
		default:
			fields = append(fields, "node field "+c.Name)
		}
	}
	for _, c := range v.EdgeExtra {
		fields = append(fields, "edge field "+c.Name)
	}
	if l := add(len(fields), LossFields, "fields other producers added"); l != nil {
		l.WithExample(strings.Join(fields, ", "))
	}
	if nf := len(v.MetaList(MetaLocationFields)); nf > 0 {
		add(v.Locations.Len()/nf, LossLocations, "objects' allocation locations (script, line, column)")
	}
	if nf := len(v.MetaList(MetaSampleFields)); nf > 0 {
		add(v.Samples.Len()/nf, LossSamples, "allocation samples (timestamp, last object id)")
	}
	var keys []string
	for _, k := range v.Keys {
		if k.Value != nil {
			keys = append(keys, k.Name)
		}
	}
	if l := add(len(keys), LossSection, "top-level sections other producers added"); l != nil {
		l.WithExample(strings.Join(keys, ", "))
	}
	return loss
}

// tracedObjects counts the objects whose allocation stack the traces give:
// a node traced to the tree's root (V8 traces some code objects so) has no
// frame to lose, and synthetic nodes (s's, when given) are no objects.
func (v *Snapshot) tracedObjects(f *ir.File, s *ir.Snapshot) int {
	t := v.Traces(f)
	if t == nil {
		return 0
	}
	var synthetic []bool
	if s != nil {
		synthetic = ir.SyntheticNodes(f, s)
	}
	n := 0
	for i := range t.NodeIDs.Len() {
		id := t.NodeIDs.At(i)
		if p, ok := t.parent[id]; id == 0 || !ok || p == 0 || i < len(synthetic) && synthetic[i] {
			continue
		}
		n++
	}
	return n
}
