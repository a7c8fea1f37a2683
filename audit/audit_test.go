package audit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/audit"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/elicit"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/toolsearch"
)

// Planted secrets: none of them may appear anywhere in the trail.
const (
	bearerToken  = "planted-bearer-9f8e7d6c5b4a"
	refreshToken = "planted-refresh-1a2b3c4d5e6f"
	apiKey       = "planted-apikey-0011223344"
	password     = "planted-password-hunter2"
	noteSecret   = "planted-note-tagged-redact"
	nestedToken  = "planted-nested-token-5566"
	mapSecret    = "planted-map-client-secret"
	itemSecret   = "planted-item-secret-7788"
	ghToken      = "ghp_PlantedGitHubToken1234567890abcd"
	jwt          = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwbGFudGVkIn0.c2lnbmF0dXJlLXBsYW50ZWQ"
	uriKey       = "planted-uri-query-key"
	promptPass   = "planted-prompt-password"
	rawPass      = "planted-raw-password"
	unknownPass  = "planted-unknown-tool-password"
	resultSecret = "planted-result-secret"
	errorSecret  = "planted-error-message-secret"
	urlPass      = "planted-url-userinfo-password"
)

var planted = []string{bearerToken, refreshToken, apiKey, password, noteSecret, nestedToken, mapSecret, itemSecret,
	ghToken, jwt, uriKey, promptPass, rawPass, unknownPass, resultSecret, errorSecret, urlPass}

type user struct{ id string }

func (u *user) Subject() string { return u.id }

type loginIn struct {
	User     string            `json:"user"`
	Password string            `json:"password"`
	APIKey   string            `json:"api_key"`
	Note     string            `json:"note" audit:"redact"`
	Blob     string            `json:"blob,omitempty" audit:"omit"`
	Keyword  string            `json:"keyword,omitempty" audit:"keep"`
	Config   map[string]string `json:"config,omitempty"`
	Nested   struct {
		Token string `json:"token"`
		Depth int    `json:"depth"`
	} `json:"nested"`
	Items    []struct{ Secret, Name string } `json:"items,omitempty"`
	Freeform string                          `json:"freeform,omitempty"`
	Link     string                          `json:"link,omitempty"`
}

func server() *mcp.Server {
	srv := mcp.NewServer(mcp.Options{Name: "audited", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler),
		Authenticate: func(r *http.Request) (any, error) {
			tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if !ok {
				return nil, nil
			}
			if tok != bearerToken {
				return nil, mcp.ErrUnauthorized
			}
			return &user{id: "alice"}, nil
		}})
	mcp.AddTool(srv, mcp.Tool{Name: "login"}, func(ctx context.Context, c *mcp.Context, in loginIn) (string, error) {
		if in.User == "fail" {
			return "", errors.New("upstream said " + errorSecret)
		}
		return "session " + resultSecret, nil
	})
	srv.AddRawTool(mcp.Tool{Name: "raw"}, func(ctx context.Context, c *mcp.Context, args json.RawMessage) (*mcp.ContentResult, error) {
		return &mcp.ContentResult{Content: []mcp.Content{mcp.TextContent{Text: "ok"}}}, nil
	})
	srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "https://api.example/data{?api_key,page}", Name: "data",
		Load: func(ctx context.Context, c *mcp.Context, args map[string]string) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{URI: "https://api.example/data", Text: resultSecret}}, nil
		}})
	srv.AddPrompt(mcp.Prompt{Name: "greet", Arguments: []mcp.PromptArgument{{Name: "name"}, {Name: "password"}},
		Load: func(ctx context.Context, c *mcp.Context, args map[string]string) (*mcp.PromptResult, error) {
			return &mcp.PromptResult{Messages: []mcp.PromptMessage{{Role: "user", Content: mcp.TextContent{Text: "hi " + args["name"]}}}}, nil
		}})
	return srv
}

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// events decodes the JSON lines of the trail's slog output.
func events(t *testing.T, out string) []map[string]any {
	var evs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &m), line)
		evs = append(evs, m)
	}
	return evs
}

