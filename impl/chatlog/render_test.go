package chatlog

import "fmt"

// renderRequest renders an agent request as the seed writes one: the
// header line, then the code in a fence tagged lang.
func renderRequest(agent, page, at, lang, code string) string {
	return fmt.Sprintf("**%s** to %s at %s\n", agent, page, at) + fenced(lang, code)
}

// renderReply renders the reference's reply for an outcome.
func renderReply(page, agent, at string, ms int64, o Outcome, marks ...string) string {
	return Format{}.Reply(page, agent, at, ms, o, marks...)
}

// poll hands the instance its next job, which reaches the page at once.
func (h *harness) poll(id, token string) (*Task, error) {
	task, _, err := h.srv.Poll(id, token)
	if task != nil {
		h.srv.Received(task)
	}
	return task, err
}
