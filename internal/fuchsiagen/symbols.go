package fuchsiagen

import (
	"encoding/hex"
	"errors"
	"sort"
	"strconv"
)

// Frame is one symbolized frame, as ffx_symbolize's Symbolizer.resolve_addr
// returns it. File is "" and Line 0 when the symbolizer has a function name
// but no file and line (ffx then writes filename "" and line 0).
type Frame struct {
	Function string
	File     string
	Line     int64
}

// The errors a Symbolizer returns; they mirror ffx_symbolize::ResolveError.
var (
	// ErrSymbolNotFound: the module's symbols are known but no function
	// covers the address. ffx still marks the mapping as resolved.
	ErrSymbolNotFound = errors.New("symbol not found")
	// ErrSymbolFileUnavailable: no symbol file for the build ID. ffx does
	// not mark the mapping as resolved and warns "Unresolved build ID".
	ErrSymbolFileUnavailable = errors.New("symbol file unavailable")
)

// Symbolizer resolves a module-relative address (the address in the ELF
// file's p_vaddr space: runtime PC − (region start − region vaddr)) of the
// module with the given build ID into frames, innermost inlined frame first.
type Symbolizer interface {
	Resolve(buildID []byte, moduleAddr uint64) ([]Frame, error)
}

// SymbolTable is a fake symbol server: per build ID, the functions of the
// module with their address ranges, line numbers and inlined callees.
// Generate fills one for the modules it loads.
type SymbolTable struct {
	mods map[string]*symModule
}

type symModule struct {
	unavailable bool
	funcs       []symFunc // sorted by start
}

type symFunc struct {
	name, file string
	line       int64
	start      uint64
	size       uint64
	inl        *symInline
}

type symInline struct {
	start, end uint64 // module-relative
	name, file string
	line       int64
	callLine   int64
}

// NewSymbolTable returns an empty table.
func NewSymbolTable() *SymbolTable { return &SymbolTable{mods: map[string]*symModule{}} }

func (t *SymbolTable) mod(buildID []byte) *symModule {
	k := hex.EncodeToString(buildID)
	m := t.mods[k]
	if m == nil {
		m = &symModule{}
		t.mods[k] = m
	}
	return m
}

// AddFunction registers a function covering [start, start+size) of the
// module's address space. line 0 means no line information.
func (t *SymbolTable) AddFunction(buildID []byte, name, file string, line int64, start, size uint64) {
	m := t.mod(buildID)
	m.funcs = append(m.funcs, symFunc{name: name, file: file, line: line, start: start, size: size})
	sort.SliceStable(m.funcs, func(i, j int) bool { return m.funcs[i].start < m.funcs[j].start })
}

// addInline marks [start, end) of the function containing start as code
// inlined from callee (name, file, line), called from callLine.
func (t *SymbolTable) addInline(buildID []byte, start, end uint64, name, file string, line, callLine int64) {
	m := t.mod(buildID)
	i := m.find(start)
	if i < 0 {
		return
	}
	m.funcs[i].inl = &symInline{start: start, end: end, name: name, file: file, line: line, callLine: callLine}
}

// SetUnavailable makes every lookup in the module fail with
// ErrSymbolFileUnavailable (a prebuilt without symbols).
func (t *SymbolTable) SetUnavailable(buildID []byte) { t.mod(buildID).unavailable = true }

func (m *symModule) find(addr uint64) int {
	i := sort.Search(len(m.funcs), func(i int) bool { return m.funcs[i].start > addr }) - 1
	if i < 0 || addr >= m.funcs[i].start+m.funcs[i].size {
		return -1
	}
	return i
}

// Resolve implements Symbolizer. Lines advance with the offset in the
// function, so that different call sites get different lines.
func (t *SymbolTable) Resolve(buildID []byte, addr uint64) ([]Frame, error) {
	m := t.mods[hex.EncodeToString(buildID)]
	if m == nil || m.unavailable {
		return nil, ErrSymbolFileUnavailable
	}
	i := m.find(addr)
	if i < 0 {
		return nil, ErrSymbolNotFound
	}
	f := &m.funcs[i]
	outer := Frame{Function: f.name}
	if f.line != 0 {
		outer.File, outer.Line = f.file, f.line+int64((addr-f.start)/32)
	}
	if in := f.inl; in != nil && addr >= in.start && addr < in.end {
		if f.line != 0 {
			outer.Line = in.callLine
		}
		return []Frame{{Function: in.name, File: in.file, Line: in.line + int64((addr-in.start)/16)}, outer}, nil
	}
	return []Frame{outer}, nil
}

// Layouts of the modules: the same module (same build ID) has the same
// layout in every process that loads it; only the load bias differs.

type modLayout struct {
	def       modDef
	buildID   []byte
	textOff   uint64 // p_offset of the executable segment
	textVaddr uint64 // p_vaddr of the executable segment
	textSize  uint64
	dataVaddr uint64 // start of the writable data after the text
	funcs     []layoutFunc
	byName    map[string]int
}

type layoutFunc struct {
	name, file string
	line       int64
	start      uint64 // module-relative
	size       uint64
}