// TestNoSecretInTheTrail plants secrets everywhere a call carries them (the
// bearer token, a refresh token in a header, typed arguments named like
// secrets or tagged audit:"redact", a map key, nested and repeated
// members, credentials in free text, a URL's query and password, a raw
// tool's and a prompt's arguments, an unknown tool's arguments, a result
// and an error message) and searches the whole output of the trail, slog
// and sink alike, for each of them.
func TestNoSecretInTheTrail(t *testing.T) {
	t.Parallel()
	var out syncBuf
	var mu sync.Mutex
	var sunk []*audit.Event
	trail := audit.New(&audit.Options{Logger: slog.New(slog.NewJSONHandler(&out, nil)),
		Sinks: []audit.Sink{func(_ context.Context, e *audit.Event) { mu.Lock(); sunk = append(sunk, e); mu.Unlock() }}})
	h := mcphttp.New(server(), nil)
	t.Cleanup(func() { _ = h.Close() })
	ctx := context.Background()
	hdr := http.Header{"Authorization": {"Bearer " + bearerToken}, "X-Refresh-Token": {refreshToken}}
	c, err := client.Connect(ctx, client.InProcess(trail.Middleware(h), hdr), nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })

	res, err := c.CallTool(ctx, "login", map[string]any{
		"user": "alice", "password": password, "api_key": apiKey, "note": noteSecret, "blob": "omitted-blob",
		"keyword": "token-ish but kept", "config": map[string]string{"client_secret": mapSecret, "region": "eu"},
		"nested":   map[string]any{"token": nestedToken, "depth": 2},
		"items":    []map[string]string{{"Secret": itemSecret, "Name": "first"}},
		"freeform": "use Bearer " + bearerToken + " and " + ghToken, "link": "https://bob:" + urlPass + "@h.example/x?access_token=" + apiKey + "&page=2",
	}, nil)
	require.NoError(t, err)
	require.False(t, res.IsError, res.Text())
	res, err = c.CallTool(ctx, "login", map[string]any{"user": "fail", "password": password, "freeform": jwt}, nil)
	require.NoError(t, err)
	require.True(t, res.IsError)
	_, err = c.CallTool(ctx, "raw", map[string]any{"password": rawPass, "plain": "visible"}, nil)
	require.NoError(t, err)
	_, err = c.CallTool(ctx, "nosuchtool", map[string]any{"password": unknownPass, "user": "x"}, nil)
	require.Error(t, err)
	_, err = c.ReadResource(ctx, "https://api.example/data?api_key="+uriKey+"&page=3")
	require.NoError(t, err)
	_, err = c.GetPrompt(ctx, "greet", map[string]string{"name": "Ada", "password": promptPass})
	require.NoError(t, err)
	_, err = c.ListTools(ctx) // not audited
	require.NoError(t, err)

	all := out.String()
	mu.Lock()
	sinkJSON, err := json.Marshal(sunk)
	mu.Unlock()
	require.NoError(t, err)
	for _, s := range planted {
		assert.NotContains(t, all, s, "slog output")
		assert.NotContains(t, string(sinkJSON), s, "sink events")
	}
	assert.NotContains(t, all, "omitted-blob")

	evs := events(t, all)
	require.Len(t, evs, 6, "one event per call:\n%s", all)
	first := evs[0]
	assert.Equal(t, "mcp.audit", first["msg"])
	assert.Equal(t, "sub:alice", first["caller"])
	assert.Equal(t, "tools/call", first["method"])
	assert.Equal(t, "tool", first["kind"])
	assert.Equal(t, "login", first["name"])
	assert.Equal(t, "ok", first["outcome"])
	args := first["arguments"].(map[string]any)
	assert.Equal(t, "alice", args["user"])
	assert.Equal(t, audit.Redacted, args["password"])
	assert.Equal(t, audit.Redacted, args["api_key"])
	assert.Equal(t, audit.Redacted, args["note"], "tagged audit:\"redact\"")
	assert.NotContains(t, args, "blob", "tagged audit:\"omit\"")
	assert.Equal(t, "token-ish but kept", args["keyword"], "tagged audit:\"keep\"")
	assert.Equal(t, map[string]any{"client_secret": audit.Redacted, "region": "eu"}, args["config"])
	assert.Equal(t, map[string]any{"token": audit.Redacted, "depth": float64(2)}, args["nested"])
	assert.Equal(t, []any{map[string]any{"Secret": audit.Redacted, "Name": "first"}}, args["items"])
	assert.Equal(t, audit.Redacted, args["freeform"], "a bearer token in free text")
	assert.Contains(t, args["link"], "page=2")
	assert.Contains(t, args["link"], "access_token=REDACTED")

	assert.Equal(t, "tool_error", evs[1]["outcome"])
	assert.Equal(t, map[string]any{"password": audit.Redacted, "plain": "visible"}, evs[2]["arguments"], "a raw tool: by name")
	assert.Equal(t, "error", evs[3]["outcome"])
	assert.Equal(t, float64(mcp.CodeInvalidParams), evs[3]["error_code"])
	assert.Equal(t, map[string]any{"password": audit.Withheld, "user": audit.Withheld}, evs[3]["arguments"], "an unknown tool's")
	assert.Equal(t, "resource", evs[4]["kind"])
	assert.Equal(t, "https://api.example/data?api_key=REDACTED&page=3", evs[4]["name"])
	assert.Equal(t, map[string]any{"name": "Ada", "password": audit.Redacted}, evs[5]["arguments"])
	for _, e := range evs {
		assert.Contains(t, e, "duration_ms")
		assert.Contains(t, e, "request_id")
	}
}

