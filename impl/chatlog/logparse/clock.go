package logparse

import (
	"strconv"
	"strings"
	"time"
)

// Placeholder is the body of the executing placeholder reply
// (§chatlog-executing-placeholder).
const Placeholder = "executing ..."

// ParseDuration reads "17ms" or "2.5s" back into milliseconds.
func ParseDuration(s string) (int64, bool) {
	if rest, ok := strings.CutSuffix(s, "ms"); ok {
		n, err := strconv.ParseInt(rest, 10, 64)
		if err != nil || n < 0 || !allDigits(rest) {
			return 0, false
		}
		return n, true
	}
	rest, ok := strings.CutSuffix(s, "s")
	if !ok || rest == "" {
		return 0, false
	}
	whole, frac, hasFrac := strings.Cut(rest, ".")
	if !allDigits(whole) || whole == "" || len(whole) > 12 || (hasFrac && (frac == "" || !allDigits(frac))) {
		return 0, false
	}
	w, _ := strconv.ParseInt(whole, 10, 64)
	ms := w * 1000
	if hasFrac {
		f := (frac + "000")[:3]
		n, _ := strconv.ParseInt(f, 10, 64)
		ms += n
	}
	return ms, true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Clock formats t as the per-second HH:MM:SS of headers (§chatlog-timestamp).
func Clock(t time.Time) string { return t.Format("15:04:05") }

// clockInRange reports whether s, a clock of the shape HH:MM:SS with six
// digits (isClockTail has checked the shape), names a time of day.
func clockInRange(s string) bool {
	return s[0:2] <= "23" && s[3:5] <= "59" && s[6:8] <= "59"
}
