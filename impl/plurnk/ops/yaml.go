package ops

import (
	"fmt"
	"strconv"
	"strings"
)

// processYAML derives the deepJson of YAML content written in block style:
// mappings (`key: value`), sequences (`- item`), nested by indentation with
// spaces, plain, single- and double-quoted scalars, `#` comments and one
// leading `---`. Scalars follow the YAML 1.2 core schema: null, ~ and an
// empty value are null, true and false booleans, decimal, 0o and 0x
// integers and decimal floats numbers, anything else a string. What the
// handler does not read — flow collections, anchors, aliases, tags, block
// scalars, multi-line plain scalars, more than one document, tabs in
// indentation — leaves the content without a deepJson, with the reason.
// A member spans its key's line to its value's last line, a sequence item
// its dash's line to its value's last line. A top-level mapping's keys are
// the symbols.
func processYAML(content string) Derived {
	d := Derived{Lines: len(splitLines(content))}
	root, err := parseYAML(content)
	if err != nil {
		d.JSONError = "YAML: " + err.Error()
		return d
	}
	d.DeepJSON = NewJSONProjection(root)
	if root.Kind == '{' {
		for _, k := range root.Kids {
			d.Symbols = append(d.Symbols, Symbol{Name: k.Key, Kind: "key", Line: k.Span.From})
		}
	}
	return d
}

// yamlLine is one line of YAML that holds something.
type yamlLine struct {
	n      int    // 1-based source line
	indent int    // columns of leading spaces
	text   string // without its indentation and its comment
}

type yamlParser struct {
	lines []yamlLine
	i     int
}

func parseYAML(content string) (*JSONNode, error) {
	p := &yamlParser{}
	for i, raw := range splitLines(content) {
		t := strings.TrimRight(raw, " \t\r")
		body := strings.TrimLeft(t, " ")
		if strings.HasPrefix(body, "\t") {
			return nil, fmt.Errorf("line %d is indented with a tab", i+1)
		}
		indent := len(t) - len(body)
		body = stripYAMLComment(body)
		if body == "" {
			continue
		}
		if indent == 0 && (body == "---" || body == "..." || strings.HasPrefix(body, "--- ")) {
			if body == "---" && len(p.lines) == 0 {
				continue // the document's start
			}
			return nil, fmt.Errorf("line %d: only one document in block style is read", i+1)
		}
		p.lines = append(p.lines, yamlLine{n: i + 1, indent: indent, text: body})
	}
	if len(p.lines) == 0 {
		return nil, fmt.Errorf("the document is empty")
	}
	root, err := p.block(p.lines[0].indent)
	if err != nil {
		return nil, err
	}
	if p.i < len(p.lines) {
		return nil, fmt.Errorf("line %d is indented inconsistently", p.lines[p.i].n)
	}
	return root, nil
}

// stripYAMLComment cuts a `#` comment (one at the start or after a space,
// outside a quoted scalar) and the spaces before it.
func stripYAMLComment(s string) string {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case (c == '"' || c == '\'') && (i == 0 || s[i-1] == ' '):
			j := closingQuote(s, i)
			if j == -1 {
				return s
			}
			i = j
		case c == '#' && (i == 0 || s[i-1] == ' ' || s[i-1] == '\t'):
			return strings.TrimRight(s[:i], " \t")
		}
	}
	return s
}

// closingQuote returns the index of the quote that closes the one at i
// (a doubled ” inside single quotes, a backslash escape inside double
// quotes), -1 when there is none.
func closingQuote(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch {
		case q == '"' && s[j] == '\\':
			j++
		case s[j] == q && q == '\'' && j+1 < len(s) && s[j+1] == '\'':
			j++
		case s[j] == q:
			return j
		}
	}
	return -1
}

func isSeqItem(text string) bool { return text == "-" || strings.HasPrefix(text, "- ") }

