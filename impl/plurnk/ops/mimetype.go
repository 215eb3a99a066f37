package ops

import (
	"bufio"
	"encoding/json"
	"encoding/xml"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"sort"
	"strings"

	"anchorage/impl/plurnk/store"
)

// MimetypeHandler is a mimetype's one entry point, process
// (§mimetype-methods-process-entry-point): it derives, from one channel's
// content, everything the service needs of that mimetype. The service never
// asks a handler to query; every match is the matcher's own.
type MimetypeHandler func(content string) Derived

// Symbol is a name a content declares or uses, at a 1-based line.
type Symbol struct {
	Name string
	Kind string // "heading", "key", "element", "func", "type", "var", "const", "ref"
	Line int
}

// Derived is what process reports about a content: its line count, its
// JSON and XML projections when it has them (the text of the projection;
// "" when none), the symbols it declares and the references it makes.
type Derived struct {
	Lines      int
	DeepJSON   string
	DeepXML    string
	Symbols    []Symbol
	References []Symbol
}

// Mimetypes maps a mimetype to its handler.
type Mimetypes struct {
	handlers map[string]MimetypeHandler
}

// NewMimetypes returns the handler registry with the built-in handlers:
// JSON (top-level keys are symbols), XML and HTML (elements with an id or
// name are symbols), markdown (headings are symbols) and Go source
// (top-level declarations are symbols, identifiers used are references,
// parsed with go/parser). A +json or +xml type falls back to the JSON or
// XML handler; any other mimetype derives only its line count.
func NewMimetypes() *Mimetypes {
	m := &Mimetypes{handlers: map[string]MimetypeHandler{}}
	m.Register("application/json", processJSON)
	m.Register("application/xml", processXML)
	m.Register("text/xml", processXML)
	m.Register("text/html", processXML)
	m.Register("text/markdown", processMarkdown)
	m.Register("text/x-go", processGo)
	return m
}

// Register sets the handler of mimetype mt.
func (m *Mimetypes) Register(mt string, h MimetypeHandler) { m.handlers[mt] = h }

// handler returns the handler of mt: its own, else its structured
// suffix's (+json, +xml).
func (m *Mimetypes) handler(mt string) (MimetypeHandler, bool) {
	if m == nil {
		return nil, false
	}
	if h, ok := m.handlers[mt]; ok {
		return h, true
	}
	switch {
	case strings.HasSuffix(mt, "+json"):
		h, ok := m.handlers["application/json"]
		return h, ok
	case strings.HasSuffix(mt, "+xml"):
		h, ok := m.handlers["application/xml"]
		return h, ok
	}
	return nil, false
}

// Process is the service's one call into the registry: the handler of mt
// over content, or the line count alone when mt has none.
func (m *Mimetypes) Process(mt, content string) Derived {
	if h, ok := m.handler(mt); ok {
		return h(content)
	}
	return Derived{Lines: len(splitLines(content))}
}

// Derivation is the derived view of one channel of one entry.
type Derivation struct {
	Key     store.Key
	Channel string
	Derived
}

// Derive is the per-turn pass that runs while the packet is assembled: it
// walks every entry of the session and processes each channel through its
// mimetype's handler. It is the only place mimetype handlers run; ops that
// write content never call them. The result also becomes the session's
// symbol index, which the @graph matcher resolves until the next pass.
func (e *Engine) Derive(ss *store.Session) []Derivation {
	var out []Derivation
	for _, ent := range ss.Entries() {
		names := make([]string, 0, len(ent.Channels))
		for n := range ent.Channels {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			ch := ent.Channels[n]
			d := Derived{Lines: len(splitLines(ch.Content))}
			if e.Mimetypes != nil {
				d = e.Mimetypes.Process(ch.Mimetype, ch.Content)
			}
			out = append(out, Derivation{Key: ent.Key, Channel: n, Derived: d})
		}
	}
	e.indexMu.Lock()
	if e.index == nil {
		e.index = map[int64]map[chanKey]Derived{}
	}
	idx := map[chanKey]Derived{}
	for _, d := range out {
		idx[chanKey{d.Key, d.Channel}] = d.Derived
	}
	e.index[ss.ID] = idx
	e.indexMu.Unlock()
	return out
}

