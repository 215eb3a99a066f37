package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"github.com/coder/websocket"
)

// MaxFrameBytes is the largest frame a connection reads.
const MaxFrameBytes = 16 << 20

// Server is the WebSocket JSON-RPC endpoint over a Backend.
type Server struct {
	backend Backend
	methods map[string]method

	mu    sync.Mutex
	conns map[*conn]struct{}
	wg    sync.WaitGroup
}

// NewServer returns a server over b and subscribes it to b's notifications.
func NewServer(b Backend) *Server {
	s := &Server{backend: b, conns: map[*conn]struct{}{}}
	s.methods = s.methodTable()
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
// to every connection when session is 0.
func (s *Server) Notify(session int64, method string, params any) {
	b, err := EncodeNotification(method, params)
	if err != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		if cs, _ := c.attached(); session == 0 || cs == session {
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
	c := &conn{ws: ws, wake: make(chan struct{}, 1)}
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
	res, err := m(ctx, c, req.Params)
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			e = Errorf(CodeInternalError, "internal error: %v", err)
		}
		return encodeError(req.ID, e)
	}
	return encodeResult(req.ID, res)
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
