package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"

	"github.com/coder/websocket"
)

// Client is a small JSON-RPC client over one WebSocket, for tests and
// tools: Call waits for its answer while notifications queue up in order.
type Client struct {
	ws *websocket.Conn

	mu      sync.Mutex
	nextID  int64
	pending map[string]chan Answer
	notes   []Note
	noteCh  chan struct{}
	err     error
	done    chan struct{}
}

// Answer is one response: Result or Error.
type Answer struct {
	Raw    json.RawMessage // the whole frame
	Result json.RawMessage
	Error  *Error
	// Heard counts the notifications the connection had received when
	// this answer arrived (they came before it on the wire).
	Heard int
}

// Note is one notification received.
type Note struct {
	Method string
	Params json.RawMessage
	Raw    json.RawMessage
}

// Dial connects to a ws:// URL.
func Dial(ctx context.Context, url string) (*Client, error) {
	ws, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", url, err)
	}
	ws.SetReadLimit(MaxFrameBytes)
	c := &Client{ws: ws, pending: map[string]chan Answer{}, noteCh: make(chan struct{}, 1), done: make(chan struct{})}
	go c.read()
	return c, nil
}

// Close closes the connection.
func (c *Client) Close() error {
	err := c.ws.Close(websocket.StatusNormalClosure, "")
	<-c.done
	return err
}

func (c *Client) read() {
	defer close(c.done)
	for {
		_, data, err := c.ws.Read(context.Background())
		if err != nil {
			c.mu.Lock()
			c.err = err
			closed := map[chan Answer]bool{}
			for id, ch := range c.pending {
				if !closed[ch] {
					close(ch)
					closed[ch] = true
				}
				delete(c.pending, id)
			}
			c.mu.Unlock()
			c.signal()
			return
		}
		var f struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
			Error  *Error          `json:"error"`
		}
		if data[0] == '[' || json.Unmarshal(data, &f) != nil {
			c.deliver("batch", Answer{Raw: data})
			continue
		}
		if f.Method != "" && f.ID == nil {
			c.mu.Lock()
			c.notes = append(c.notes, Note{Method: f.Method, Params: f.Params, Raw: data})
			c.mu.Unlock()
			c.signal()
			continue
		}
		c.deliver(string(f.ID), Answer{Raw: data, Result: f.Result, Error: f.Error})
	}
}

func (c *Client) signal() {
	select {
	case c.noteCh <- struct{}{}:
	default:
	}
}

func (c *Client) deliver(id string, a Answer) {
	c.mu.Lock()
	a.Heard = len(c.notes)
	ch, ok := c.pending[id]
	delete(c.pending, id)
	c.mu.Unlock()
	if ok {
		select {
		case ch <- a:
		default: // already answered (an alias of the same waiter)
		}
	}
}

// Call sends a request and waits for its answer.
func (c *Client) Call(ctx context.Context, method string, params any) (Answer, error) {
	c.mu.Lock()
	c.nextID++
	id := strconv.FormatInt(c.nextID, 10)
	ch := make(chan Answer, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	frame := map[string]any{"jsonrpc": Version, "id": json.Number(id), "method": method}
	if params != nil {
		frame["params"] = params
	}
	b, err := json.Marshal(frame)
	if err != nil {
		return Answer{}, fmt.Errorf("call %s: %w", method, err)
	}
	return c.await(ctx, id, ch, b)
}

// Send writes a raw frame and, when expectAnswer, waits for the next
// answer that is not claimed by a Call (a batch, or an answer with a null
// or unknown id).
func (c *Client) Send(ctx context.Context, frame []byte, expectAnswer bool) (Answer, error) {
	if !expectAnswer {
		return Answer{}, c.ws.Write(ctx, websocket.MessageText, frame)
	}
	return c.awaitAny(ctx, frame)
}

func (c *Client) awaitAny(ctx context.Context, frame []byte) (Answer, error) {
	ch := make(chan Answer, 1)
	c.mu.Lock()
	for _, k := range []string{"null", "batch"} {
		c.pending[k] = ch
	}
	c.mu.Unlock()
	if err := c.ws.Write(ctx, websocket.MessageText, frame); err != nil {
		return Answer{}, err
	}
	select {
	case a, ok := <-ch:
		if !ok {
			return Answer{}, fmt.Errorf("connection closed: %v", c.err)
		}
		c.mu.Lock()
		delete(c.pending, "null")
		delete(c.pending, "batch")
		c.mu.Unlock()
		return a, nil
	case <-ctx.Done():
		return Answer{}, ctx.Err()
	}
}

// SendFor writes a raw frame and waits for the answer with the given id
// (its JSON text, e.g. `7` or `"a"`).
func (c *Client) SendFor(ctx context.Context, frame []byte, id string) (Answer, error) {
	ch := make(chan Answer, 1)
	c.mu.Lock()
	c.pending[id] = ch
	c.mu.Unlock()
	return c.await(ctx, id, ch, frame)
}

func (c *Client) await(ctx context.Context, id string, ch chan Answer, frame []byte) (Answer, error) {
	if err := c.ws.Write(ctx, websocket.MessageText, frame); err != nil {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
		return Answer{}, err
	}
	select {
	case a, ok := <-ch:
		if !ok {
			return Answer{}, fmt.Errorf("connection closed: %v", c.err)
		}
		return a, nil
	case <-ctx.Done():
		return Answer{}, ctx.Err()
	}
}

// Notes returns the notifications received so far.
func (c *Client) Notes() []Note {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Note(nil), c.notes...)
}

// WaitCount waits until at least n notifications have arrived.
func (c *Client) WaitCount(ctx context.Context, n int) error {
	return c.wait(ctx, func(notes []Note) bool { return len(notes) >= n })
}

// wait waits until done holds of the notifications received so far (it
// is called with c.mu held), the connection closes, or ctx ends.
func (c *Client) wait(ctx context.Context, done func([]Note) bool) error {
	for {
		c.mu.Lock()
		ok, err := done(c.notes), c.err
		c.mu.Unlock()
		if ok {
			return nil
		}
		if err != nil {
			return fmt.Errorf("connection closed: %w", err)
		}
		select {
		case <-c.noteCh:
		case <-ctx.Done():
			return fmt.Errorf("waiting for a notification: %w", ctx.Err())
		}
	}
}