// chanKey names one channel of one entry.
type chanKey struct {
	key     store.Key
	channel string
}

// symbolsOf returns what the last derivation pass derived for a channel.
func (e *Engine) symbolsOf(session int64, k store.Key, channel string) (Derived, bool) {
	e.indexMu.Lock()
	defer e.indexMu.Unlock()
	d, ok := e.index[session][chanKey{k, channel}]
	return d, ok
}

func processJSON(content string) Derived {
	d := Derived{Lines: len(splitLines(content))}
	if !json.Valid([]byte(content)) {
		return d
	}
	d.DeepJSON = content
	root, err := parseJSON(content)
	if err != nil || root.kind != '{' {
		return d
	}
	for _, kid := range root.kids {
		d.Symbols = append(d.Symbols, Symbol{Name: kid.key, Kind: "key", Line: lineAt(content, kid.from)})
	}
	return d
}

func processXML(content string) Derived {
	d := Derived{Lines: len(splitLines(content))}
	dec := xml.NewDecoder(strings.NewReader(content))
	dec.Strict = false
	dec.AutoClose = xml.HTMLAutoClose
	dec.Entity = xml.HTMLEntity
	ok := false
	for {
		off := dec.InputOffset()
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return d
		}
		se, isStart := tok.(xml.StartElement)
		if !isStart {
			continue
		}
		ok = true
		for _, a := range se.Attr {
			if a.Name.Local == "id" || a.Name.Local == "name" {
				d.Symbols = append(d.Symbols, Symbol{Name: a.Value, Kind: "element", Line: lineAt(content, int(off))})
			}
		}
	}
	if ok {
		d.DeepXML = content
	}
	return d
}

// processMarkdown makes each ATX heading (`#` to `######`) a symbol named
// by its text.
func processMarkdown(content string) Derived {
	d := Derived{Lines: len(splitLines(content))}
	sc := bufio.NewScanner(strings.NewReader(content))
	sc.Buffer(make([]byte, 0, 64*1024), len(content)+1)
	fence := false
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fence = !fence
			continue
		}
		if fence {
			continue
		}
		level := len(line) - len(strings.TrimLeft(line, "#"))
		if level < 1 || level > 6 || (len(line) > level && line[level] != ' ') {
			continue
		}
		name := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(line[level:]), "#"))
		if name != "" {
			d.Symbols = append(d.Symbols, Symbol{Name: name, Kind: "heading", Line: n})
		}
	}
	return d
}

// processGo parses Go source with the standard library: top-level
// functions, methods, types, variables and constants are symbols; every
// identifier used inside them that is not itself being declared is a
// reference.
func processGo(content string) Derived {
	d := Derived{Lines: len(splitLines(content))}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "src.go", content, parser.SkipObjectResolution)
	if err != nil {
		return d
	}
	declared := map[*ast.Ident]bool{}
	add := func(id *ast.Ident, kind string) {
		declared[id] = true
		d.Symbols = append(d.Symbols, Symbol{Name: id.Name, Kind: kind, Line: fset.Position(id.Pos()).Line})
	}
	for _, decl := range f.Decls {
		switch dd := decl.(type) {
		case *ast.FuncDecl:
			add(dd.Name, "func")
		case *ast.GenDecl:
			for _, spec := range dd.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					add(s.Name, "type")
				case *ast.ValueSpec:
					kind := "var"
					if dd.Tok == token.CONST {
						kind = "const"
					}
					for _, n := range s.Names {
						add(n, kind)
					}
				}
			}
		}
	}
	for _, decl := range f.Decls {
		ast.Inspect(decl, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if ok && !declared[id] && id.Name != "_" {
				d.References = append(d.References, Symbol{Name: id.Name, Kind: "ref", Line: fset.Position(id.Pos()).Line})
			}
			return true
		})
	}
	return d
}

// lineAt returns the 1-based line of byte offset off in s.
func lineAt(s string, off int) int {
	if off > len(s) {
		off = len(s)
	}
	for off < len(s) && (s[off] == ' ' || s[off] == '\t' || s[off] == '\n' || s[off] == '\r') {
		off++
	}
	if off > len(s) {
		off = len(s)
	}
	return strings.Count(s[:off], "\n") + 1
}
