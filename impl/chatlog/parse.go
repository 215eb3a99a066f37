package chatlog

import (
	"time"

	"anchorage/impl/chatlog/logparse"
)

// The chat-log parser lives in anchorage/impl/chatlog/logparse (so that its
// fuzz targets link only the parser); these are its names here.
type (
	// Request is an agent request found in a log (§chatlog-request-header).
	Request = logparse.Request
	// Reply is a page reply found in a log (§chatlog-reply-header).
	Reply = logparse.Reply
	// Log is the result of parsing a chat log or a part of one.
	Log = logparse.Log
	// ParseReport is the JSON document printed by `replserve parse FILE`.
	ParseReport = logparse.ParseReport
)

// Parse reads the whole of data as a chat log.
func Parse(data []byte) Log { return logparse.Parse(data) }

// ParseAt reads data, which starts at offset base of a file (outside any
// fence).
func ParseAt(data []byte, base int64) Log { return logparse.ParseAt(data, base) }

// TailStart finds where a parse of a chunk of a log's tail can start.
func TailStart(chunk []byte, atStart bool) int { return logparse.TailStart(chunk, atStart) }

// ValidateText checks that data can be parsed as a chat log.
func ValidateText(data []byte) error { return logparse.ValidateText(data) }

// Report converts a parsed log to its report form.
func Report(lg Log, mtime time.Time) ParseReport { return logparse.Report(lg, mtime) }

// Clock formats t as the per-second HH:MM:SS of headers (§chatlog-timestamp).
func Clock(t time.Time) string { return logparse.Clock(t) }
