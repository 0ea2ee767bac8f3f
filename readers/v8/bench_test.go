package v8

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"testing"

	"github.com/heapconv/heapconv/ir/analysis"
)

// synthSnapshot writes a V8-style snapshot of n nodes with the shape of a
// real Node heap (about 3.3 edges per node, ids and offsets of realistic
// widths), in the compact (rows=false) or rows layout.
func synthSnapshot(n int, rows bool) []byte {
	r := rand.New(rand.NewSource(1))
	var b bytes.Buffer
	fields := 6
	nodeFields := `"type","name","id","self_size","edge_count","detachedness"`
	if rows {
		fields = 7
		nodeFields = `"type","name","id","self_size","edge_count","trace_node_id","detachedness"`
	}
	counts := make([]int, n)
	edges := 0
	for i := range counts {
		counts[i] = r.Intn(7)
		edges += counts[i]
	}
	fmt.Fprintf(&b, `{"snapshot":{"meta":{"node_fields":[%s],"node_types":[["hidden","array","string","object","code","closure","regexp","number","native","synthetic","concatenated string","sliced string","symbol","bigint","object shape"],"string","number","number","number","number","number"],"edge_fields":["type","name_or_index","to_node"],"edge_types":[["context","element","property","internal","hidden","shortcut","weak"],"string_or_number","node"],"location_fields":["object_index","script_id","line","column"]},"node_count":%d,"edge_count":%d,"trace_function_count":0},`+"\n", nodeFields, n, edges)
	const nstrings = 5000
	b.WriteString(`"nodes":[`)
	var row []byte
	for i := 0; i < n; i++ {
		row = row[:0]
		if i > 0 {
			row = append(row, ',')
		}
		row = strconv.AppendInt(row, int64(r.Intn(14)), 10)
		row = append(row, ',')
		row = strconv.AppendInt(row, int64(1+r.Intn(nstrings-1)), 10)
		row = append(row, ',')
		row = strconv.AppendInt(row, int64(2*i+1), 10)
		row = append(row, ',')
		row = strconv.AppendInt(row, int64(r.Intn(200)), 10)
		row = append(row, ',')
		row = strconv.AppendInt(row, int64(counts[i]), 10)
		if rows {
			row = append(row, ",0"...)
		}
		row = append(row, ",0"...)
		if rows {
			row = append(row, '\n')
		}
		b.Write(row)
	}
	b.WriteString("],\n\"edges\":[")
	first := true
	for i := 0; i < n; i++ {
		for j := 0; j < counts[i]; j++ {
			row = row[:0]
			if !first {
				row = append(row, ',')
			}
			first = false
			t := r.Intn(7)
			row = strconv.AppendInt(row, int64(t), 10)
			row = append(row, ',')
			if t == 1 || t == 4 {
				row = strconv.AppendInt(row, int64(r.Intn(100)), 10)
			} else {
				row = strconv.AppendInt(row, int64(1+r.Intn(nstrings-1)), 10)
			}
			row = append(row, ',')
			row = strconv.AppendInt(row, int64(r.Intn(n)*fields), 10)
			if rows {
				row = append(row, '\n')
			}
			b.Write(row)
		}
	}
	b.WriteString("],\n\"locations\":[],\n\"strings\":[\"<dummy>\"")
	for i := 1; i < nstrings; i++ {
		fmt.Fprintf(&b, `,"name%d"`, i)
	}
	b.WriteString("]}")
	return b.Bytes()
}

func benchmarkRead(b *testing.B, rows bool) {
	data := synthSnapshot(2_000_000, rows)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Read(bytes.NewReader(data), Options{Size: int64(len(data))}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadCompact measures reading a Node ≥ 24 style file (~110 MB).
func BenchmarkReadCompact(b *testing.B) { benchmarkRead(b, false) }

// BenchmarkReadRows measures reading a Node ≤ 22 style file.
func BenchmarkReadRows(b *testing.B) { benchmarkRead(b, true) }

// BenchmarkReadFile reads the snapshot named by $HEAPCONV_BENCH_FILE (for
// scripts/bench-v8.sh, on real multi-GB files).
func BenchmarkReadFile(b *testing.B) {
	name := os.Getenv("HEAPCONV_BENCH_FILE")
	if name == "" {
		b.Skip("set HEAPCONV_BENCH_FILE to a .heapsnapshot")
	}
	st, err := os.Stat(name)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	for i := 0; i < b.N; i++ {
		f, err := os.Open(name)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Read(f, Options{Size: st.Size()}); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}

// BenchmarkDominatorsFile computes the dominator tree and retained sizes of
// the snapshot named by $HEAPCONV_BENCH_FILE (read once, outside the
// timing): the figure for a real heap, whose references have the locality
// real allocation gives them.
func BenchmarkDominatorsFile(b *testing.B) {
	name := os.Getenv("HEAPCONV_BENCH_FILE")
	if name == "" {
		b.Skip("set HEAPCONV_BENCH_FILE to a .heapsnapshot")
	}
	f, err := os.Open(name)
	if err != nil {
		b.Fatal(err)
	}
	file, err := Read(f, Options{})
	f.Close()
	if err != nil {
		b.Fatal(err)
	}
	s := file.Snapshots[0]
	b.ReportMetric(float64(s.Nodes.Len()), "nodes")
	b.ReportMetric(float64(s.Edges.Len()), "edges")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := analysis.Dominators(s, analysis.DominatorOptions{IncludeExternal: true, Orphans: true}); err != nil {
			b.Fatal(err)
		}
	}
}
