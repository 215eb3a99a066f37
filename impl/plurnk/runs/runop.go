package runs

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"anchorage/impl/plurnk/dsl"
	"anchorage/impl/plurnk/engine"
	"anchorage/impl/plurnk/ops"
	"anchorage/impl/plurnk/scheme"
	"anchorage/impl/plurnk/store"

	"github.com/gobwas/glob"
)

// runOp is the engine's RunOp hook: every op aimed at run://. A target
// with a path is run-scope scratch; one naming a run alone is a control
// op (EDIT spawns, SEND is irc, COPY forks, KILL terminates).
func (s *Service) runOp(a ops.Actor, st dsl.Statement) ops.Result {
	me := s.sessions[a.Session.ID].runs[a.Run.Name]
	t := *st.Target
	var res ops.Result
	if t.Path != "" && t.Path != "/" {
		res = s.scratch(me, st)
	} else {
		name := t.Host
		if name == "." {
			name = a.Run.Name
		}
		switch st.Op {
		case dsl.OpEdit:
			res = s.spawn(me, name, body(st))
		case dsl.OpSend:
			res = s.irc(me, name, body(st))
		case dsl.OpCopy:
			res = s.fork(me, name, body(st))
		case dsl.OpKill:
			res = s.kill(me, name)
		default:
			res = ops.Result{Status: 501, Reason: fmt.Sprintf("%s is not an op of run://", st.Op)}
		}
	}
	if res.Target == "" {
		res.Target = t.String()
	}
	row := &store.LogRow{Loop: a.Loop, Turn: a.Turn, Op: string(st.Op), Origin: string(a.Writer), Target: res.Target,
		Status: res.Status, Expanded: res.Status < 400, Content: res.Content, Mimetype: res.Mimetype, Reason: res.Reason, Tx: dsl.Format(st)}
	s.appendRow(a.Session, a.Run, row)
	res.Row = *row
	res.Rows = []store.LogRow{*row}
	return res
}

func body(st dsl.Statement) string {
	if st.Body == nil {
		return ""
	}
	return *st.Body
}

// appendRow writes row at the next sequence of its loop and turn in r.
func (s *Service) appendRow(ss *store.Session, r *store.Run, row *store.LogRow) {
	row.Seq = 1
	for _, p := range r.Log {
		if p.Loop == row.Loop && p.Turn == row.Turn && p.Seq >= row.Seq {
			row.Seq = p.Seq + 1
		}
	}
	_ = s.cfg.Store.Update(ss, func(tx *store.Tx) error { tx.AppendLog(r, row); return nil })
}

// capped reports whether one more active run would pass the session's cap
// (§run-scheme-cap).
func (s *Service) capped(sess *Session) bool {
	return s.cfg.MaxActive > 0 && sess.active()+1 > s.cfg.MaxActive
}

// spawn creates the sister name with an empty log and queues its first
// loop with prompt (§run-scheme-spawn).
func (s *Service) spawn(me *Run, name, prompt string) ops.Result {
	if name == me.store.Name {
		return ops.Result{Status: 400, Reason: "a run cannot spawn itself"}
	}
	if err := ValidName(name); err != nil {
		return ops.Result{Status: 400, Reason: err.Error()}
	}
	if _, taken := me.sess.runs[name]; taken {
		return ops.Result{Status: 409, Reason: fmt.Sprintf("run://%s already exists", name)}
	}
	if s.capped(me.sess) {
		return ops.Result{Status: 508, Reason: fmt.Sprintf("%s=%d active runs reached", EnvMaxActive, s.cfg.MaxActive)}
	}
	sr, err := s.cfg.Store.AddRun(me.sess.store, name)
	if err != nil {
		return ops.Result{Status: 500, Reason: err.Error()}
	}
	child := me.sess.add(sr, me, OriginModel)
	s.eng.AdoptChild(me.store, sr)
	s.enqueue(child, work{prompt: prompt})
	return ops.Result{Status: 201, Target: "run://" + name}
}

// ValidName refuses what cannot name a run: the empty name, ".", the
// reserved plurnk run, and a name holding a path or glob character.
func ValidName(name string) error {
	if name == "" || name == "." || name == store.PlurnkRun || strings.ContainsAny(name, "/#?* ") {
		return fmt.Errorf("%q is not a run name", name)
	}
	return nil
}

// irc hands msg to the existing run name (§run-scheme-irc). It is never
// capped.
func (s *Service) irc(me *Run, name, msg string) ops.Result {
	r, ok := me.sess.runs[name]
	if !ok || name == store.PlurnkRun {
		return ops.Result{Status: 404, Reason: fmt.Sprintf("no run://%s in the session", name)}
	}
	s.inject(r, injectRow(scheme.WriterPlurnk, "run://"+me.store.Name, msg))
	return ops.Result{Status: 200, Target: "run://" + name}
}

// kill terminates the run name (§run-scheme-terminate).
func (s *Service) kill(me *Run, name string) ops.Result {
	r, ok := me.sess.runs[name]
	if !ok || name == store.PlurnkRun {
		return ops.Result{Status: 404, Reason: fmt.Sprintf("no run://%s in the session", name)}
	}
	s.terminate(r, "killed by run://"+me.store.Name)
	return ops.Result{Status: 200, Target: "run://" + name}
}

