package realm

import (
	"fmt"
	"os"
	"strings"
	"time"

	"anchorage/impl/chatlog"
	"anchorage/sim/clock"

	"github.com/spf13/afero"
)

// Agent writes requests into logs the way a person or an LLM tool does.
type Agent struct {
	Name  string
	Fs    afero.Fs
	Clock clock.Clock
}

// AppendRaw appends text to the log at path in one write and stamps the
// file's mtime with the clock.
func (a *Agent) AppendRaw(path, text string) error {
	f, err := a.Fs.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("agent %s: open %s: %w", a.Name, path, err)
	}
	_, werr := f.Write([]byte(text))
	cerr := f.Close()
	if werr != nil {
		return fmt.Errorf("agent %s: append to %s: %w", a.Name, path, werr)
	}
	if cerr != nil {
		return fmt.Errorf("agent %s: close %s: %w", a.Name, path, cerr)
	}
	now := a.Clock.Now()
	return a.Fs.Chtimes(path, now, now)
}

// RequestText renders a request from this agent at the clock's time.
func (a *Agent) RequestText(page, lang, code string) string {
	return RenderRequest(a.Name, page, chatlog.Clock(a.Clock.Now()), lang, code)
}

// RenderRequest renders an agent request as the seed writes one
// (§chatlog-request-header): the header line, then the code in a fence of
// backticks tagged lang, longer than any run of backticks that starts a
// line of the code, so that no line of it closes the fence.
func RenderRequest(agent, page, at, lang, code string) string {
	longest := 0
	for _, line := range strings.Split(code, "\n") {
		t := strings.TrimLeft(line, " ")
		longest = max(longest, len(t)-len(strings.TrimLeft(t, "`")))
	}
	fence := strings.Repeat("`", max(3, longest+1))
	return fmt.Sprintf("**%s** to %s at %s\n%s%s\n%s\n%s\n", agent, page, at, fence, lang, code, fence)
}

// Request appends a complete JS request.
func (a *Agent) Request(path, page, code string) error {
	return a.AppendRaw(path, a.RequestText(page, "JS", code))
}

// Draft appends a request whose fence is not closed yet.
func (a *Agent) Draft(path, page, code string) error {
	return a.AppendRaw(path, fmt.Sprintf("**%s** to %s at %s\n```JS\n%s\n", a.Name, page, chatlog.Clock(a.Clock.Now()), code))
}

// Torn appends text in two writes: the first cut bytes now, the rest gap
// later on the clock (a write caught in flight). It returns the timer of
// the second write.
func (a *Agent) Torn(path, text string, cut int, gap time.Duration, onErr func(error)) (clock.Timer, error) {
	cut = min(max(cut, 0), len(text))
	if err := a.AppendRaw(path, text[:cut]); err != nil {
		return nil, err
	}
	rest := text[cut:]
	return a.Clock.AfterFunc(gap, func() {
		if err := a.AppendRaw(path, rest); err != nil && onErr != nil {
			onErr(err)
		}
	}), nil
}

// Rewrite replaces the log the way an editor's save-as does: the edited
// text goes to a temporary file that is renamed over the log.
func (a *Agent) Rewrite(path string, edit func(string) string) error {
	b, err := afero.ReadFile(a.Fs, path)
	if err != nil {
		return fmt.Errorf("agent %s: read %s: %w", a.Name, path, err)
	}
	tmp := path + ".swp"
	if err := afero.WriteFile(a.Fs, tmp, []byte(edit(string(b))), 0o644); err != nil {
		return fmt.Errorf("agent %s: write %s: %w", a.Name, tmp, err)
	}
	if err := a.Fs.Rename(tmp, path); err != nil {
		return fmt.Errorf("agent %s: rename %s: %w", a.Name, tmp, err)
	}
	now := a.Clock.Now()
	return a.Fs.Chtimes(path, now, now)
}
