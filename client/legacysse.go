package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mcpchain/mcp/internal/redact"
)

// LegacySSE returns a Transport that speaks the deprecated HTTP+SSE
// transport of revision 2024-11-05 to the server whose event stream is at
// url: a GET opens the stream, whose first event ("endpoint") names where
// to POST messages; the server's messages all arrive on the stream. The
// endpoint must be on the stream's origin (scheme, host and port), or
// Connect fails: a server cannot send the client's messages elsewhere.
// Closing the connection closes the stream, which ends the session.
// opts may be nil (MaxRetries and NoListen do not apply).
func LegacySSE(url string, opts *HTTPOptions) Transport {
	var o HTTPOptions
	if opts != nil {
		o = *opts
	}
	owned := o.ownClient()
	o.authorize(url)
	return &legacyTransport{url: url, opts: o, owned: owned}
}

type legacyTransport struct {
	url   string
	opts  HTTPOptions
	owned bool // opts.Client is the transport's own: Close may drop its idle connections
}

// endpointWait bounds how long Connect waits for the endpoint event.
const endpointWait = 10 * time.Second

func (t *legacyTransport) Connect(ctx context.Context) (Conn, error) {
	base, err := url.Parse(t.url)
	if err != nil {
		return nil, fmt.Errorf("mcp client: the stream's URL: %w", redact.Error(err))
	}
	sctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(sctx, http.MethodGet, t.url, nil)
	if err != nil {
		cancel()
		return nil, redact.Error(err)
	}
	for k, vs := range t.opts.Header {
		req.Header[k] = vs
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := t.opts.Client.Do(req)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("mcp client: GET %s: %w", redact.URL(t.url), redact.Error(err))
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode != http.StatusOK || mt != "text/event-stream" {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		resp.Body.Close()
		cancel()
		return nil, &HTTPError{Status: resp.StatusCode, Body: string(b)}
	}
	c := &legacyConn{t: t, cancel: cancel, inbox: newInbox()}
	endpoint := make(chan string, 1)
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer resp.Body.Close()
		err := readSSE(resp.Body, maxMessage, func(ev sseEvent) error {
			switch ev.event {
			case "endpoint":
				select {
				case endpoint <- string(ev.data):
				default: // a second endpoint event is ignored
				}
			case "", "message":
				if len(ev.data) > 0 {
					c.deliver(ev.data)
				}
			}
			return nil
		})
		if err == nil {
			err = errors.New("the server closed the event stream")
		}
		c.fail(err)
	}()
	select {
	case e := <-endpoint:
		u, err := base.Parse(strings.TrimSpace(e))
		if err != nil || u.Scheme != base.Scheme || u.Host != base.Host {
			_ = c.Close()
			return nil, fmt.Errorf("mcp client: the server's endpoint %q is not on the stream's origin %s://%s", e, base.Scheme, base.Host)
		}
		c.endpoint = u.String()
		return c, nil
	case <-c.done:
		_ = c.Close()
		return nil, fmt.Errorf("mcp client: the event stream at %s ended before its endpoint event: %w", redact.URL(t.url), c.failed)
	case <-ctx.Done():
		_ = c.Close()
		return nil, ctx.Err()
	case <-time.After(endpointWait):
		_ = c.Close()
		return nil, fmt.Errorf("mcp client: no endpoint event on %s within %v", redact.URL(t.url), endpointWait)
	}
}

// legacyConn is a Conn over the HTTP+SSE transport.
type legacyConn struct {
	t        *legacyTransport
	endpoint string
	cancel   context.CancelFunc // ends the stream
	inbox                       // the stream's messages; done ends the connection
	once     sync.Once
	failed   error
	wg       sync.WaitGroup
}

func (c *legacyConn) fail(err error) {
	c.once.Do(func() {
		c.failed = err
		close(c.done)
	})
}

func (c *legacyConn) Send(ctx context.Context, msg []byte) error {
	select {
	case <-c.done:
		return ErrClosed
	default:
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(msg))
	if err != nil {
		return redact.Error(err)
	}
	for k, vs := range c.t.opts.Header {
		req.Header[k] = vs
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.t.opts.Client.Do(req)
	if err != nil {
		return fmt.Errorf("mcp client: POST %s: %w", redact.URL(c.endpoint), redact.Error(err))
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	if resp.StatusCode >= 300 {
		return c.errorStatus(resp.StatusCode, b)
	}
	return nil
}

func (c *legacyConn) Recv(ctx context.Context) ([]byte, error) {
	return c.recv(ctx, func() error { return c.failed })
}

// Close closes the event stream, which ends the session on the server.
func (c *legacyConn) Close() error {
	c.fail(ErrClosed)
	c.cancel()
	c.wg.Wait()
	if c.t.owned {
		c.t.opts.Client.CloseIdleConnections()
	}
	return nil
}
