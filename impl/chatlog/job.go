package chatlog

import (
	"fmt"
	"slices"
	"time"
)

// JobState is a job's place in its lifecycle (§chatlog-job-states).
type JobState string

// Job states. Orphaned is the state of a job whose request disappeared in a
// rewrite (§chatlog-rewrite-orphan); it ends the job like the other final
// states.
const (
	Requested  JobState = "requested"
	Dispatched JobState = "dispatched"
	Completed  JobState = "completed"
	Failed     JobState = "failed"
	TimedOut   JobState = "timeout"
	Orphaned   JobState = "orphaned"
)

// Final reports whether no further transition can leave s.
func (s JobState) Final() bool { return len(transitions(s)) == 0 }

// transitions lists where a job may go from a state; there is no way back.
func transitions(from JobState) []JobState {
	switch from {
	case Requested:
		return []JobState{Dispatched, TimedOut, Orphaned}
	case Dispatched:
		return []JobState{Completed, Failed, TimedOut, Orphaned}
	}
	return nil
}

// Job is one request of one instance on its way to a reply.
type Job struct {
	ID       string // "<instance>#<n>"
	Seq      int    // n, counted per server
	Instance string // the instance's file stem
	Agent    string
	Page     string // the page name the request used
	At       string // the request's HH:MM:SS (or the file's mtime)
	untimed  bool   // the request's header has no time (At is the mtime)
	Lang     string
	Code     string

	State       JobState
	History     []JobState // every state the job has been in, in order
	RequestedAt time.Time  // the server parsed the request (§chatlog-job-times)
	StartedAt   time.Time  // the page received the code
	FinishedAt  time.Time  // the page posted the result
	Late        bool       // the result arrived after the timeout
	Outcome     *Outcome
}

// Duration is FinishedAt − StartedAt (§chatlog-duration-definition), for a
// job that has finished.
func (j *Job) Duration() time.Duration { return j.FinishedAt.Sub(j.StartedAt) }

// requestAt is the time the request's header carries, "" when it has none.
func (j *Job) requestAt() string {
	if j.untimed {
		return ""
	}
	return j.At
}

// given reports whether the job was ever handed to its page.
func (j *Job) given() bool { return slices.Contains(j.History, Dispatched) }

// to moves the job to s. The server asks only for the transitions the
// lifecycle allows; any other is a bug of the server.
func (j *Job) to(s JobState) {
	if !slices.Contains(transitions(j.State), s) {
		panic(fmt.Sprintf("chatlog: job %s: no transition from %s to %s", j.ID, j.State, s))
	}
	j.State = s
	j.History = append(j.History, s)
}

// Task is what an adapter receives for a job (§chatlog-adapter-contract).
type Task struct {
	JobID    string `json:"jobId"`
	Instance string `json:"instance"`
	Agent    string `json:"agent"`
	Page     string `json:"page"`
	At       string `json:"at"`
	Lang     string `json:"lang"`
	Code     string `json:"code"`
	job      *Job   // the job itself, for Server.Received
}

// Adapter is the contract between the server and a realm
// (§chatlog-adapter-contract): it evaluates a task's code in its realm and
// reports the outcome with the runtime errors it captured meanwhile. How
// tasks travel (HTTP long-poll, in-process calls, a simulated network) is
// the transport's business; Language names the realm's fence tag
// (§chatlog-adapter-language).
type Adapter interface {
	Language() string
	Evaluate(t Task) Outcome
}
