package mcphttp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/justinas/alice"
	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/discovery"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type caller struct{ Name string }

func (c caller) Subject() string { return c.Name }

type tenantKey struct{}

// Tenant is the app's own middleware of the mount example in docs/transports.md.
func Tenant(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t := r.Header.Get("X-Tenant")
		if t == "" {
			t = "public"
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), tenantKey{}, t)))
	})
}

// tokenAuth admits "Bearer ada", refuses a missing or unknown token
// (401), lacks a scope for "Bearer reader" (403) and fails outright for
// "Bearer broken" (500). Its errors carry text that must never reach a
// client.
func tokenAuth(calls *atomic.Int32) mcp.AuthFunc {
	return func(r *http.Request) (any, error) {
		calls.Add(1)
		switch v := r.Header.Get("Authorization"); v {
		case "":
			return nil, fmt.Errorf("%w: no bearer token", mcp.ErrUnauthorized)
		case "Bearer ada":
			return caller{Name: "ada"}, nil
		case "Bearer reader":
			return nil, fmt.Errorf("%w: token of reader lacks tools:call", mcp.ErrInsufficientScope)
		case "Bearer broken":
			return nil, errors.New("token store at 10.0.0.7:6379 is down")
		default:
			return nil, fmt.Errorf("%w: unknown token %q (sekrit-detail)", mcp.ErrUnauthorized, v)
		}
	}
}

const exampleResource = "https://mcp.example.com/api/mcp"

const wantChallenge = `Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/api/mcp"`

// newAuthServer is a server with Authenticate set and protected-resource
// metadata, whose whoami tool reports the caller and the tenant.
func newAuthServer(t testing.TB, calls *atomic.Int32, log io.Writer) *mcp.Server {
	t.Helper()
	srv := mcp.NewServer(mcp.Options{Name: "auth", Version: "1.0.0",
		Logger:       slog.New(slog.NewJSONHandler(log, nil)),
		Authenticate: tokenAuth(calls),
	})
	mcp.AddTool(srv, mcp.Tool{Name: "whoami"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		who, _ := c.Session.(caller)
		tenant, _ := ctx.Value(tenantKey{}).(string)
		return "caller=" + who.Name + " tenant=" + tenant, nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "session_id"}, func(_ context.Context, c *mcp.Context, _ struct{}) (string, error) {
		return c.SessionID, nil
	})
	return srv
}

// authOptions are the handler options of newAuthServer's server: its
// protected-resource metadata, which names the challenge.
func authOptions() *mcphttp.Options {
	return &mcphttp.Options{OAuth: &discovery.Options{Enabled: true, ProtectedResource: &discovery.ProtectedResourceMetadata{
		Resource: exampleResource, AuthorizationServers: []string{"https://auth.example.com"}}}}
}

const initAuthBody = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1.0.0"}}}`

