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
	// FenceSpan is where a fenced block opens and closes.
	FenceSpan = logparse.FenceSpan
	// Pos is where a parse starts.
	Pos = logparse.Pos
	// ParseReport is the JSON document printed by `replserve parse FILE`.
	ParseReport = logparse.ParseReport
	// ReportRequest is one request of a ParseReport.
	ReportRequest = logparse.ReportRequest
	// ReportReply is one reply of a ParseReport.
	ReportReply = logparse.ReportReply
)

// MaxLine is the longest line read as a header or a fence.
const MaxLine = logparse.MaxLine

// Parse reads the whole of data as a chat log starting at line 1.
func Parse(data []byte) Log { return logparse.Parse(data) }

// ParseAt reads data, which starts at base (outside any fence).
func ParseAt(data []byte, base Pos) Log { return logparse.ParseAt(data, base) }

// TailStart finds where a parse of a chunk of a log's tail can start.
func TailStart(chunk []byte, atStart bool) int { return logparse.TailStart(chunk, atStart) }

// ValidateText checks that data can be parsed as a chat log.
func ValidateText(data []byte) error { return logparse.ValidateText(data) }

// Report converts a parsed log to its report form.
func Report(lg Log, mtime time.Time) ParseReport { return logparse.Report(lg, mtime) }

// ParseDuration reads "17ms" or "2.5s" back into milliseconds.
func ParseDuration(s string) (int64, bool) { return logparse.ParseDuration(s) }

// Clock formats t as the per-second HH:MM:SS of headers (§chatlog-timestamp).
func Clock(t time.Time) string { return logparse.Clock(t) }
