package devserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// stdioServer is dev as the client's stdio server: it reads the client's
// messages from Stdin and passes them to the current child, and the
// child's to Stdout. It records the client's initialize (and its
// notifications/initialized, logging/setLevel and resources/subscribe)
// to replay them to each new child before it replaces the old one, then
// sends the client notifications/{tools,prompts,resources}/list_changed.
type stdioServer struct {
	cfg Config
	log *logger

	outMu sync.Mutex // serializes writes to the client

	mu          sync.Mutex
	cur         *child
	gen         int
	pending     map[string]*pending // the client's requests in flight
	serverReqs  map[string]*child   // the children's requests to the client
	asked       map[string]*pending // the same, for the log
	initReq     []byte              // the client's initialize request
	initialized bool
	setLevel    []byte
	subscribes  map[string][]byte // by URI
	closed      bool
	end         chan struct{} // closed when the client's stdin ends
	first       chan struct{} // closed once the first build has ended
	firstOnce   sync.Once
}

// firstBuilt lets the client's messages through: until the first build
// ends they wait, so that a client that starts dev can initialize at once.
func (s *stdioServer) firstBuilt() { s.firstOnce.Do(func() { close(s.first) }) }

// child is one generation of the server.
type child struct {
	n     int
	cmd   *exec.Cmd
	stdin io.WriteCloser
	inMu  sync.Mutex
	done  chan struct{} // closed when its stdout has ended and it exited
	// replies receives the responses to dev's own requests (replays).
	replyMu sync.Mutex
	replies map[string]chan envelope
}

func newStdioServer(ctx context.Context, cfg Config, log *logger) *stdioServer {
	s := &stdioServer{cfg: cfg, log: log, pending: map[string]*pending{}, serverReqs: map[string]*child{}, asked: map[string]*pending{}, subscribes: map[string][]byte{}, end: make(chan struct{}), first: make(chan struct{})}
	go s.readClient(ctx)
	return s
}

func (c *child) send(b []byte) error {
	c.inMu.Lock()
	defer c.inMu.Unlock()
	if _, err := c.stdin.Write(append(b[:len(b):len(b)], '\n')); err != nil {
		return err
	}
	return nil
}

func (s *stdioServer) toClient(b []byte) {
	s.outMu.Lock()
	defer s.outMu.Unlock()
	_, _ = s.cfg.Stdout.Write(append(b[:len(b):len(b)], '\n'))
}

func (s *stdioServer) errorToClient(id json.RawMessage, code int, msg string) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
	s.toClient(b)
}

// readClient passes the client's messages on until Stdin ends; then dev
// stops the server, as a stdio server does when its input closes.
func (s *stdioServer) readClient(ctx context.Context) {
	_ = readLines(s.cfg.Stdin, func(line []byte) {
		line = append([]byte(nil), line...)
		select {
		case <-s.first:
		case <-ctx.Done():
			return
		}
		e, ok := parse(line)
		var answered *pending // a server's request this line answers
		s.mu.Lock()
		cur := s.cur
		if ok {
			switch {
			case e.Method == "initialize" && hasID(e.ID):
				s.initReq = line
			case e.Method == "notifications/initialized":
				s.initialized = true
			case e.Method == "logging/setLevel":
				s.setLevel = line
			case e.Method == "resources/subscribe":
				s.subscribes[e.Params.URI] = line
			case e.Method == "resources/unsubscribe":
				delete(s.subscribes, e.Params.URI)
			}
			if e.isRequest() {
				s.pending[idKey(e.ID)] = &pending{method: e.Method, name: e.name(), start: time.Now(), owner: cur}
			}
			if e.isResponse() {
				// An answer to a child's request goes to that child.
				if c, ok := s.serverReqs[idKey(e.ID)]; ok {
					delete(s.serverReqs, idKey(e.ID))
					cur = c
				}
				if p, ok := s.asked[idKey(e.ID)]; ok {
					delete(s.asked, idKey(e.ID))
					answered = p
				}
			}
		}
		s.mu.Unlock()
		if answered != nil {
			s.log.request("← "+answered.method, answered.name, e.status(), time.Since(answered.start))
		}
		if cur == nil || cur.send(line) != nil {
			if ok && e.isRequest() {
				s.finish(e.ID, "error -32603 no server running")
				s.errorToClient(e.ID, -32603, "mcpchain dev: no server is running (see the build errors on dev's stderr)")
			}
		}
	})
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.log.event("client closed stdin; stopping")
	close(s.end)
}

func (s *stdioServer) ended() <-chan struct{} { return s.end }

// finish logs the end of the client's request id, if it is pending.
func (s *stdioServer) finish(id json.RawMessage, status string) {
	s.mu.Lock()
	p, ok := s.pending[idKey(id)]
	delete(s.pending, idKey(id))
	s.mu.Unlock()
	if ok {
		s.log.request(p.method, p.name, status, time.Since(p.start))
	}
}