// block parses the node whose first line is the current one, at indent.
func (p *yamlParser) block(indent int) (*JSONNode, error) {
	l := p.lines[p.i]
	if isSeqItem(l.text) {
		return p.sequence(indent)
	}
	if _, _, ok, err := splitYAMLKey(l); err != nil {
		return nil, err
	} else if ok {
		return p.mapping(indent)
	}
	p.i++
	if p.i < len(p.lines) && p.lines[p.i].indent >= indent {
		return nil, fmt.Errorf("line %d continues a plain scalar over lines, which is not read", p.lines[p.i].n)
	}
	return yamlScalar(l.text, l.n)
}

func (p *yamlParser) sequence(indent int) (*JSONNode, error) {
	node := &JSONNode{Kind: '['}
	for p.i < len(p.lines) && p.lines[p.i].indent == indent && isSeqItem(p.lines[p.i].text) {
		l := p.lines[p.i]
		rest := strings.TrimLeft(l.text[1:], " ")
		var item *JSONNode
		var err error
		if rest == "" {
			p.i++
			item, err = p.nested(indent, l.n)
		} else {
			col := indent + len(l.text) - len(rest)
			p.lines[p.i] = yamlLine{n: l.n, indent: col, text: rest}
			item, err = p.block(col)
		}
		if err != nil {
			return nil, err
		}
		item.Item, item.Value = true, item.Span
		item.Span = LineSpan{From: l.n, To: item.Span.To}
		node.Kids = append(node.Kids, item)
	}
	return p.closed(node, indent)
}

func (p *yamlParser) mapping(indent int) (*JSONNode, error) {
	node := &JSONNode{Kind: '{'}
	for p.i < len(p.lines) && p.lines[p.i].indent == indent && !isSeqItem(p.lines[p.i].text) {
		l := p.lines[p.i]
		key, rest, ok, err := splitYAMLKey(l)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("line %d is no `key: value` of the mapping above it", l.n)
		}
		p.i++
		var val *JSONNode
		if rest == "" {
			val, err = p.nested(indent, l.n)
		} else if val, err = yamlScalar(rest, l.n); err == nil && p.i < len(p.lines) && p.lines[p.i].indent > indent {
			err = fmt.Errorf("line %d continues a plain scalar over lines, which is not read", p.lines[p.i].n)
		}
		if err != nil {
			return nil, err
		}
		val.Key, val.Value = key, val.Span
		val.Span = LineSpan{From: l.n, To: val.Span.To}
		node.Kids = append(node.Kids, val)
	}
	return p.closed(node, indent)
}

// nested parses the value that follows a line ending in `key:` or `-`
// (line n, at indent): a block indented further, a sequence at the same
// indent after a key, or null.
func (p *yamlParser) nested(indent, n int) (*JSONNode, error) {
	if p.i < len(p.lines) {
		next := p.lines[p.i]
		if next.indent > indent || (next.indent == indent && isSeqItem(next.text) && !isSeqItem(p.lines[p.i-1].text)) {
			return p.block(next.indent)
		}
	}
	return &JSONNode{Kind: 'z', Span: LineSpan{From: n, To: n}}, nil
}

// closed ends the block node at indent: it spans its items' lines, and no
// line may be left over at a greater indent.
func (p *yamlParser) closed(node *JSONNode, indent int) (*JSONNode, error) {
	if err := p.deeper(indent); err != nil {
		return nil, err
	}
	node.Span = LineSpan{From: node.Kids[0].Span.From, To: node.Kids[len(node.Kids)-1].Span.To}
	return node, nil
}

// deeper reports a line left over at a greater indent than the block that
// just ended.
func (p *yamlParser) deeper(indent int) error {
	if p.i < len(p.lines) && p.lines[p.i].indent > indent {
		return fmt.Errorf("line %d is indented inconsistently", p.lines[p.i].n)
	}
	return nil
}

