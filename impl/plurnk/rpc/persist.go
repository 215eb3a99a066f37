package rpc

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"

	"anchorage/impl/plurnk/membership"
	"anchorage/impl/plurnk/runs"

	"github.com/spf13/afero"
)

// DefaultStateDir is where a daemon keeps the sessions of the workspace
// root when no state directory is given: under home, in .plurnk/state, one
// directory per workspace root (named by a hash of the root's absolute
// path). A session is durable by default: it persists across runs and
// process restarts.
func DefaultStateDir(home, root string) string {
	sum := sha256.Sum256([]byte(root))
	return path.Join(home, ".plurnk", "state", hex.EncodeToString(sum[:8]))
}

// StateFile is the name of the daemon's saved state inside its state
// directory; the state is written to StateFile+".tmp" first, synced, and
// renamed over it, so StateFile always holds one whole save.
const StateFile = "state.json"

// ErrCrashed answers every call once a save of the state has failed: the
// daemon stops acknowledging anything, as if it had died there, and only a
// restart (from the last whole save) serves again.
var ErrCrashed = errors.New("the daemon could not save its state and has stopped")

// saved is the daemon's state on disk: the store and what the runs
// service and the orchestrator keep beside it.
type saved struct {
	Version  int                `json:"version"`
	Store    json.RawMessage    `json:"store"`
	Runs     []runs.SessionMeta `json:"runs"`
	Sessions []savedSession     `json:"sessions"`
	// RowTokens are the token counts the engine stored for rows when
	// they were written, by row id.
	RowTokens map[int64]int `json:"rowTokens,omitempty"`
}

type savedSession struct {
	ID          int64   `json:"id"`
	Name        string  `json:"name"`
	ProjectRoot *string `json:"projectRoot"`
	// Overlay is the session's membership overlay (session.constrain's
	// rules and the picks of files the session created) and GitOff its
	// settings.git false, when the daemon keeps a membership.
	Overlay []savedRule `json:"overlay,omitempty"`
	GitOff  bool        `json:"gitOff,omitempty"`
	// ModelRun names the session's model run when it is not ModelRun;
	// ModelRunID is that run once allocated (0: not yet).
	ModelRun   string `json:"modelRun,omitempty"`
	ModelRunID int64  `json:"modelRunId,omitempty"`
}

type savedRule struct {
	Effect  string `json:"effect"`
	Pattern string `json:"pattern"`
}

// durable is the persistence of an Orchestrator whose config names a
// state directory.
type durable struct {
	fs      afero.Fs
	dir     string
	last    []byte // the state last saved whole
	crashed error
}

// load restores the state saved in o's state directory, if any (the
// service is empty and nothing runs yet).
func (o *Orchestrator) load() error {
	d := o.durable
	b, err := afero.ReadFile(d.fs, path.Join(d.dir, StateFile))
	if errors.Is(err, fs.ErrNotExist) { // os.ErrNotExist is the same error
		return nil
	}
	if err != nil {
		return fmt.Errorf("rpc: load state: %s cannot be read: %w", path.Join(d.dir, StateFile), err)
	}
	var sv saved
	if err := json.Unmarshal(b, &sv); err != nil {
		return fmt.Errorf("rpc: load state %s: %w", path.Join(d.dir, StateFile), err)
	}
	if sv.Version != 1 {
		return fmt.Errorf("rpc: load state: version %d, want 1", sv.Version)
	}
	o.eng.RestoreRowTokens(sv.RowTokens)
	if err := o.st.Decode(sv.Store); err != nil {
		return fmt.Errorf("rpc: load state: %w", err)
	}
	for _, m := range sv.Runs {
		if err := o.svc.Adopt(m); err != nil {
			return fmt.Errorf("rpc: load state: %w", err)
		}
	}
	var err2 error
	o.svc.View(func() {
		for _, ps := range sv.Sessions {
			ss, serr := o.st.Session(ps.ID)
			if serr != nil {
				err2 = serr
				return
			}
			modelRun := ps.ModelRun
			if modelRun == "" {
				modelRun = ModelRun
			}
			s := &orchSession{ss: ss, name: ps.Name, root: ps.ProjectRoot, modelName: modelRun}
			if ps.ModelRunID != 0 {
				// Allocated before the stop: it must be there.
				model := runByID(ss, ps.ModelRunID)
				if model == nil || model.Name != modelRun {
					err2 = fmt.Errorf("session %d: its model run %q (id %d) is not among its runs", ps.ID, modelRun, ps.ModelRunID)
					return
				}
				s.model = model
			}
			// Announced before the stop, or never to be.
			o.markSent(s)
			o.sessions[ps.ID] = s
			if o.members != nil {
				ov := o.members.Sessions.Overlay(ps.ID)
				ov.SetGit(!ps.GitOff)
				for _, r := range ps.Overlay {
					if cerr := ov.Add(membership.Constraint{Effect: membership.Effect(r.Effect), Pattern: r.Pattern}); cerr != nil {
						err2 = fmt.Errorf("session %d: %w", ps.ID, cerr)
						return
					}
				}
			}
		}
		err2 = o.saveLocked()
	})
	if err2 != nil {
		return fmt.Errorf("rpc: load state: %w", err2)
	}
	return nil
}

