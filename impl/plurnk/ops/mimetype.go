package ops

import (
	"bufio"
	"encoding/csv"
	"encoding/xml"
	"errors"
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
// asks a handler to query; every match is the service's own, over what
// process derived.
type MimetypeHandler func(content string) Derived

// Symbol is a name a content declares or uses, at a 1-based line.
type Symbol struct {
	Name string
	Kind string // "heading", "key", "element", "func", "type", "var", "const", "ref"
	Line int
}

// Derived is what process reports about a content: its line count, its
// deepJson and deepXml projections (nil when it has none; JSONError and
// XMLError then say why, when a parser said), the symbols it declares and
// the references it makes.
type Derived struct {
	Lines      int
	DeepJSON   *JSONProjection
	DeepXML    *XMLProjection
	JSONError  string
	XMLError   string
	Symbols    []Symbol
	References []Symbol
}

// Mimetypes maps a mimetype to its handler.
type Mimetypes struct {
	handlers map[string]MimetypeHandler
}

// NewMimetypes returns the handler registry with the built-in handlers:
// JSON (top-level keys are symbols), XML and HTML (elements with an id or
// name are symbols), CSV (a deepJson of its rows, processCSV), YAML in
// block style (a deepJson of its document, processYAML), markdown
// (headings are symbols) and Go source
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
	m.Register("text/csv", processCSV)
	m.Register("application/yaml", processYAML)
	m.Register("text/x-go", processGo)
	return m
}

// Register sets the handler of mimetype mt.
func (m *Mimetypes) Register(mt string, h MimetypeHandler) { m.handlers[mt] = h }

// Types lists the mimetypes that have a handler of their own, in no
// particular order.
func (m *Mimetypes) Types() []string {
	out := make([]string, 0, len(m.handlers))
	for mt := range m.handlers {
		out = append(out, mt)
	}
	return out
}

// Handler returns the handler process calls for mt, if any.
func (m *Mimetypes) Handler(mt string) (MimetypeHandler, bool) { return m.handler(mt) }

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
// over content (the line count alone when mt has none), completed by the
// projections every source gets when its handler derived none
// (complete). A nil registry has no handlers.
func (m *Mimetypes) Process(mt, content string) Derived {
	d := Derived{Lines: len(splitLines(content))}
	if h, ok := m.handler(mt); ok {
		d = h(content)
	}
	complete(&d, mt, content)
	return d
}

// complete gives d the projections its handler left out, so a structural
// dialect reads any source type: content that is exactly one JSON value
// gets a deepJson of itself. No handler derives a deepXml, so complete
// always does: the deepXml of text/html is its lenient HTML
// parse, of an XML type its XML parse, of anything with a deepJson the
// elements projected from it (projectJSON), of anything else its XML parse.
func complete(d *Derived, mt, content string) {
	if d.DeepJSON == nil && d.JSONError == "" {
		p, err := jsonProjection(content)
		if err != nil {
			d.JSONError = err.Error()
		}
		d.DeepJSON = p
	}
	var p *XMLProjection
	var err error
	switch {
	case mt == "text/html":
		p, err = parseXML(content, true)
	case isXMLType(mt):
		p, err = parseXML(content, false)
	case d.DeepJSON != nil:
		p = projectJSON(d.DeepJSON.Root)
	case isJSONType(mt):
		err = errors.New(d.JSONError)
	default:
		p, err = parseXML(content, false)
	}
	if err != nil {
		d.XMLError = err.Error()
	}
	d.DeepXML = p
}

// Derivation is the derived view of one channel of one entry.
type Derivation struct {
	Key     store.Key
	Channel string
	Derived
}

// derivedChannel is what process derived for a channel and from which
// content.
type derivedChannel struct {
	mimetype, content string
	Derived
}

// Derive is the per-turn pass that runs while the packet is assembled: it
// walks every entry of the session and processes each channel through its
// mimetype's handler, once per channel per pass. The result becomes the
// session's symbol index, which the @graph matcher resolves until the next
// pass, and the projections the jsonpath and xpath matchers read while the
// channel still holds the content the pass saw (derivedFor).
func (e *Engine) Derive(ss *store.Session) []Derivation {
	var out []Derivation
	idx := map[chanKey]derivedChannel{}
	for _, ent := range ss.Entries() {
		names := make([]string, 0, len(ent.Channels))
		for n := range ent.Channels {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			ch := ent.Channels[n]
			d := e.Mimetypes.Process(ch.Mimetype, ch.Content)
			out = append(out, Derivation{Key: ent.Key, Channel: n, Derived: d})
			idx[chanKey{ent.Key, n}] = derivedChannel{mimetype: ch.Mimetype, content: ch.Content, Derived: d}
		}
	}
	e.indexMu.Lock()
	if e.index == nil {
		e.index = map[int64]map[chanKey]derivedChannel{}
	}
	e.index[ss.ID] = idx
	delete(e.fresh, ss.ID)
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
	return d.Derived, ok
}