// start runs bin and passes its messages to the client.
func (s *stdioServer) start(bin string) (*child, error) {
	s.gen++
	cmd := exec.Command(bin, s.cfg.Args...)
	cmd.Dir = s.cfg.Dir
	cmd.Stderr = s.cfg.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the server: %w", err)
	}
	c := &child{n: s.gen, cmd: cmd, stdin: stdin, done: make(chan struct{}), replies: map[string]chan envelope{}}
	go func() {
		_ = readLines(stdout, func(line []byte) { s.fromChild(c, append([]byte(nil), line...)) })
		err := cmd.Wait()
		s.mu.Lock()
		stillCurrent := s.cur == c
		var orphans []json.RawMessage
		for k, p := range s.pending {
			if p.owner == c {
				orphans = append(orphans, json.RawMessage(k))
			}
		}
		closed := s.closed
		s.mu.Unlock()
		for _, id := range orphans {
			s.finish(id, "error -32603 server restarted")
			s.errorToClient(id, -32603, "mcpchain dev: the server was restarted before it answered")
		}
		if stillCurrent && !closed {
			s.log.event("server exited (%v); waiting for a change to rebuild", errOr(err))
		}
		close(c.done)
	}()
	return c, nil
}

func errOr(err error) any {
	if err == nil {
		return "exit status 0"
	}
	return err
}

func (s *stdioServer) fromChild(c *child, line []byte) {
	e, ok := parse(line)
	if ok && e.isResponse() {
		c.replyMu.Lock()
		ch, mine := c.replies[idKey(e.ID)]
		c.replyMu.Unlock()
		if mine {
			ch <- e
			return
		}
		s.finish(e.ID, e.status())
	}
	if ok && e.isRequest() {
		s.mu.Lock()
		s.serverReqs[idKey(e.ID)] = c
		s.asked[idKey(e.ID)] = &pending{method: e.Method, name: e.name(), start: time.Now()}
		s.mu.Unlock()
	}
	s.toClient(line)
}

// call sends dev's own request (a replay) to c and waits for its answer.
func (c *child) call(ctx context.Context, req []byte, id string) (envelope, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(req, &m); err != nil {
		return envelope{}, err
	}
	m["id"], _ = json.Marshal(id)
	b, _ := json.Marshal(m)
	ch := make(chan envelope, 1)
	key := idKey(m["id"])
	c.replyMu.Lock()
	c.replies[key] = ch
	c.replyMu.Unlock()
	defer func() { c.replyMu.Lock(); delete(c.replies, key); c.replyMu.Unlock() }()
	if err := c.send(b); err != nil {
		return envelope{}, err
	}
	select {
	case e := <-ch:
		if e.Error != nil {
			return e, fmt.Errorf("error %d: %s", e.Error.Code, e.Error.Message)
		}
		return e, nil
	case <-c.done:
		return envelope{}, errors.New("the server exited")
	case <-ctx.Done():
		return envelope{}, ctx.Err()
	}
}

func (s *stdioServer) restart(ctx context.Context, bin string) error {
	start := time.Now()
	c, err := s.start(bin)
	if err != nil {
		return err
	}
	s.mu.Lock()
	initReq, initialized, setLevel := s.initReq, s.initialized, s.setLevel
	var subs [][]byte
	for _, b := range s.subscribes {
		subs = append(subs, b)
	}
	old := s.cur
	s.mu.Unlock()

	var caps struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	if initReq != nil {
		rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		res, err := c.call(rctx, initReq, fmt.Sprintf("mcpchain-dev-%d-initialize", c.n))
		if err != nil {
			c.kill()
			return fmt.Errorf("the new server failed the client's initialize: %w", err)
		}
		_ = json.Unmarshal(res.Result, &caps)
		if initialized {
			_ = c.send([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
		}
		for i, req := range append([][]byte{setLevel}, subs...) {
			if req != nil {
				if _, err := c.call(rctx, req, fmt.Sprintf("mcpchain-dev-%d-replay-%d", c.n, i)); err != nil {
					s.log.event("replaying %s: %v", method(req), err)
				}
			}
		}
	}
	s.mu.Lock()
	s.cur = c
	s.mu.Unlock()
	if old != nil {
		go s.retire(old)
	}
	if initReq == nil {
		s.log.event("server %d started (%s)", c.n, round(time.Since(start)))
		return nil
	}
	var sent []string
	for _, l := range []string{"tools", "prompts", "resources"} {
		if _, ok := caps.Capabilities[l]; ok {
			m := "notifications/" + l + "/list_changed"
			s.toClient([]byte(`{"jsonrpc":"2.0","method":"` + m + `"}`))
			sent = append(sent, m)
		}
	}
	s.log.event("server %d started and initialized with the client's initialize (%s); sent the client %s", c.n, round(time.Since(start)), strings.Join(sent, ", "))
	return nil
}

func method(req []byte) string {
	e, _ := parse(req)
	return e.Method
}

// retire lets the old child answer the client's requests it has in
// flight, for up to 5 s, then closes its stdin (a stdio server's signal
// to exit) and kills it if it has not exited 2 s later. What it has not
// answered then fails (see start).
func (s *stdioServer) retire(c *child) {
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) && s.busy(c) {
		select {
		case <-c.done:
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
	c.inMu.Lock()
	_ = c.stdin.Close()
	c.inMu.Unlock()
	select {
	case <-c.done:
	case <-time.After(2 * time.Second):
		c.kill()
	}
}

// busy reports whether c has a request of the client to answer.
func (s *stdioServer) busy(c *child) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.pending {
		if p.owner == c {
			return true
		}
	}
	return false
}

func (c *child) kill() {
	_ = c.cmd.Process.Kill()
	<-c.done
}

func (s *stdioServer) stop() {
	s.mu.Lock()
	c := s.cur
	s.cur = nil
	s.mu.Unlock()
	if c != nil {
		c.inMu.Lock()
		_ = c.stdin.Close()
		c.inMu.Unlock()
		select {
		case <-c.done:
		case <-time.After(5 * time.Second):
			c.kill()
		}
	}
}
