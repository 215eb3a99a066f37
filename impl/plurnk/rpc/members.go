package rpc

import (
	"context"
	"encoding/json"

	"anchorage/impl/plurnk/membership"
)

// MembersResult is session.members' answer (§membership-resolved-effects):
// the session's members with their resolved effect ("member" or "view"),
// and the files a hide dropped, both by path. The daemon resolves the
// overlay's globs so a client never re-implements them.
type MembersResult struct {
	Members []membership.Member `json:"members"`
	Hidden  []string            `json:"hidden"`
}

// ConstrainParams are session.constrain's params: one overlay rule.
type ConstrainParams struct {
	Effect  string `json:"effect"`
	Pattern string `json:"pattern"`
}

func (s *Server) sessionMembers(_ context.Context, c *conn, _ json.RawMessage) (any, error) {
	return s.backend.Members(sessionOf(c))
}

func (s *Server) sessionConstrain(_ context.Context, c *conn, raw json.RawMessage) (any, error) {
	var p ConstrainParams
	if e := decodeParams(raw, &p); e != nil {
		return nil, e
	}
	if p.Pattern == "" {
		return nil, Errorf(CodeInvalidParams, "invalid params: session.constrain needs a pattern")
	}
	return s.backend.Constrain(sessionOf(c), p)
}

// membersOf checks that the session exists and that the daemon keeps a
// membership (OrchestratorConfig.Members); the caller holds the service
// lock.
func (o *Orchestrator) membersOf(session int64) error {
	if _, ok := o.sessions[session]; !ok {
		return Errorf(CodeSessionNotFound, "session %d not found", session)
	}
	if o.members == nil {
		return Errorf(CodeSchemeUnavailable, "membership is not configured on this daemon")
	}
	return nil
}

// Members implements Backend: the session's resolved membership.
func (o *Orchestrator) Members(session int64) (MembersResult, error) {
	var set membership.Set
	var err error
	o.svc.View(func() {
		if err = o.membersOf(session); err == nil {
			set, err = o.members.Members(session)
		}
	})
	if err != nil {
		return MembersResult{}, err
	}
	out := MembersResult{Members: set.Members, Hidden: set.Hidden}
	if out.Members == nil {
		out.Members = []membership.Member{}
	}
	if out.Hidden == nil {
		out.Hidden = []string{}
	}
	return out, nil
}

// Constrain implements Backend: p joins the session's one overlay, which
// every run of the session resolves; it answers the resolved membership.
func (o *Orchestrator) Constrain(session int64, p ConstrainParams) (MembersResult, error) {
	var err error
	o.svc.View(func() {
		if err = o.membersOf(session); err == nil {
			if cerr := o.members.Constrain(session, membership.Constraint{Effect: membership.Effect(p.Effect), Pattern: p.Pattern}); cerr != nil {
				err = Errorf(CodeInvalidParams, "invalid params: %v", cerr)
			}
		}
	})
	if err != nil {
		return MembersResult{}, err
	}
	return o.Members(session)
}