// TestAuditCallers: the caller of an event is its identity key, anonymous,
// or opaque; a denied or elicitation-bound call is recorded with its
// outcome; the client's trace context is the event's.
func TestAuditCallers(t *testing.T) {
	t.Parallel()
	var out syncBuf
	trail := audit.New(&audit.Options{Logger: slog.New(slog.NewJSONHandler(&out, nil))})
	srv := mcp.NewServer(mcp.Options{Name: "a", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler),
		Authenticate: func(r *http.Request) (any, error) {
			switch r.Header.Get("Authorization") {
			case "Bearer alice":
				return &user{id: "alice"}, nil
			case "Bearer opaque":
				return struct{ tok string }{"x"}, nil
			}
			return nil, nil
		}})
	mcp.AddTool(srv, mcp.Tool{Name: "open"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		return "", elicit.URLRequired(elicit.URLRequest{ID: "e1", URL: "https://example.com/x", Message: "open it"})
	})
	h := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = h.Close() })
	ctx := context.Background()
	for _, who := range []string{"alice", "opaque", ""} {
		hdr := http.Header{}
		if who != "" {
			hdr.Set("Authorization", "Bearer "+who)
		}
		c, err := client.Connect(ctx, client.InProcess(trail.Middleware(h), hdr), &client.Options{
			ElicitURL: func(context.Context, *elicit.Params) (*elicit.Result, error) {
				return &elicit.Result{Action: elicit.ActionAccept}, nil
			}})
		require.NoError(t, err)
		_, err = c.CallTool(ctx, "open", nil, &client.CallOptions{Meta: map[string]any{
			"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}})
		require.Error(t, err)
		_ = c.Close()
	}
	evs := events(t, out.String())
	require.Len(t, evs, 3)
	for i, want := range []string{"sub:alice", "opaque", "anonymous"} {
		assert.Equal(t, want, evs[i]["caller"])
		assert.Equal(t, "elicitation_required", evs[i]["outcome"])
		assert.Equal(t, float64(mcp.CodeURLElicitationRequired), evs[i]["error_code"])
		assert.Equal(t, "4bf92f3577b34da6a3ce929d0e0e4736", evs[i]["trace_id"])
		assert.Equal(t, "00f067aa0ba902b7", evs[i]["span_id"])
	}
}

func TestSecretName(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		"password": true, "userPassword": true, "refresh_token": true, "X-Api-Key": true, "apiKey": true,
		"client_secret": true, "Authorization": true, "auth_header": true, "sessionId": true, "otp": true,
		"key": true, "private_key": true, "cookie": true, "pin": true, "zip_code": true, "signingKey": true,
		"author": false, "shipping": false, "primary_key": false, "keyword": false, "name": false, "region": false,
		"description": false, "spinner": false, "monkey": false,
	} {
		assert.Equal(t, want, audit.SecretName(name), name)
	}
}

// TestAuditLogInjection: what a caller sends (a tool's name, a map key, a
// free-text value) cannot forge or break up records in the trail: with the
// text and the JSON handlers alike, each call is one line whose caller and
// outcome are the trail's, with a newline, a quote, a terminal escape or
// a forged "key=value" inside; a name cut at its bound stays valid UTF-8.
func TestAuditLogInjection(t *testing.T) {
	t.Parallel()
	forged := "x\nlevel=ERROR msg=forged caller=sub:root outcome=ok\x1b[2K\r\"}\n{\"msg\":\"forged\""
	var text, js syncBuf
	var names []string
	var mu sync.Mutex
	sink := func(_ context.Context, e *audit.Event) { mu.Lock(); names = append(names, e.Name); mu.Unlock() }
	t1 := audit.New(&audit.Options{Logger: slog.New(slog.NewTextHandler(&text, nil)), Sinks: []audit.Sink{sink}})
	t2 := audit.New(&audit.Options{Logger: slog.New(slog.NewJSONHandler(&js, nil))})
	h := mcphttp.New(server(), nil)
	t.Cleanup(func() { _ = h.Close() })
	ctx := context.Background()
	c, err := client.Connect(ctx, client.InProcess(t1.Middleware(t2.Middleware(h)), nil), nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	_, err = c.CallTool(ctx, forged, nil, nil)
	require.Error(t, err, "an unknown tool")
	_, err = c.CallTool(ctx, "login", map[string]any{"user": "bob", "freeform": forged, "config": map[string]string{forged: "v"}}, nil)
	require.NoError(t, err)
	long := "a" + strings.Repeat("é", 300)
	_, err = c.CallTool(ctx, long, nil, nil)
	require.Error(t, err)

	lines := strings.Split(strings.TrimSpace(text.String()), "\n")
	require.Len(t, lines, 3, text.String())
	for _, l := range lines {
		assert.True(t, strings.HasPrefix(l, "time="), l)
		assert.Contains(t, l, " caller=anonymous ", l)
		assert.NotContains(t, l, "\x1b", "a terminal escape is quoted")
	}
	evs := events(t, js.String())
	require.Len(t, evs, 3)
	assert.Equal(t, forged, evs[0]["name"])
	assert.Equal(t, "error", evs[0]["outcome"])
	for _, e := range evs {
		assert.Equal(t, "mcp.audit", e["msg"])
		assert.Equal(t, "anonymous", e["caller"])
	}
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, names, 3)
	assert.True(t, utf8.ValidString(names[2]), "cut on a character boundary")
	assert.LessOrEqual(t, len(names[2]), 512)
}

// TestAuditThroughToolSearch: a call made through tool search's call_tool
// is recorded under the tool that ran, with its arguments redacted by
// that tool's own input type, whichever middleware is outside.
func TestAuditThroughToolSearch(t *testing.T) {
	t.Parallel()
	srv := server()
	s, err := toolsearch.New(srv, nil)
	require.NoError(t, err)
	h := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = h.Close() })
	for name, wrap := range map[string]func(*audit.Trail) http.Handler{
		"trail outside": func(tr *audit.Trail) http.Handler { return tr.Middleware(s.Middleware(h)) },
		"trail inside":  func(tr *audit.Trail) http.Handler { return s.Middleware(tr.Middleware(h)) },
	} {
		var out syncBuf
		tr := audit.New(&audit.Options{Logger: slog.New(slog.NewJSONHandler(&out, nil))})
		ctx := context.Background()
		c, err := client.Connect(ctx, client.InProcess(wrap(tr), nil), nil)
		require.NoError(t, err)
		res, err := c.CallTool(ctx, toolsearch.DefaultCallTool, map[string]any{"name": "login",
			"arguments": map[string]any{"user": "bob", "password": password, "api_key": apiKey, "note": noteSecret,
				"nested": map[string]any{"token": nestedToken, "depth": 1}}}, nil)
		require.NoError(t, err)
		require.False(t, res.IsError, res.Text())
		_ = c.Close()
		evs := events(t, out.String())
		require.Len(t, evs, 1, name)
		assert.Equal(t, "login", evs[0]["name"], name)
		args, _ := evs[0]["arguments"].(map[string]any)
		assert.Equal(t, "bob", args["user"], name)
		assert.Equal(t, audit.Redacted, args["password"], name)
		for _, p := range []string{password, apiKey, noteSecret, nestedToken} {
			assert.NotContains(t, out.String(), p, name)
		}
	}
}
