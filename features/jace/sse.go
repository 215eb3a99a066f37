package jace

import (
	"bufio"
	"bytes"
	"io"
	"strconv"
	"strings"
	"time"
)

// sseEvent is one event of a Server-Sent Events stream as the HTML
// standard's event-stream interpretation dispatches it.
type sseEvent struct {
	Type  string        // the "event" field, "message" when none was given
	Data  string        // the "data" lines joined with "\n"
	ID    string        // the last event ID in force when it was dispatched
	Retry time.Duration // the last "retry" in force, 0 when none
}

// sseReader reads a text/event-stream the way a browser's EventSource
// does (HTML Living Standard, "Interpreting an event stream"): lines end
// with CRLF, LF or CR; a leading BOM is skipped; a line starting with ":" is
// a comment; "field: value" loses one space after the colon, and a line
// without a colon is a field with an empty value; "data" lines accumulate,
// "event" names the type, "id" (unless it holds a NUL) sets the last event
// ID, "retry" (ASCII digits only) the reconnection time, other fields are
// ignored; a blank line dispatches the event unless no data was given; an
// event the stream ends before dispatching is dropped. Lines have no length
// limit.
type sseReader struct {
	r         *bufio.Reader
	started   bool // the BOM check is done
	skipLF    bool // the previous line ended with CR: a following LF is part of it
	lastID    string
	retry     time.Duration
	data      strings.Builder
	hasData   bool
	eventType string
}

func newSSEReader(r io.Reader) *sseReader { return &sseReader{r: bufio.NewReaderSize(r, 64<<10)} }

// line reads one line without its end; io.EOF when the stream ended
// (a last line without an end is not a line: it is dropped with its event).
func (s *sseReader) line() (string, error) {
	var b bytes.Buffer
	for {
		c, err := s.r.ReadByte()
		if err != nil {
			return "", err
		}
		if s.skipLF {
			s.skipLF = false
			if c == '\n' {
				continue
			}
		}
		if !s.started {
			s.started = true
			if c == 0xEF { // a UTF-8 BOM: EF BB BF
				if rest, err := s.r.Peek(2); err == nil && rest[0] == 0xBB && rest[1] == 0xBF {
					_, _ = s.r.Discard(2)
					continue
				}
			}
		}
		switch c {
		case '\n':
			return b.String(), nil
		case '\r':
			s.skipLF = true
			return b.String(), nil
		}
		b.WriteByte(c)
	}
}

// next returns the next dispatched event, or the error that ended the
// stream (io.EOF for a clean end).
func (s *sseReader) next() (sseEvent, error) {
	for {
		l, err := s.line()
		if err != nil {
			return sseEvent{}, err
		}
		if l == "" {
			if !s.hasData {
				s.eventType = ""
				continue
			}
			ev := sseEvent{Type: s.eventType, Data: strings.TrimSuffix(s.data.String(), "\n"), ID: s.lastID, Retry: s.retry}
			if ev.Type == "" {
				ev.Type = "message"
			}
			s.data.Reset()
			s.hasData, s.eventType = false, ""
			return ev, nil
		}
		if strings.HasPrefix(l, ":") {
			continue // a comment
		}
		field, value, found := strings.Cut(l, ":")
		if found {
			value = strings.TrimPrefix(value, " ")
		}
		switch field {
		case "event":
			s.eventType = value
		case "data":
			s.data.WriteString(value)
			s.data.WriteByte('\n')
			s.hasData = true
		case "id":
			if !strings.ContainsRune(value, 0) {
				s.lastID = value
			}
		case "retry":
			if value != "" && strings.Trim(value, "0123456789") == "" {
				if ms, err := strconv.ParseInt(value, 10, 64); err == nil {
					s.retry = time.Duration(ms) * time.Millisecond
				}
			}
		}
	}
}
