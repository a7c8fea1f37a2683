package client

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// resumeServer answers the GETs a stream reader sends to resume, each with
// the next body of bodies (an empty stream once they run out), and
// records their Last-Event-ID.
type resumeServer struct {
	mu      sync.Mutex
	bodies  []string
	resumed []string
}

func (s *resumeServer) RoundTrip(r *http.Request) (*http.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.Method != http.MethodGet {
		return nil, errors.New("resumeServer: only GET")
	}
	s.resumed = append(s.resumed, r.Header.Get("Last-Event-ID"))
	body := ""
	if len(s.bodies) > 0 {
		body, s.bodies = s.bodies[0], s.bodies[1:]
	}
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
}

// brokenBody is a response body that breaks after its text.
type brokenBody struct{ io.Reader }

func (b brokenBody) Read(p []byte) (int, error) {
	n, err := b.Reader.Read(p)
	if errors.Is(err, io.EOF) {
		return n, io.ErrUnexpectedEOF
	}
	return n, err
}

func (brokenBody) Close() error { return nil }

// runStream runs the reader of a POST's SSE stream, body, to its end on
// a connection whose resuming GETs srv answers, and returns what it
// delivered.
func runStream(t *testing.T, srv *resumeServer, body io.ReadCloser) (*httpConn, []string) {
	t.Helper()
	tr := HTTP("http://mcp.test/mcp", &HTTPOptions{Client: &http.Client{Transport: srv}}).(*httpTransport)
	conn, err := tr.Connect(t.Context())
	require.NoError(t, err)
	c := conn.(*httpConn)
	t.Cleanup(func() { c.shut() })
	c.stream(&http.Response{StatusCode: http.StatusOK, Body: body}, false)
	var got []string
	for {
		select {
		case m := <-c.in:
			got = append(got, string(m))
		default:
			return c, got
		}
	}
}

// The events of a resumable server's stream: a priming event (an id, a
// retry of 1 ms, no data), then messages with ids.
const (
	priming      = "id: s_0\nretry: 1\ndata: \n\n"
	progressNote = `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`
	response     = `{"jsonrpc":"2.0","id":2,"result":{"content":[]}}`
)

func TestStreamEndsWithItsResponse(t *testing.T) {
	for _, tc := range []struct {
		name string
		body io.ReadCloser
	}{
		{"the server closes the stream after the response",
			io.NopCloser(strings.NewReader(priming + "id: s_1\ndata: " + progressNote + "\n\nid: s_2\ndata: " + response + "\n\n"))},
		{"the connection breaks after the response",
			brokenBody{strings.NewReader(priming + "id: s_1\ndata: " + response + "\n\n")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := &resumeServer{}
			c, got := runStream(t, srv, tc.body)
			assert.Equal(t, response, got[len(got)-1], "the response is delivered")
			assert.Empty(t, srv.resumed, "a stream that carried its response is not resumed")
			assert.NoError(t, c.failed, "the connection goes on")
			select {
			case <-c.done:
				t.Fatal("the connection ended")
			default:
			}
		})
	}
}

func TestStreamResumedUntilItsResponse(t *testing.T) {
	srv := &resumeServer{bodies: []string{"id: s_2\ndata: " + response + "\n\n"}}
	c, got := runStream(t, srv, brokenBody{strings.NewReader(priming + "id: s_1\ndata: " + progressNote + "\n\n")})
	assert.Equal(t, []string{"s_1"}, srv.resumed, "the broken stream is resumed after its last event, once")
	assert.Equal(t, []string{progressNote, response}, got)
	assert.NoError(t, c.failed)
}