// derivedFor returns the derivation of a channel that now holds content of
// mimetype mt: the last pass's when the channel still holds what that pass
// saw, else process over the current content, called once per content and
// kept until the next pass.
func (e *Engine) derivedFor(session int64, k store.Key, channel, content, mt string) Derived {
	ck := chanKey{k, channel}
	e.indexMu.Lock()
	for _, m := range []map[chanKey]derivedChannel{e.index[session], e.fresh[session]} {
		if d, ok := m[ck]; ok && d.content == content && d.mimetype == mt {
			e.indexMu.Unlock()
			return d.Derived
		}
	}
	e.indexMu.Unlock()
	d := e.Mimetypes.Process(mt, content)
	e.indexMu.Lock()
	if e.fresh == nil {
		e.fresh = map[int64]map[chanKey]derivedChannel{}
	}
	if e.fresh[session] == nil {
		e.fresh[session] = map[chanKey]derivedChannel{}
	}
	e.fresh[session][ck] = derivedChannel{mimetype: mt, content: content, Derived: d}
	e.indexMu.Unlock()
	return d
}

func processJSON(content string) Derived {
	p, err := jsonProjection(content)
	if err != nil {
		return Derived{Lines: len(splitLines(content)), JSONError: err.Error()}
	}
	d := Derived{Lines: len(splitLines(content)), DeepJSON: p}
	if p.Root.Kind == '{' {
		for _, kid := range p.Root.Kids {
			d.Symbols = append(d.Symbols, Symbol{Name: kid.Key, Kind: "key", Line: kid.Span.From})
		}
	}
	return d
}

// processXML makes every element of XML or HTML content with an id or name
// attribute a symbol, at its start tag's line, reading leniently (HTML
// entities decoded, unclosed elements allowed); the deepXml projection is
// the one every source gets (complete): the XML parse of an XML type, the
// lenient HTML parse of text/html.
func processXML(content string) Derived {
	d := Derived{Lines: len(splitLines(content))}
	idx := newLineIndex(content)
	dec := xml.NewDecoder(strings.NewReader(content))
	dec.Strict = false
	dec.Entity = xml.HTMLEntity
	for {
		off := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return d
		}
		se, isStart := tok.(xml.StartElement)
		if !isStart {
			continue
		}
		for _, a := range se.Attr {
			if a.Name.Local == "id" || a.Name.Local == "name" {
				d.Symbols = append(d.Symbols, Symbol{Name: a.Value, Kind: "element", Line: idx.line(int(off))})
			}
		}
	}
}

// processCSV parses RFC 4180 CSV with encoding/csv: the first record is
// the header, and the deepJson is an array with one object per further
// record, its members named by the header's columns, every value a string.
// An item spans its record's source lines, a member its field's. Content
// that is not CSV with one column count throughout, or has no header, has
// no deepJson. The header's columns are the symbols.
func processCSV(content string) Derived {
	d := Derived{Lines: len(splitLines(content))}
	r := csv.NewReader(strings.NewReader(content))
	header, err := r.Read()
	if err != nil {
		d.JSONError = "CSV: " + err.Error()
		if err == io.EOF {
			d.JSONError = "CSV without a header row"
		}
		return d
	}
	root := &JSONNode{Kind: '[', Span: LineSpan{From: 1, To: max(d.Lines, 1)}}
	for i, name := range header {
		line, _ := r.FieldPos(i)
		d.Symbols = append(d.Symbols, Symbol{Name: name, Kind: "key", Line: line})
	}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			d.JSONError, d.Symbols = "CSV: "+err.Error(), nil
			return d
		}
		item := &JSONNode{Item: true, Kind: '{'}
		for i, field := range rec {
			line, _ := r.FieldPos(i)
			sp := LineSpan{From: line, To: line + strings.Count(field, "\n")}
			item.Kids = append(item.Kids, &JSONNode{Key: header[i], Kind: 's', Text: field, Span: sp})
		}
		item.Span = LineSpan{From: item.Kids[0].Span.From, To: item.Kids[len(item.Kids)-1].Span.To}
		root.Kids = append(root.Kids, item)
	}
	d.DeepJSON = NewJSONProjection(root)
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