// buildLayouts lays out every module of every program (plus the kernel)
// from the union of the functions the catalog places in it.
func buildLayouts(seed int64, arch string) map[string]*modLayout {
	type fn struct {
		name, file string
		line       int64
	}
	defs := map[string]modDef{}
	var order []string
	funcs := map[string][]fn{}
	seen := map[string]bool{}
	add := func(mod, name, file, line string) {
		k := mod + "\x00" + name
		if seen[k] {
			return
		}
		seen[k] = true
		l, _ := strconv.ParseInt(line, 10, 64)
		if l == 0 {
			file = ""
		}
		funcs[mod] = append(funcs[mod], fn{name, file, l})
	}
	for pi := range programs {
		p := &programs[pi]
		for _, m := range p.modules {
			if _, ok := defs[m.name]; !ok {
				defs[m.name] = m
				order = append(order, m.name)
			}
		}
		for _, line := range p.funcs {
			mod, _, name, file, l := p.parseFunc(line)
			add(mod, name, file, l)
		}
		for _, line := range tailFuncs {
			mod, _, name, file, l := p.parseFunc(line)
			add(mod, name, file, l)
		}
	}
	defs[kernelModule] = modDef{name: "", buildIDLen: 20}
	order = append(order, kernelModule)
	for _, line := range kernelFuncs {
		f := splitN(line, 3)
		add(kernelModule, f[0], f[1], f[2])
	}
	// The vDSO exports a few system calls; nothing allocates through it.
	for _, n := range []string{"_zx_channel_read", "_zx_channel_write", "_zx_port_wait", "_zx_object_wait_one", "_zx_vmo_create"} {
		add("libzircon.so", n, "", "0")
	}

	out := map[string]*modLayout{}
	for _, name := range order {
		r := newRNG(seed, hashString("layout:"+name))
		d := defs[name]
		l := &modLayout{def: d, byName: map[string]int{}}
		l.buildID = make([]byte, d.buildIDLen)
		for i := range l.buildID {
			l.buildID[i] = byte(r.u64())
		}
		// lld's layout: a read-only segment at offset 0 (headers, rodata),
		// then the executable one at the next offset, its p_vaddr one
		// max-page-size above its p_offset.
		maxPage := uint64(0x10000)
		if arch == "x64" || name == kernelModule {
			maxPage = 0x1000
		}
		l.textOff = alignUp(r.rangeU(0x800, 0x60000), 16)
		l.textVaddr = l.textOff + maxPage
		off := uint64(r.rangeU(0, 0x400)) &^ 15
		fs := funcs[name]
		// Some padding functions between the known ones keep the module
		// from looking like a list of hot functions only.
		for _, f := range fs {
			off += alignUp(r.rangeU(0x40, 0x3000), 16)
			size := alignUp(r.rangeU(0x60, 0xa00), 4)
			if r.percent(10) {
				size = alignUp(r.rangeU(0xa00, 0x4000), 4)
			}
			l.byName[f.name] = len(l.funcs)
			l.funcs = append(l.funcs, layoutFunc{name: f.name, file: f.file, line: f.line, start: l.textVaddr + off, size: size})
			off += size
		}
		l.textSize = alignUp(off+r.rangeU(0x100, 0x8000), 4)
		l.dataVaddr = alignUp(l.textVaddr+l.textSize, maxPage) + maxPage
		out[name] = l
	}
	return out
}

// symbolTable builds the fake symbol server for the given layouts.
func symbolTable(seed int64, layouts map[string]*modLayout) *SymbolTable {
	t := NewSymbolTable()
	var inl [][2]string
	for _, p := range programs {
		for _, s := range p.inlines {
			f := splitN(s, 2)
			inl = append(inl, [2]string{f[0], f[1]})
		}
	}
	names := make([]string, 0, len(layouts))
	for n := range layouts {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		l := layouts[n]
		if l.def.noSymbols {
			t.SetUnavailable(l.buildID)
			continue
		}
		r := newRNG(seed, hashString("symbols:"+n))
		for _, f := range l.funcs {
			t.AddFunction(l.buildID, f.name, f.file, f.line, f.start, f.size)
			if f.line != 0 && len(inl) > 0 && r.percent(35) && f.size >= 0x80 {
				a := f.start + alignUp(r.rangeU(8, f.size/2), 4)
				b := a + alignUp(r.rangeU(0x10, f.size/2), 4)
				if b > f.start+f.size {
					b = f.start + f.size
				}
				c := inl[r.intn(len(inl))]
				t.addInline(l.buildID, a, b, c[0], c[1], int64(r.rangeU(20, 900)), f.line+int64(r.rangeU(1, 40)))
			}
		}
	}
	return t
}

func alignUp(v, a uint64) uint64 { return (v + a - 1) &^ (a - 1) }

func hashString(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

func splitN(s string, n int) []string {
	out := make([]string, 0, n)
	for i := 0; i < n-1; i++ {
		j := indexByte(s, '|')
		if j < 0 {
			break
		}
		out = append(out, s[:j])
		s = s[j+1:]
	}
	return append(out, s)
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}