// Commit saves the state before an answer goes out, so nothing is
// acknowledged that a restart would lose. Without a state directory it
// does nothing; after a failed save it answers ErrCrashed.
func (o *Orchestrator) Commit() error {
	if o.durable == nil {
		return nil
	}
	var err error
	o.svc.View(func() { err = o.saveLocked() })
	return err
}

// saveLocked writes the state if it changed since the last save (the
// service lock is held): to a temporary file, synced, then renamed over
// the state file. A failure stops the daemon acknowledging anything.
func (o *Orchestrator) saveLocked() error {
	d := o.durable
	if d == nil {
		return nil
	}
	if d.crashed != nil {
		return d.crashed
	}
	b, err := o.encodeLocked()
	if err == nil && bytes.Equal(b, d.last) {
		return nil
	}
	if err == nil {
		err = writeAtomic(d.fs, d.dir, b)
	}
	if err != nil {
		d.crashed = fmt.Errorf("%w: %v", ErrCrashed, err)
		return d.crashed
	}
	d.last = b
	return nil
}

func (o *Orchestrator) encodeLocked() ([]byte, error) {
	// Neither encoding can fail on the plain records the store and the
	// service keep; the store's error joins the state's.
	st, stErr := o.st.Encode()
	sv := saved{Version: 1, Store: st, Runs: o.svc.MetaLocked(), RowTokens: o.eng.AllRowTokens()}
	ids := make([]int64, 0, len(o.sessions))
	for id := range o.sessions {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		s := o.sessions[id]
		ps := savedSession{ID: id, Name: s.name, ProjectRoot: s.root}
		if s.modelName != ModelRun {
			ps.ModelRun = s.modelName
		}
		ps.ModelRunID = s.modelRunID()
		if o.members != nil {
			ov := o.members.Sessions.Overlay(id)
			ps.GitOff = !ov.Git()
			for _, c := range ov.Constraints() {
				ps.Overlay = append(ps.Overlay, savedRule{Effect: string(c.Effect), Pattern: c.Pattern})
			}
		}
		sv.Sessions = append(sv.Sessions, ps)
	}
	b, err := json.Marshal(sv)
	if err := errors.Join(stErr, err); err != nil {
		return nil, fmt.Errorf("encode state: %w", err)
	}
	return b, nil
}

// writeAtomic writes b as dir/StateFile through dir/StateFile.tmp: the
// bytes are written and synced before the rename, so a crash leaves either
// the previous state file or the new one, never a part of one.
func writeAtomic(fsys afero.Fs, dir string, b []byte) error {
	if err := fsys.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("save state: %w", err)
	}
	tmp := path.Join(dir, StateFile+".tmp")
	f, err := fsys.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("save state: %w", err)
	}
	if _, err := f.Write(b); err != nil {
		_ = f.Close()
		return fmt.Errorf("save state: %w", err)
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return fmt.Errorf("save state: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("save state: %w", err)
	}
	if err := fsys.Rename(tmp, path.Join(dir, StateFile)); err != nil {
		return fmt.Errorf("save state: %w", err)
	}
	// The rename itself is made durable by syncing the directory, where
	// the filesystem allows it.
	if d, err := fsys.Open(dir); err == nil {
		defer d.Close()
		_ = d.Sync()
	}
	return nil
}

// durableNotifier saves the state before each notification goes out and
// drops every notification once a save has failed (the service lock is
// held, as for every Notify of the Orchestrator).
type durableNotifier struct {
	o *Orchestrator
	n Notifier
}

func (dn durableNotifier) Notify(session int64, method string, params any) {
	if dn.o.saveLocked() != nil {
		return
	}
	dn.n.Notify(session, method, params)
}

// Shutdown ends every run as the daemon stops: running and parked loops
// close 499 and their streams are stopped (runs.Service.Shutdown). With a
// state directory, the closures are saved like anything else.
func (o *Orchestrator) Shutdown() {
	o.svc.Shutdown()
	_ = o.Commit()
}
