package rpc

import (
	"anchorage/impl/vary"

	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"anchorage/sim/clock"

	"github.com/coder/websocket"
)

// DefaultRPCTimeout is PLURNK_RPC_TIMEOUT's default.
const DefaultRPCTimeout = 30 * time.Second

// ServerConfig configures a Server.
type ServerConfig struct {
	// Clock times the RPC timeout; nil uses the wall clock.
	Clock clock.Clock
	// Timeout is PLURNK_RPC_TIMEOUT: a handler that is not longRunning
	// and runs past it is answered -32007 (§operator-config-rpc-timeout).
	// 0 is the default; below 0 switches it off.
	Timeout time.Duration
	// Logf receives what the server only logs (a late result); nil drops it.
	Logf func(format string, args ...any)
	// Vary holds the spec-permitted variations in force
	// (config.Variations) that shape the frames.
	Vary vary.Set
}

// MaxFrameBytes is the largest frame a connection reads.
const MaxFrameBytes = 16 << 20

// Server is the WebSocket JSON-RPC endpoint over a Backend.
type Server struct {
	backend Backend
	cfg     ServerConfig
	methods map[string]Method

	mu    sync.Mutex
	conns map[*conn]struct{}
	wg    sync.WaitGroup
}

// NewServerWith returns a server over b configured by cfg.
func NewServerWith(b Backend, cfg ServerConfig) *Server {
	if cfg.Clock == nil {
		cfg.Clock = clock.Real()
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultRPCTimeout
	}
	s := &Server{backend: b, cfg: cfg, methods: map[string]Method{}, conns: map[*conn]struct{}{}}
	s.register()
	b.Subscribe(s)
	return s
}

// conn is one WebSocket connection: the session it is attached to and the
// queue of frames to write, in order.
type conn struct {
	ws *websocket.Conn

	mu      sync.Mutex
	session int64 // 0 until session.create or session.attach
	run     int64 // the connection's own run
	queue   [][]byte
	closed  bool
	wake    chan struct{}
	// out rewrites every frame sent (the variations); nil sends it as is.
	out func([]byte) []byte
}

func (c *conn) attached() (session, run int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.session, c.run
}

func (c *conn) attach(session, run int64) {
	c.mu.Lock()
	c.session, c.run = session, run
	c.mu.Unlock()
}

// send queues a frame; it never blocks.
func (c *conn) send(b []byte) {
	if c.out != nil {
		b = c.out(b)
	}
	c.mu.Lock()
	if !c.closed {
		c.queue = append(c.queue, b)
	}
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// writeLoop writes queued frames until ctx ends or a write fails.
func (c *conn) writeLoop(ctx context.Context) {
	for {
		c.mu.Lock()
		q := c.queue
		c.queue = nil
		c.mu.Unlock()
		for _, b := range q {
			if err := c.ws.Write(ctx, websocket.MessageText, b); err != nil {
				return
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-c.wake:
		}
	}
}

// Notify sends a notification to the connections attached to session, or
// to every connection when session is 0. The envelope names the session:
// params that are a JSON object get "sessionId" (unless they carry it
// already) (§notifications-envelope-carries-sessionid). Params the
// service builds always encode; one that did not would reach no one.
func (s *Server) Notify(session int64, method string, params any) {
	b, err := EncodeNotification(method, withSession(session, params))
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		if cs, _ := c.attached(); err == nil && (session == 0 || cs == session) {
			c.send(b)
		}
	}
}

// ServeHTTP upgrades the request to a WebSocket and serves JSON-RPC on it
// until the peer goes away.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ws, err := websocket.Accept(w, r, nil)
	if err != nil {
		return // Accept has answered the HTTP request
	}
	ws.SetReadLimit(MaxFrameBytes)
	c := &conn{ws: ws, wake: make(chan struct{}, 1), out: s.varyFrame}
	s.mu.Lock()
	s.conns[c] = struct{}{}
	s.mu.Unlock()

	ctx, cancel := context.WithCancel(r.Context())
	done := make(chan struct{})
	go func() { c.writeLoop(ctx); close(done) }()
	err = s.readLoop(ctx, c)

	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	cancel()
	<-done
	if websocket.CloseStatus(err) == -1 {
		ws.Close(websocket.StatusInternalError, "read failed")
	} else {
		ws.Close(websocket.StatusNormalClosure, "")
	}
}

func (s *Server) readLoop(ctx context.Context, c *conn) error {
	for {
		_, data, err := c.ws.Read(ctx)
		if err != nil {
			return err
		}
		f := DecodeFrame(data)
		if len(f.Requests) == 0 {
			if f.Batch {
				c.send(batchOf(f.Invalid))
				continue
			}
			for _, b := range f.Invalid {
				c.send(b)
			}
			continue
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.serveFrame(ctx, c, f)
		}()
	}
}