// TestMountedHandlerEnforcesAuth mounts mcphttp.New exactly as docs/transports.md
// does, with Options.Authenticate set: the handler must run the check
// itself, once per request, and fail closed.
func TestMountedHandlerEnforcesAuth(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		authorization string
		wantStatus    int
		wantError     string // the "error" member of the refusal
		wantChallenge string
		wantLog       string
	}{
		{name: "no token", wantStatus: http.StatusUnauthorized, wantError: "unauthorized",
			wantChallenge: wantChallenge, wantLog: "no bearer token"},
		{name: "bad token", authorization: "Bearer mallory", wantStatus: http.StatusUnauthorized, wantError: "invalid_token",
			wantChallenge: wantChallenge + `, error="invalid_token"`, wantLog: "sekrit-detail"},
		{name: "token without the scope", authorization: "Bearer reader", wantStatus: http.StatusForbidden, wantError: "insufficient_scope",
			wantChallenge: wantChallenge + `, error="insufficient_scope"`, wantLog: "lacks tools:call"},
		{name: "the check itself fails", authorization: "Bearer broken", wantStatus: http.StatusInternalServerError, wantError: "server_error",
			wantLog: "10.0.0.7:6379 is down"},
		{name: "good token", authorization: "Bearer ada", wantStatus: http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var calls atomic.Int32
			var logs wiretest.SyncBuffer
			srv := newAuthServer(t, &calls, &logs)
			h := mcphttp.New(srv, authOptions())
			mux := http.NewServeMux()
			mux.Handle("/api/mcp", alice.New(middleware.Recover(nil), Tenant).Then(h)) // the guide's line
			ts := httptest.NewServer(mux)
			t.Cleanup(func() { ts.Close(); _ = h.Close() })
			c := &httpClient{t: t, url: ts.URL + "/api/mcp", hc: ts.Client()}

			resp, body := c.do(http.MethodPost, initAuthBody, "Authorization", tt.authorization, "X-Tenant", "acme")
			require.Equal(t, tt.wantStatus, resp.StatusCode, "%s", body)
			assert.EqualValues(t, 1, calls.Load(), "the check runs exactly once per request")
			if tt.wantStatus != http.StatusOK {
				assert.Equal(t, tt.wantChallenge, resp.Header.Get("WWW-Authenticate"))
				assert.Empty(t, resp.Header.Get("Mcp-Session-Id"), "no session for a refused caller")
				assert.Zero(t, h.SessionCount())
				var refusal map[string]string
				require.NoError(t, json.Unmarshal(body, &refusal), "%s", body)
				assert.Equal(t, tt.wantError, refusal["error"])
				for _, secret := range []string{"sekrit", "10.0.0.7", "lacks", "no bearer"} {
					assert.NotContains(t, string(body), secret, "the error's own text must not reach the client")
				}
				assert.Contains(t, logs.String(), tt.wantLog, "the reason is logged")
				// Nothing else of the endpoint is reachable either.
				resp, _ = c.do(http.MethodGet, "", "Authorization", tt.authorization, "Accept", "text/event-stream")
				assert.Equal(t, tt.wantStatus, resp.StatusCode, "GET")
				return
			}
			c.sid = resp.Header.Get("Mcp-Session-Id")
			require.NotEmpty(t, c.sid)
			c.version = "2025-06-18"
			status, _ := c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, "Authorization", tt.authorization)
			require.Equal(t, http.StatusAccepted, status)
			status, msgs := c.post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`,
				"Authorization", tt.authorization, "X-Tenant", "acme")
			require.Equal(t, http.StatusOK, status)
			require.NotEmpty(t, msgs)
			assert.Equal(t, "caller=ada tenant=acme", wiretest.ToolResult(t, msgs[len(msgs)-1]).Text())
			assert.EqualValues(t, 3, calls.Load(), "one check per request")

			// The session is bound to ada: no token on it is refused first.
			resp, _ = c.do(http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
			assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
		})
	}
}

// TestHandlerAuthenticateRunsOnce: with the handler's own Authenticate
// put first in the chain (and with NewMux, which does so), the user's
// middleware sees the caller and the check still runs once.
func TestHandlerAuthenticateRunsOnce(t *testing.T) {
	t.Parallel()
	var seen atomic.Value
	peek := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			seen.Store(fmt.Sprint(mcp.AuthFromContext(r.Context())))
			next.ServeHTTP(w, r)
		})
	}
	tests := []struct {
		name  string
		build func(h *mcphttp.Handler) (http.Handler, string)
	}{
		{"Authenticate first in the user's chain", func(h *mcphttp.Handler) (http.Handler, string) {
			mux := http.NewServeMux()
			mux.Handle("/api/mcp", alice.New(middleware.Recover(nil), h.AuthMiddleware, Tenant, peek).Then(h))
			return mux, "/api/mcp"
		}},
		{"NewMux", func(h *mcphttp.Handler) (http.Handler, string) {
			return mcphttp.NewMux(h, &mcphttp.MuxOptions{Middleware: []func(http.Handler) http.Handler{Tenant, peek}}), "/mcp"
		}},
		{"NewMux under a prefix", func(h *mcphttp.Handler) (http.Handler, string) {
			mux := http.NewServeMux()
			mux.Handle("/app/", http.StripPrefix("/app", mcphttp.NewMux(h, &mcphttp.MuxOptions{Middleware: []func(http.Handler) http.Handler{Tenant, peek}})))
			return mux, "/app/mcp"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var calls atomic.Int32
			h := mcphttp.New(newAuthServer(t, &calls, io.Discard), authOptions())
			handler, path := tt.build(h)
			ts := httptest.NewServer(handler)
			t.Cleanup(func() { ts.Close(); _ = h.Close() })
			c := &httpClient{t: t, url: ts.URL + path, hc: ts.Client()}

			resp, _ := c.do(http.MethodPost, initAuthBody)
			require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
			assert.Equal(t, wantChallenge, resp.Header.Get("WWW-Authenticate"))
			assert.EqualValues(t, 1, calls.Load())

			resp, body := c.do(http.MethodPost, initAuthBody, "Authorization", "Bearer ada", "X-Tenant", "acme")
			require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
			assert.EqualValues(t, 2, calls.Load(), "the handler must not check a second time")
			assert.Equal(t, "{ada}", seen.Load(), "the user's middleware sees the caller")
		})
	}
}

// fakeProvider is an AuthProvider that knows its discovery documents.
type fakeProvider struct{ calls *atomic.Int32 }

func (p fakeProvider) VerifyRequest(r *http.Request) (any, error) { return tokenAuth(p.calls)(r) }
func (p fakeProvider) Mount(mux *http.ServeMux) {
	mux.HandleFunc("GET /oauth/authorize", func(w http.ResponseWriter, r *http.Request) {})
}
func (p fakeProvider) OAuthMetadata() *discovery.Options {
	return &discovery.Options{Enabled: true, ProtectedResource: &discovery.ProtectedResourceMetadata{
		Resource: exampleResource, AuthorizationServers: []string{"https://auth.example.com"}}}
}

// TestAuthProviderConfiguresChallenge: with Options.Auth (and no
// Options.OAuth), the provider's metadata names the challenge and NewMux
// serves its document; the bare handler enforces the provider's check.
func TestAuthProviderConfiguresChallenge(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := mcp.NewServer(mcp.Options{Name: "p", Version: "1.0.0", Logger: discardLogger(), Auth: fakeProvider{&calls}})
	h := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = h.Close() })

	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", strings.NewReader(initAuthBody)))
	assert.Equal(t, http.StatusUnauthorized, rec.Code, "the bare handler runs the provider's check")
	assert.Equal(t, wantChallenge, rec.Header().Get("WWW-Authenticate"))

	rec = httptest.NewRecorder()
	mcphttp.NewMux(h, nil).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/.well-known/oauth-protected-resource/api/mcp", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	assert.Contains(t, rec.Body.String(), exampleResource)
}

// stdioClient drives Start's stdio transport over pipes.
type stdioClient struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *bufio.Scanner
	inst *mcphttp.Instance
}

func startStdio(t *testing.T, srv *mcp.Server, opts mcphttp.StartOptions) *stdioClient {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	opts.Stdin, opts.Stdout = inR, outW
	inst, err := mcphttp.Start(context.Background(), srv, &opts)
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = inW.Close()
		_ = outR.Close() // unblocks a write nobody reads any more
		_ = inst.Close()
	})
	sc := bufio.NewScanner(outR)
	sc.Buffer(nil, 1<<20)
	return &stdioClient{t: t, in: inW, out: sc, inst: inst}
}

// roundTrip sends a request line and returns the response with its id.
func (c *stdioClient) roundTrip(line string, id string) msg {
	c.t.Helper()
	_, err := io.WriteString(c.in, line+"\n")
	require.NoError(c.t, err)
	for c.out.Scan() {
		var m msg
		require.NoError(c.t, json.Unmarshal(c.out.Bytes(), &m), "%s", c.out.Bytes())
		if m.IsResponse() && string(m.ID) == id {
			return m
		}
	}
	c.t.Fatalf("no response %s: %v", id, c.out.Err())
	return msg{}
}

// TestStdioAuth: Start's stdio transport runs the server's check on the
// Header credentials; a refusal is a JSON-RPC error with a plain message,
// its reason logged.
func TestStdioAuth(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		authorization string
		wantMessage   string
		wantLog       string
	}{
		{"no token", "", "Unauthorized: the request needs valid credentials", "no bearer token"},
		{"bad token", "Bearer mallory", "Unauthorized: the credentials were refused (invalid, expired or revoked)", "sekrit-detail"},
		{"token without the scope", "Bearer reader", "Forbidden: the credentials do not grant the scope this request needs", "lacks tools:call"},
		{"the check itself fails", "Bearer broken", "Internal Server Error: the credentials could not be checked", "10.0.0.7:6379 is down"},
		{"good token", "Bearer ada", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var calls atomic.Int32
			var logs wiretest.SyncBuffer
			header := http.Header{"X-Tenant": {"acme"}}
			if tt.authorization != "" {
				header.Set("Authorization", tt.authorization)
			}
			c := startStdio(t, newAuthServer(t, &calls, &logs), mcphttp.StartOptions{
				Header: header, Middleware: []func(http.Handler) http.Handler{Tenant}})
			m := c.roundTrip(initAuthBody, "0")
			if tt.wantMessage != "" {
				assert.EqualValues(t, 1, calls.Load(), "initialize is checked once, and a refused session opens no stream")
				require.NotNil(t, m.Error, "a refused caller gets an error")
				assert.Equal(t, tt.wantMessage, m.Error.Message, "a plain message")
				assert.Contains(t, logs.String(), tt.wantLog, "the reason is logged")
				for _, secret := range []string{"sekrit", "10.0.0.7", "lacks"} {
					assert.NotContains(t, m.Error.Message, secret)
				}
				return
			}
			require.Nil(t, m.Error, "%+v", m.Error)
			// Once initialize is answered, the adapter opens the session's
			// stream, a request of its own that is checked too, at a moment
			// of its own: one check at least so far.
			assert.GreaterOrEqual(t, calls.Load(), int32(1))
			res := c.roundTrip(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`, "1")
			assert.Equal(t, "caller=ada tenant=acme", wiretest.ToolResult(t, res).Text())
			res = c.roundTrip(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"session_id","arguments":{}}}`, "2")
			assert.NotEmpty(t, wiretest.ToolResult(t, res).Text(), "Context.SessionID is set on stdio")
		})
	}
}

// TestSessionAuthWithServerAuthIsRefused: fixed local auth data cannot
// stand in for the server's own check.
func TestSessionAuthWithServerAuthIsRefused(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := newAuthServer(t, &calls, io.Discard)
	_, err := mcphttp.Start(context.Background(), srv, &mcphttp.StartOptions{SessionAuth: caller{Name: "root"}})
	require.ErrorIs(t, err, mcphttp.ErrSessionAuthWithAuth)
	assert.Contains(t, err.Error(), "StartOptions.SessionAuth")
	h := mcphttp.New(srv, nil)
	defer h.Close()
	local, err := mcphttp.Local(h, caller{Name: "root"})
	require.ErrorIs(t, err, mcphttp.ErrSessionAuthWithAuth)
	assert.Nil(t, local, "no handler to serve with")
	assert.Contains(t, err.Error(), "mcphttp.Local: auth")
	assert.Zero(t, calls.Load())
}

// TestInProcessAuth: an in-process client (client.InProcess through
// mcphttp.Local) gets the server's check on its header's credentials; a
// refusal is an *mcp.Error with a plain message.
func TestInProcessAuth(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		authorization string
		wantMessage   string
	}{
		{"no token", "", "Unauthorized: the request needs valid credentials"},
		{"bad token", "Bearer mallory", "Unauthorized: the credentials were refused (invalid, expired or revoked)"},
		{"token without the scope", "Bearer reader", "Forbidden: the credentials do not grant the scope this request needs"},
		{"the check itself fails", "Bearer broken", "Internal Server Error: the credentials could not be checked"},
		{"good token", "Bearer ada", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			var calls atomic.Int32
			header := http.Header{"X-Tenant": {"acme"}}
			if tt.authorization != "" {
				header.Set("Authorization", tt.authorization)
			}
			h := mcphttp.New(newAuthServer(t, &calls, io.Discard), authOptions())
			defer h.Close()
			local, err := mcphttp.Local(h, nil, Tenant)
			require.NoError(t, err)
			e, err := client.Connect(ctx, client.InProcess(local, header), nil)
			if tt.wantMessage != "" {
				var je *mcp.Error
				require.ErrorAs(t, err, &je)
				assert.Equal(t, tt.wantMessage, je.Message)
				assert.EqualValues(t, 1, calls.Load())
				return
			}
			require.NoError(t, err)
			defer e.Close()
			res, err := e.CallTool(ctx, "whoami", nil, nil)
			require.NoError(t, err)
			assert.Equal(t, "caller=ada tenant=acme", res.Text())
		})
	}
}

// TestStartWaitNilOnEndOfInput: the README's hello ends when the client
// closes stdin, and Wait then reports a clean end.
func TestStartWaitNilOnEndOfInput(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Options{Name: "hello", Version: "1.0.0", Logger: discardLogger()})
	c := startStdio(t, srv, mcphttp.StartOptions{})
	m := c.roundTrip(initAuthBody, "0")
	require.Nil(t, m.Error)
	require.NoError(t, c.in.Close())
	done := make(chan error, 1)
	go func() { done <- c.inst.Wait() }()
	select {
	case err := <-done:
		assert.NoError(t, err, "a clean end of input is not an error")
	case <-time.After(5 * time.Second):
		t.Fatal("Wait did not return after stdin ended")
	}
}

// TestDiscoveryUnderPrefix: with NewMux mounted under /api by
// http.StripPrefix, the 401 challenge points at the RFC 9728 path of the
// resource (/.well-known/oauth-protected-resource/api/mcp, at the host's
// root). The recipe's second line, the same mux at /.well-known/, serves
// the document there (and the RFC 8414 one of an issuer under /api);
// without it the client following the challenge gets 404.
func TestDiscoveryUnderPrefix(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name      string
		wellKnown bool
		want      int
	}{
		{"with the well-known line", true, http.StatusOK},
		{"prefix alone", false, http.StatusNotFound},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			parent := http.NewServeMux()
			ts := httptest.NewUnstartedServer(parent)
			base := "http://" + ts.Listener.Addr().String()
			srv := mcp.NewServer(mcp.Options{Name: "prefixed", Version: "1.0.0", Logger: discardLogger(),
				Authenticate: func(*http.Request) (any, error) { return nil, mcp.ErrUnauthorized }})
			h := mcphttp.New(srv, &mcphttp.Options{OAuth: &discovery.Options{Enabled: true,
				ProtectedResource:   &discovery.ProtectedResourceMetadata{Resource: base + "/api/mcp", AuthorizationServers: []string{base + "/api"}},
				AuthorizationServer: &discovery.AuthorizationServerMetadata{Issuer: base + "/api", AuthorizationEndpoint: base + "/api/authorize", TokenEndpoint: base + "/api/token"},
			}})
			m := mcphttp.NewMux(h, nil)
			parent.Handle("/api/", http.StripPrefix("/api", m))
			if tt.wellKnown {
				parent.Handle("/.well-known/", m)
			}
			ts.Start()
			t.Cleanup(func() { _ = h.Close(); ts.Close() })

			req := wiretest.NewRequest(t.Context(), http.MethodPost, base+"/api/mcp",
				`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
			resp, _, err := wiretest.Do(ts.Client(), req)
			require.NoError(t, err)
			require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
			found := regexp.MustCompile(`resource_metadata="([^"]+)"`).FindStringSubmatch(resp.Header.Get("WWW-Authenticate"))
			require.NotNil(t, found, "the challenge names the metadata: %q", resp.Header.Get("WWW-Authenticate"))
			require.Equal(t, base+"/.well-known/oauth-protected-resource/api/mcp", found[1], "RFC 9728: the well-known path, then the resource's path")

			var doc discovery.ProtectedResourceMetadata
			assert.Equal(t, tt.want, getJSON(t, ts.Client(), found[1], &doc))
			if tt.want != http.StatusOK {
				return
			}
			assert.Equal(t, base+"/api/mcp", doc.Resource, "the document names the resource the client asked for")
			require.Len(t, doc.AuthorizationServers, 1)
			var as discovery.AuthorizationServerMetadata
			// RFC 8414 §3.1: the issuer's path after the well-known path.
			require.Equal(t, http.StatusOK, getJSON(t, ts.Client(), base+"/.well-known/oauth-authorization-server/api", &as))
			assert.Equal(t, doc.AuthorizationServers[0], as.Issuer)
		})
	}
}

// getJSON GETs url and decodes a 200 answer into v; it returns the status.
func getJSON(t *testing.T, hc *http.Client, url string, v any) int {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	require.NoError(t, err)
	resp, err := hc.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	if resp.StatusCode == http.StatusOK {
		require.NoError(t, json.Unmarshal(body, v), "%s", body)
	}
	return resp.StatusCode
}
