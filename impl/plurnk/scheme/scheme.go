// Package scheme holds the schemes of plurnk-service 0.56 (the
// features/plurnk/SPEC.md digest, §scheme-address-namespace-fold and the
// channel sections): each scheme's manifest (channels, default channel,
// writers allowed), its storage behind the Handler interface, and the
// Registry that folds a statement's target into the entry it names.
//
// Schemes never call mimetype handlers: they store content and a mimetype
// label and nothing else (§mimetype-schemes-do-not-invoke-handlers). Only
// schemes change a channel's state (OpenStream, AppendChunk, SetState).
//
// The log:/// scheme (Log) presents the calling run's own log rows as
// read-only entries and deletes them on KILL; a scheme fronting live state
// (an exec stream) implements Controller to see KILL and directed SENDs of
// its entries first. The file scheme (File) keeps content on an afero fs
// under the workspace root, answers 415 for binary content and restores the
// disk when the transaction fails; given a membership (UseMembers) it vets
// every write before any read (WriteGuard) and reports its own writes and
// outside changes (Reconciler). The registry also records which canceller
// holds each streaming scheme's live streams (Subscribe), so a SEND[499] or
// KILL on a stream reaches it. Paths without a known extension are
// text/markdown; text/plain is left to schemes that declare it.
//
// It may import the standard library, afero, anchorage/impl/plurnk/dsl and
// anchorage/impl/plurnk/store.
package scheme

import (
	"errors"
	"fmt"
	"net/http"
	"path"
	"sort"
	"strings"

	"anchorage/impl/plurnk/dsl"
	"anchorage/impl/plurnk/store"
)

// Writer is the authority tier of whoever issues an op.
type Writer string

const (
	WriterModel  Writer = "model"
	WriterClient Writer = "client"
	WriterPlurnk Writer = "plurnk"
	WriterPlugin Writer = "plugin"
)

// ChannelSpec declares one channel of a scheme. A non-empty Mimetype pins the
// channel's mimetype; an empty one takes the mimetype from the entry's path.
type ChannelSpec struct {
	Mimetype string
}

// Manifest is what a scheme declares about itself.
type Manifest struct {
	Name           string
	Channels       map[string]ChannelSpec
	DefaultChannel string
	WritableBy     []Writer
	// Example is one statement showing the scheme in use; a scheme with
	// one gets a usage line in the packet's schemes section
	// (§schemes-directory). "" lists no line.
	Example string
	// Doc is the scheme's documentation, materialized as the entry
	// plurnk://docs/<name>.md rather than inlined in the packet.
	Doc string
}

// Writable reports whether w may write entries of the scheme.
func (m Manifest) Writable(w Writer) bool {
	for _, x := range m.WritableBy {
		if x == w {
			return true
		}
	}
	return false
}