// serveFrame answers one frame: a single request, or a batch answered in
// one array (nothing when the batch held only notifications).
func (s *Server) serveFrame(ctx context.Context, c *conn, f Frame) {
	if !f.Batch {
		if b := s.call(ctx, c, f.Requests[0]); b != nil {
			c.send(b)
		}
		return
	}
	answers := append([][]byte(nil), f.Invalid...)
	for _, req := range f.Requests {
		if b := s.call(ctx, c, req); b != nil {
			answers = append(answers, b)
		}
	}
	if len(answers) > 0 {
		c.send(batchOf(answers))
	}
}

func batchOf(items [][]byte) []byte {
	raws := make([]json.RawMessage, len(items))
	for i, b := range items {
		raws[i] = b
	}
	out, _ := json.Marshal(raws)
	return out
}

// call runs one request and returns its encoded answer, or nil for a
// notification. A panic in a method becomes an internal error.
func (s *Server) call(ctx context.Context, c *conn, req Request) (out []byte) {
	defer func() {
		if p := recover(); p != nil {
			out = encodeError(req.ID, Errorf(CodeInternalError, "internal error: %v", p))
		}
		if req.IsNotification() {
			out = nil
		}
	}()
	m, ok := s.methods[req.Method]
	if !ok {
		return encodeError(req.ID, Errorf(CodeMethodNotFound, "method not found: %q", req.Method))
	}
	if e := checkParams(req.Params, m.Params); e != nil {
		return encodeError(req.ID, e)
	}
	if m.RequiresInit {
		if e := s.envelope(c, m); e != nil {
			return encodeError(req.ID, e)
		}
	}
	res, err := s.invoke(ctx, c, req, m)
	if cm, ok := s.backend.(committer); ok {
		// Nothing is acknowledged before it is saved.
		if cerr := cm.Commit(); cerr != nil {
			res, err = nil, cerr
		}
	}
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			e = Errorf(CodeInternalError, "internal error: %v", err)
		}
		return encodeError(req.ID, e)
	}
	return encodeResult(req.ID, res)
}

// envelope makes sure c is attached before a requiresInit method runs:
// an unattached connection gets a new session with its client run
// (§methods-auto-envelope), or -32000 for a method that cannot use one.
func (s *Server) envelope(c *conn, m Method) *Error {
	if id, _ := c.attached(); id != 0 {
		return nil
	}
	if m.NoEnvelope {
		return Errorf(CodeNotAttached, "not initialized: call session.create or session.attach first")
	}
	info, err := s.backend.CreateSession(SessionParams{})
	if err != nil {
		return Errorf(CodeInternalError, "internal error: auto envelope: %v", err)
	}
	s.rebind(c, info)
	return nil
}

// invoke runs the handler; one that is not longRunning and outlasts the
// RPC timeout is answered -32007 and its late result only logged.
func (s *Server) invoke(ctx context.Context, c *conn, req Request, m Method) (any, error) {
	if m.LongRunning || s.cfg.Timeout < 0 {
		return m.Handler(ctx, c, req.Params)
	}
	type outcome struct {
		res any
		err error
	}
	done := make(chan outcome, 1)
	timer := s.cfg.Clock.NewTimer(s.cfg.Timeout)
	defer timer.Stop()
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- outcome{err: Errorf(CodeInternalError, "internal error: %v", p)}
			}
		}()
		res, err := m.Handler(ctx, c, req.Params)
		done <- outcome{res, err}
	}()
	select {
	case o := <-done:
		return o.res, o.err
	case <-timer.C():
		go func() {
			o := <-done
			if s.cfg.Logf != nil {
				s.cfg.Logf("rpc: %s answered after its timeout (error %v)", req.Method, o.err)
			}
		}()
		return nil, &Error{Code: CodeTimeout, Message: fmt.Sprintf("timeout: %s ran past %s", req.Method, s.cfg.Timeout),
			Data: map[string]any{"method": req.Method, "timeoutMs": s.cfg.Timeout.Milliseconds()}}
	}
}

// withSession adds sessionId to params that are a JSON object.
func withSession(session int64, params any) any {
	if session == 0 {
		return params
	}
	b, err := json.Marshal(params)
	if err != nil {
		return params
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil || m == nil {
		return params
	}
	if _, ok := m["sessionId"]; !ok {
		m["sessionId"] = json.RawMessage(fmt.Sprint(session))
	}
	return m
}

// Wait waits for the requests in flight to finish (for shutdown).
func (s *Server) Wait() { s.wg.Wait() }

// String names the server for logs.
func (s *Server) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return fmt.Sprintf("plurnk rpc server (%d connections)", len(s.conns))
}

// Close drops every connection at once (for shutdown; the HTTP server does
// not track hijacked WebSocket connections).
func (s *Server) Close() {
	s.mu.Lock()
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		c.ws.CloseNow()
	}
}

// committer is a Backend that saves its state before an answer goes out
// (the Orchestrator with a state directory).
type committer interface{ Commit() error }
