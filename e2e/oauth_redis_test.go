package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/internal/redistest"
)

// TestOAuthRedis runs two examples/oauth replicas on one real redis-server
// behind a load balancer, the way they are deployed: one public base URL
// (the balancer's), the same JWT signing and encryption keys. A login whose
// requests alternate between the replicas completes; a token minted by A
// is accepted by B (tools/call whoami on B); a refresh token used at A is
// refused at B, and that reuse revokes the login on both. A third replica
// with other keys on the same Redis refuses A's token cleanly.
func TestOAuthRedis(t *testing.T) {
	oauthBinary(t)
	up := newUpstream(t, "codehost")
	redisURL := "redis://" + redistest.Start(t) + "/0"

	lb := &balancer{tr: &http.Transport{}}
	t.Cleanup(lb.tr.CloseIdleConnections)
	front := httptest.NewServer(lb)
	t.Cleanup(front.Close)
	base := front.URL

	env := up.env()
	env["MCP_BASE_URL"] = base
	env["REDIS_URL"] = redisURL
	env["OAUTH_JWT_SIGNING_KEY"] = "signing-key-shared-by-the-replicas-0123456789"
	env["OAUTH_ENCRYPTION_KEY"] = "encryption-key-shared-by-the-replicas-01234567"
	a := startOAuthServer(t, freePort(t), env)
	b := startOAuthServer(t, freePort(t), env)
	other := map[string]string{}
	for k, v := range env {
		other[k] = v
	}
	other["OAUTH_JWT_SIGNING_KEY"] = "a-different-signing-key-of-another-deployment"
	other["OAUTH_ENCRYPTION_KEY"] = "a-different-encryption-key-of-another-deployment"
	c := startOAuthServer(t, freePort(t), other)
	lb.set(t, a.URL, b.URL)
	for _, s := range []*oauthServer{a, b} {
		assert.Eventually(t, func() bool { return strings.Contains(s.stderr.String(), "storage=redis") },
			5*time.Second, 20*time.Millisecond, "each replica says it stores on Redis")
	}

	// Register on A; every later step of the login alternates A, B, A, …
	redirect := "http://127.0.0.1:9/cb"
	lb.pin.Store(0)
	clientID := registerPublicClient(t, base, redirect)
	lb.pin.Store(-1)
	authURL, verifier := authorizeURL(base, clientID, redirect, "st")
	back := newFormBrowser(t).login(authURL, redirect)
	require.NotEmpty(t, back.Query().Get("code"), "a login spread over both replicas completes: %s", back)
	assert.GreaterOrEqual(t, lb.hits[0].Load(), int64(2), "A served part of the login")
	assert.GreaterOrEqual(t, lb.hits[1].Load(), int64(2), "B served part of the login")

	// The token is minted by A ...
	tok := exchangeCode(t, a.URL, base+"/mcp", clientID, redirect, back.Query().Get("code"), verifier)
	// ... and accepted by B.
	who := whoamiAt(t, b.URL, tok.AccessToken)
	require.NoError(t, who.err, "B accepts A's token")
	assert.Equal(t, "codehost:"+strconv.Itoa(codeHostID), who.session["sub"])
	assert.Equal(t, codeHostUser, who.session["username"])
	assert.Equal(t, clientID, who.session["clientId"])
	// Another deployment (other keys, same Redis) refuses it.
	assert.Equal(t, http.StatusUnauthorized, statusAt(t, c.URL, tok.AccessToken), "other keys: the token is not ours")

	// A refresh at A rotates the refresh token ...
	r1 := refresh(t, a.URL, clientID, tok.RefreshToken)
	require.Equal(t, http.StatusOK, r1.Status, "refresh at A: %s %s", r1.Error, r1.Description)
	require.NoError(t, whoamiAt(t, b.URL, r1.AccessToken).err, "B accepts the refreshed token")
	// ... so the spent one is refused at B, which revokes the login everywhere.
	r2 := refresh(t, b.URL, clientID, tok.RefreshToken)
	assert.Equal(t, http.StatusBadRequest, r2.Status)
	assert.Equal(t, "invalid_grant", r2.Error)
	assert.Contains(t, r2.Description, "already used")
	assert.Equal(t, http.StatusUnauthorized, statusAt(t, a.URL, r1.AccessToken), "the login is revoked on A")
	assert.Equal(t, http.StatusUnauthorized, statusAt(t, b.URL, r1.AccessToken), "the login is revoked on B")
	r3 := refresh(t, a.URL, clientID, r1.RefreshToken)
	assert.Equal(t, "invalid_grant", r3.Error, "the newest refresh token died with the login")
}

// balancer sends each request to one replica: pin 0 or 1, or -1 to
// alternate.
type balancer struct {
	tr      *http.Transport
	targets [2]*url.URL
	pin     atomic.Int32
	n       atomic.Int64
	hits    [2]atomic.Int64
}

func (lb *balancer) set(t *testing.T, a, b string) {
	for i, s := range []string{a, b} {
		u, err := url.Parse(s)
		require.NoError(t, err)
		lb.targets[i] = u
	}
}

func (lb *balancer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	i := int(lb.pin.Load())
	if i < 0 {
		i = int(lb.n.Add(1) % 2)
	}
	lb.hits[i].Add(1)
	target := lb.targets[i]
	(&httputil.ReverseProxy{Transport: lb.tr, Rewrite: func(pr *httputil.ProxyRequest) { pr.SetURL(target) }}).ServeHTTP(w, r)
}

type whoamiResult struct {
	session map[string]any
	err     error
}

// whoamiAt connects the official Go SDK client to server/mcp with the
// bearer token and calls whoami.
func whoamiAt(t *testing.T, server, token string) whoamiResult {
	t.Helper()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	hc := &http.Client{Transport: bearerTransport{base: tr, token: token}}
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpchain-e2e-redis", Version: "0.0.1"}, nil)
	ctx := testContext(t, 10*time.Second)
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: server + "/mcp", HTTPClient: hc, MaxRetries: -1}, nil)
	if err != nil {
		return whoamiResult{err: err}
	}
	defer session.Close()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "whoami"})
	if err != nil {
		return whoamiResult{err: err}
	}
	require.False(t, res.IsError, "whoami: %s", dump(res))
	var out struct {
		Session map[string]any `json:"session"`
	}
	raw, _ := json.Marshal(res.StructuredContent)
	require.NoError(t, json.Unmarshal(raw, &out))
	return whoamiResult{session: out.Session}
}

// statusAt is the HTTP status of an initialize request with the token.
func statusAt(t *testing.T, server, token string) int {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, server+"/mcp", strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := apiClient(t).Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	if resp.StatusCode == http.StatusUnauthorized {
		assert.Contains(t, resp.Header.Get("WWW-Authenticate"), `resource_metadata=`)
	}
	return resp.StatusCode
}

type bearerTransport struct {
	base  http.RoundTripper
	token string
}

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}