// fork branches src into a new sister named <src>-<n> (the lowest n from 2
// not taken): a deep copy of its loops and log, its scratch re-owned, the
// world shared; the branch goes on with prompt (§run-scheme-fork,
// §run-scheme-fork-scratch).
func (s *Service) fork(me *Run, src, prompt string) ops.Result {
	from, ok := me.sess.runs[src]
	if !ok || src == store.PlurnkRun {
		return ops.Result{Status: 404, Reason: fmt.Sprintf("no run://%s in the session", src)}
	}
	if s.capped(me.sess) {
		return ops.Result{Status: 508, Reason: fmt.Sprintf("%s=%d active runs reached", EnvMaxActive, s.cfg.MaxActive)}
	}
	name := ""
	for n := 2; ; n++ {
		name = src + "-" + strconv.Itoa(n)
		if _, taken := me.sess.runs[name]; !taken {
			break
		}
	}
	ss := me.sess.store
	// name is free in ss too: sess.runs holds every run of ss (each run
	// the store adds is added there under s.mu, and Adopt adds them all).
	sr, _ := s.cfg.Store.AddRun(ss, name)
	for _, l := range from.store.Loops {
		nl := s.cfg.Store.BeginLoop(sr)
		for len(nl.Turns) < len(l.Turns) {
			s.cfg.Store.NextTurn(nl)
		}
		nl.Status = l.Status
		if !engine.Terminal(l.Status) {
			nl.Status = engine.StatusCancelled
		}
	}
	err := s.cfg.Store.Update(ss, func(tx *store.Tx) error {
		for _, row := range from.store.Log {
			c := *row
			tx.AppendLog(sr, &c)
		}
		for _, e := range ss.Entries() {
			if e.Key.Scope != store.ScopeRun || e.Key.Owner != src {
				continue
			}
			e.Key.Owner = name
			if err := tx.Put(e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return ops.Result{Status: 500, Reason: err.Error()}
	}
	// The source is the branch's parent (§machine-processes-fork-copies-the-log).
	branch := me.sess.add(sr, from, from.origin)
	s.eng.AdoptChild(from.store, sr)
	s.enqueue(branch, work{prompt: prompt})
	return ops.Result{Status: 201, Target: "run://" + name, Content: "run://" + name}
}

// ScratchKey is the store key of run owner's scratch entry at path p
// (run-scope storage, §run-scheme-scratch).
func ScratchKey(owner, p string) store.Key {
	return store.Key{Scope: store.ScopeRun, Owner: owner, Scheme: "run", Path: p}
}

// scratch runs an op on run-scope storage run://<owner>/<path>, run:///
// being the acting run's own (§run-scheme-scratch). Only the owner writes;
// READ and FIND are open to every run.
func (s *Service) scratch(me *Run, st dsl.Statement) ops.Result {
	t := *st.Target
	owner := t.Host
	if owner == "" || owner == "." {
		owner = me.store.Name
	}
	target := "run://" + owner + t.Path
	ss := me.sess.store
	switch st.Op {
	case dsl.OpEdit:
		if owner != me.store.Name {
			return ops.Result{Status: 403, Target: target, Reason: fmt.Sprintf("run://%s may not write the scratch of run://%s", me.store.Name, owner)}
		}
		k := ScratchKey(owner, t.Path)
		var res ops.Result
		err := s.cfg.Store.Update(ss, func(tx *store.Tx) error {
			prev := tx.Get(k)
			content := body(st)
			mt := scheme.MimetypeOf(t.Path)
			res = ops.Result{Status: 201, Target: target}
			if prev != nil {
				res.Status = 200
				if prev.Channels["body"].Content == content {
					res.Status = 304
					res.EntryID = prev.ID
					return nil
				}
			}
			e := &store.Entry{Key: k, Channels: map[string]store.Channel{"body": {Content: content, Mimetype: mt, Tokens: s.eng.Provider.CountTokens(content)}}}
			if prev != nil {
				e.Tags = prev.Tags
			}
			if err := tx.Put(e); err != nil {
				return err
			}
			res.EntryID = e.ID
			return nil
		})
		if err != nil {
			return ops.Result{Status: scheme.StatusOf(err), Target: target, Reason: err.Error()}
		}
		return res
	case dsl.OpRead:
		e := ss.Entry(ScratchKey(owner, t.Path))
		if e == nil {
			return ops.Result{Status: 404, Target: target, Reason: "no such scratch entry"}
		}
		ch := e.Channels["body"]
		return ops.Result{Status: 200, Target: target, EntryID: e.ID, Content: numbered(ch.Content), Mimetype: ch.Mimetype}
	case dsl.OpFind:
		list, err := s.find(ss, owner, t.Path)
		if err != nil {
			return ops.Result{Status: 400, Target: target, Reason: err.Error()}
		}
		if len(list) == 0 {
			return ops.Result{Status: 204, Target: target}
		}
		return ops.Result{Status: 200, Target: target, Content: strings.Join(list, "\n") + "\n", Mimetype: "text/plain"}
	}
	return ops.Result{Status: 501, Target: target, Reason: fmt.Sprintf("%s is not an op of run-scope scratch", st.Op)}
}

// find lists the addresses of owner's scratch entries whose path matches
// pattern, in path order.
func (s *Service) find(ss *store.Session, owner, pattern string) ([]string, error) {
	g, err := glob.Compile(pattern, '/')
	if err != nil {
		return nil, fmt.Errorf("find run://%s%s: %w", owner, pattern, err)
	}
	var out []string
	for _, e := range ss.Entries() {
		if e.Key.Scope == store.ScopeRun && e.Key.Owner == owner && g.Match(e.Key.Path) {
			out = append(out, "run://"+owner+e.Key.Path)
		}
	}
	sort.Strings(out)
	return out, nil
}

// numbered renders content as `N:\t` lines.
func numbered(content string) string {
	if content == "" {
		return ""
	}
	var b strings.Builder
	for i, l := range strings.Split(strings.TrimSuffix(content, "\n"), "\n") {
		fmt.Fprintf(&b, "%d:\t%s\n", i+1, l)
	}
	return b.String()
}