// ChannelNames returns the declared channel names, sorted.
func (m Manifest) ChannelNames() []string {
	out := make([]string, 0, len(m.Channels))
	for n := range m.Channels {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Accepts reports whether the channel name of the scheme accepts content of
// mimetype mt: a pinned channel takes only its own mimetype, an unpinned one
// takes any non-binary mimetype.
func (m Manifest) Accepts(name, mt string) bool {
	spec, ok := m.Channels[name]
	if !ok {
		return false
	}
	if spec.Mimetype != "" {
		return spec.Mimetype == mt
	}
	return !IsBinary(mt)
}

// MimetypeFor returns the mimetype a write to channel name of the entry at
// p gets: the pinned one, or the one of the path's extension.
func (m Manifest) MimetypeFor(name, p string) string {
	if spec := m.Channels[name]; spec.Mimetype != "" {
		return spec.Mimetype
	}
	return MimetypeOf(p)
}

// Call is the context of one handler call.
type Call struct {
	Tx     *store.Tx
	Run    *store.Run
	Writer Writer
}

// Handler is a scheme's storage. Load returns nil and no error for an
// absent entry. An error that is a *StatusError carries the status the
// action answers; any other error (or a panic) answers 500.
type Handler interface {
	Manifest() Manifest
	Load(c Call, k store.Key) (*store.Entry, error)
	Save(c Call, e *store.Entry) error
	Remove(c Call, k store.Key) (bool, error)
	List(c Call) ([]*store.Entry, error)
}

// Controller is implemented by a scheme whose entries front live state
// outside the store (an exec stream's process). A KILL of one of its
// entries, and a directed SEND other than SEND[410], reach Control first:
// op is the statement's op, code its signal (the Unix signal of KILL, 0 for
// a bare KILL; the status of SEND). A non-zero status is the action's
// answer; 0 hands the statement back to the engine's default (KILL and
// SEND[410] delete the entry or channel, any other SEND answers 501).
type Controller interface {
	Control(c Call, k store.Key, channel string, op dsl.Op, code int) (status int, err error)
}

// StatusError is a handler failure with the status the action answers.
type StatusError struct {
	Status int
	Reason string
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("%d %s: %s", e.Status, http.StatusText(e.Status), e.Reason)
}

// Errorf returns a *StatusError.
func Errorf(status int, format string, args ...any) error {
	return &StatusError{Status: status, Reason: fmt.Sprintf(format, args...)}
}

// StatusOf returns the status an error answers: a *StatusError's own, else
// 500.
func StatusOf(err error) int {
	var se *StatusError
	if errors.As(err, &se) {
		return se.Status
	}
	return 500
}

// MimetypeOf returns the mimetype of a path by its extension. A path
// without a known extension (or a .txt) is text/markdown: text the service
// derives is markdown, and text/plain is left to the schemes that declare
// it, as exec's stdout and stderr do
// (§markdown-primitive-text-markdown-normalize).
func MimetypeOf(p string) string {
	switch strings.ToLower(path.Ext(p)) {
	case ".md", ".markdown", ".txt", ".text":
		return "text/markdown"
	case ".json":
		return "application/json"
	case ".go":
		return "text/x-go"
	case ".js", ".mjs":
		return "text/javascript"
	case ".ts":
		return "text/typescript"
	case ".html", ".htm":
		return "text/html"
	case ".xml":
		return "application/xml"
	case ".yaml", ".yml":
		return "application/yaml"
	case ".csv":
		return "text/csv"
	case ".png":
		return "image/png"
	case ".jpg", ".jpeg":
		return "image/jpeg"
	case ".gif":
		return "image/gif"
	case ".pdf":
		return "application/pdf"
	case ".zip":
		return "application/zip"
	case ".gz":
		return "application/gzip"
	case ".wasm":
		return "application/wasm"
	case ".bin", ".exe", ".so":
		return "application/octet-stream"
	}
	return "text/markdown"
}

// IsBinary reports whether mt is a binary mimetype, one whose content is
// not text.
func IsBinary(mt string) bool {
	for _, p := range []string{"image/", "audio/", "video/", "font/"} {
		if strings.HasPrefix(mt, p) {
			return true
		}
	}
	switch mt {
	case "application/octet-stream", "application/pdf", "application/zip", "application/gzip", "application/wasm":
		return true
	}
	return false
}

// Registry holds the registered schemes by name.
type Registry struct {
	handlers map[string]Handler
	streams  map[string]Canceller // by scheme: who holds its live streams
}

// NewRegistry returns a registry holding hs.
func NewRegistry(hs ...Handler) (*Registry, error) {
	r := &Registry{handlers: map[string]Handler{}}
	for _, h := range hs {
		n := h.Manifest().Name
		if _, dup := r.handlers[n]; dup {
			return nil, fmt.Errorf("register scheme %q: already registered", n)
		}
		r.handlers[n] = h
	}
	return r, nil
}

// Handler returns the scheme named name.
func (r *Registry) Handler(name string) (Handler, bool) {
	h, ok := r.handlers[name]
	return h, ok
}

// Names returns the registered scheme names, sorted.
func (r *Registry) Names() []string {
	out := make([]string, 0, len(r.handlers))
	for n := range r.handlers {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// foreign reports whether scheme is not registered.
func (r *Registry) foreign(scheme string) bool {
	if scheme == "" {
		return false
	}
	_, ok := r.handlers[scheme]
	return !ok
}

// Address folds t as the registry sees it: a registered scheme folds its
// authority into the path, an unregistered one keeps its host, and a local
// path resolves against the workspace root (escaping it is a 403).
func (r *Registry) Address(t dsl.Target) (dsl.Address, error) {
	a, err := dsl.FoldTarget(t, r.foreign)
	if err != nil {
		if errors.Is(err, dsl.ErrEscapesRoot) {
			return dsl.Address{}, Errorf(403, "%v", err)
		}
		return dsl.Address{}, Errorf(400, "%v", err)
	}
	return a, nil
}

// Resolved is a target resolved to its scheme, entry key and channel.
type Resolved struct {
	Handler Handler
	Key     store.Key
	Channel string // the fragment's channel, or the default channel
	Named   bool   // the target named its channel with a fragment
}

// Resolve folds t and finds its scheme and channel. A local path and the
// file scheme are the workspace. An unregistered scheme answers 501; a
// fragment naming a channel the scheme does not declare answers 400.
func (r *Registry) Resolve(t dsl.Target) (Resolved, error) {
	a, err := r.Address(t)
	if err != nil {
		return Resolved{}, err
	}
	name := a.Scheme
	if name == "" {
		name = "file"
	}
	h, ok := r.handlers[name]
	if !ok {
		return Resolved{}, Errorf(501, "no handler for scheme %q", name)
	}
	m := h.Manifest()
	res := Resolved{Handler: h, Key: store.Key{Scope: store.ScopeSession, Scheme: name, Path: a.Path}, Channel: m.DefaultChannel}
	if a.HasFragment {
		if _, ok := m.Channels[a.Fragment]; !ok {
			return Resolved{}, Errorf(400, "scheme %q has no channel %q (channels: %s)", name, a.Fragment, strings.Join(m.ChannelNames(), ", "))
		}
		res.Channel, res.Named = a.Fragment, true
	}
	if res.Channel == "" {
		return Resolved{}, Errorf(400, "scheme %q has no default channel; name one with #channel", name)
	}
	return res, nil
}

// Register adds h to the registry.
func (r *Registry) Register(h Handler) error {
	n := h.Manifest().Name
	if _, dup := r.handlers[n]; dup {
		return fmt.Errorf("register scheme %q: already registered", n)
	}
	r.handlers[n] = h
	return nil
}