// splitYAMLKey splits `key: value` (or `key:`) into its key and the rest;
// ok is false when the line is no mapping entry.
func splitYAMLKey(l yamlLine) (key, rest string, ok bool, err error) {
	s := l.text
	if s == "?" || strings.HasPrefix(s, "? ") {
		return "", "", false, fmt.Errorf("line %d: a complex key (?) is not read", l.n)
	}
	end := -1
	if s[0] == '"' || s[0] == '\'' {
		j := closingQuote(s, 0)
		if j < 0 || !(j+1 == len(s)-1 && s[j+1] == ':' || strings.HasPrefix(s[j+1:], ": ")) {
			return "", "", false, nil
		}
		k, err := yamlScalar(s[:j+1], l.n)
		if err != nil {
			return "", "", false, err
		}
		key, end = k.Text, j+1
	} else {
		end = strings.Index(s, ": ")
		if end < 0 && strings.HasSuffix(s, ":") {
			end = len(s) - 1
		}
		if end <= 0 {
			return "", "", false, nil
		}
		key = s[:end]
	}
	return key, strings.TrimLeft(s[end+1:], " "), true, nil
}

// yamlScalar reads one scalar on line n.
func yamlScalar(s string, n int) (*JSONNode, error) {
	node := &JSONNode{Kind: 's', Text: s, Span: LineSpan{From: n, To: n}}
	switch {
	case s[0] == '"':
		if closingQuote(s, 0) != len(s)-1 {
			return nil, fmt.Errorf("line %d: a double-quoted scalar runs on after its closing quote or over lines", n)
		}
		v, err := strconv.Unquote(s)
		if err != nil {
			return nil, fmt.Errorf("line %d: %s: %v", n, s, err)
		}
		node.Text = v
	case s[0] == '\'':
		if closingQuote(s, 0) != len(s)-1 {
			return nil, fmt.Errorf("line %d: a single-quoted scalar runs on after its closing quote or over lines", n)
		}
		node.Text = strings.ReplaceAll(s[1:len(s)-1], "''", "'")
	case strings.ContainsRune("[{&*!|>%@`", rune(s[0])):
		return nil, fmt.Errorf("line %d: %q starts with %q, which this handler does not read (flow collections, anchors, aliases, tags and block scalars)", n, s, s[0])
	case s == "~" || s == "null" || s == "Null" || s == "NULL":
		node.Kind, node.Text = 'z', ""
	case s == "true" || s == "True" || s == "TRUE":
		node.Kind, node.Text = 'b', "true"
	case s == "false" || s == "False" || s == "FALSE":
		node.Kind, node.Text = 'b', "false"
	default:
		if v, ok := yamlNumber(s); ok {
			node.Kind, node.Text = 'n', v
		}
	}
	return node, nil
}

// yamlNumber returns the JSON text of a core-schema integer (decimal, 0o
// octal, 0x hexadecimal) or decimal float.
func yamlNumber(s string) (string, bool) {
	base := 0
	switch {
	case strings.HasPrefix(s, "0o"):
		base = 8
	case strings.HasPrefix(s, "0x"):
		base = 16
	}
	if base != 0 {
		digits := s[2:]
		if digits == "" || digits[0] == '-' || digits[0] == '+' {
			return "", false
		}
		v, err := strconv.ParseInt(digits, base, 64)
		if err != nil {
			return "", false
		}
		return strconv.FormatInt(v, 10), true
	}
	if isDecimal(s) {
		if v, err := strconv.ParseInt(s, 10, 64); err == nil {
			return strconv.FormatInt(v, 10), true
		}
	}
	if isYAMLFloat(s) {
		if v, err := strconv.ParseFloat(s, 64); err == nil {
			return strconv.FormatFloat(v, 'g', -1, 64), true
		}
	}
	return "", false
}

// isDecimal reports [-+]?[0-9]+.
func isDecimal(s string) bool {
	if s != "" && (s[0] == '-' || s[0] == '+') {
		s = s[1:]
	}
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// isYAMLFloat reports [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?.
func isYAMLFloat(s string) bool {
	if s != "" && (s[0] == '-' || s[0] == '+') {
		s = s[1:]
	}
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		if !isDecimal(s[i+1:]) {
			return false
		}
		s = s[:i]
	}
	ip, fp, dot := strings.Cut(s, ".")
	if strings.Trim(ip, "0123456789") != "" || strings.Trim(fp, "0123456789") != "" {
		return false
	}
	return ip != "" || (dot && fp != "")
}
