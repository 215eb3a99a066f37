package logparse

import (
	"encoding/json"
	"time"
)

// ParseReport is the JSON document printed by `replserve parse FILE`.
type ParseReport struct {
	Requests []ReportRequest `json:"requests"`
	Replies  []ReportReply   `json:"replies"`
}

// ReportRequest is one request of a ParseReport.
type ReportRequest struct {
	Line   int    `json:"line"`
	Agent  string `json:"agent"`
	Page   string `json:"page"`
	At     string `json:"at"`
	Lang   string `json:"lang"`
	Code   string `json:"code"`
	Closed bool   `json:"closed"`
}

// ReportReply is one reply of a ParseReport.
type ReportReply struct {
	Line        int    `json:"line"`
	Page        string `json:"page"`
	Agent       string `json:"agent"`
	At          string `json:"at"`
	DurationMS  *int64 `json:"duration_ms"`
	Error       bool   `json:"error"`
	Late        bool   `json:"late"`
	RequestLine int    `json:"request_line"`
}

// Report converts a parsed log to its report form. A header without a time
// gets mtime's HH:MM:SS (§chatlog-timestamp); a zero mtime leaves it empty.
func Report(lg Log, mtime time.Time) ParseReport {
	fallback := ""
	if !mtime.IsZero() {
		fallback = Clock(mtime)
	}
	at := func(s string) string {
		if s == "" {
			return fallback
		}
		return s
	}
	rep := ParseReport{Requests: []ReportRequest{}, Replies: []ReportReply{}}
	for _, r := range lg.Requests {
		rep.Requests = append(rep.Requests, ReportRequest{Line: r.Line, Agent: r.Agent, Page: r.Page,
			At: at(r.At), Lang: r.Lang, Code: r.Code, Closed: r.Closed})
	}
	for _, rp := range lg.Replies {
		rr := ReportReply{Line: rp.Line, Page: rp.Page, Agent: rp.Agent, At: at(rp.At),
			Error: rp.Error, Late: rp.Late}
		if rp.HasDuration {
			d := rp.DurationMS
			rr.DurationMS = &d
		}
		if rp.Request >= 0 {
			rr.RequestLine = lg.Requests[rp.Request].Line
		}
		rep.Replies = append(rep.Replies, rr)
	}
	return rep
}

// JSON renders the report as one line of JSON.
func (r ParseReport) JSON() []byte {
	b, _ := json.Marshal(r) // plain structs of strings and numbers: cannot fail
	return b
}
