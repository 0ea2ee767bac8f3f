package v8

import (
	"github.com/heapconv/heapconv/ir"
)

// What a redaction (ir.File.Redact) replaces in a V8 snapshot: the names
// of the nodes whose names are what the program stored, by their kind
// (ir.NameIsData: strings' contents, regexps' sources, numbers named by
// their value), as for any heap of V8's kinds; here, the values of the
// top-level keys V8 does not write (another producer's additions), whose
// meaning is unknown. The header (its title is the name the embedder gave
// the snapshot), the allocation traces (function and script names,
// positions) and the locations are the program's code, and are kept; the
// function and script names of the traces are strings of the table the
// section itself lays out, which it renumbers (ir.StringHolder).

// The section's hooks for redaction.
var (
	_ ir.StringHolder = (*Snapshot)(nil)
	_ ir.Redacter     = (*Snapshot)(nil)
)

// LossRedactedKeys: the values of top-level keys V8 does not write,
// redacted (ir.File.Redact); Count is keys.
const LossRedactedKeys = "redacted-v8-keys"

// traceNameFields are the fields of trace_function_infos that hold string
// indices.
var traceNameFields = []string{"name", "script_name"}

// traceStrings calls at with the position in TraceFunctionInfos of every
// value that is a string index.
func (v *Snapshot) traceStrings(at func(k int)) {
	fields := v.MetaList(MetaTraceFunctionInfoFields)
	w := len(fields)
	if w == 0 {
		return
	}
	for fi, name := range fields {
		for _, s := range traceNameFields {
			if name != s {
				continue
			}
			for k := fi; k < v.TraceFunctionInfos.Len(); k += w {
				at(k)
			}
		}
	}
}

// UsedStrings calls use with the function and script names of the
// allocation traces.
func (v *Snapshot) UsedStrings(use func(uint32)) {
	v.traceStrings(func(k int) {
		if x := v.TraceFunctionInfos.At(k); x <= 1<<32-1 {
			use(uint32(x))
		}
	})
}

// RenumberStrings renumbers the function and script names of the
// allocation traces.
func (v *Snapshot) RenumberStrings(m *ir.StringMap) {
	v.traceStrings(func(k int) {
		if x := v.TraceFunctionInfos.At(k); x <= 1<<32-1 {
			v.TraceFunctionInfos.Set(k, uint64(m.Index(uint32(x))))
		}
	})
}

// Redact replaces the strings and numbers of the values of the top-level
// keys V8 does not write by placeholders of as many characters and zeros:
// heapconv keeps them without knowing what they hold. Their shape (keys,
// lists, booleans, nulls) is kept.
func (v *Snapshot) Redact() ir.LossReport {
	var loss ir.LossReport
	keys := make([]Key, len(v.Keys))
	for i, k := range v.Keys {
		keys[i] = k
		if k.Value == nil {
			continue
		}
		val := redactJSON(*k.Value)
		keys[i].Value = &val
		loss.Add(LossRedactedKeys, 1, "top-level keys V8 does not write (another producer's), whose meaning heapconv does not know: their strings replaced by placeholders, their numbers zeroed").
			WithExample(k.Name)
	}
	v.Keys = keys
	return loss
}

// redactJSON returns a copy of j with every string replaced by its
// placeholder (ir.Placeholder) and every number by 0; object keys are kept.
func redactJSON(j ir.JSON) ir.JSON {
	switch j.Kind {
	case ir.JSONString:
		return ir.JSONStr(ir.Placeholder(j.Str))
	case ir.JSONInt, ir.JSONFloat:
		return ir.JSONNum(0)
	case ir.JSONArray:
		out := ir.JSON{Kind: ir.JSONArray, Elems: make([]ir.JSON, len(j.Elems))}
		for i, e := range j.Elems {
			out.Elems[i] = redactJSON(e)
		}
		return out
	case ir.JSONObject:
		out := ir.JSON{Kind: ir.JSONObject, Fields: make([]ir.JSONField, len(j.Fields))}
		for i, fl := range j.Fields {
			out.Fields[i] = ir.JSONField{Key: fl.Key, Value: redactJSON(fl.Value)}
		}
		return out
	}
	return j
}
