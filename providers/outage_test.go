package providers

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/redistest"
	"github.com/mcpchain/mcp/middleware"
)

// TestTokenChecksFailClosedInAnOutage: the proxy keeps its grants on a
// Redis that dies. While it is down, a request with a token that was
// good is refused with 503 and Retry-After (mcp.ErrAuthUnavailable:
// "retry", neither admitted nor told its token is bad, which would send
// the client through a new login), within a bound; once Redis is back
// with its data the same token is admitted again.
func TestTokenChecksFailClosedInAnOutage(t *testing.T) {
	t.Parallel()
	srv := redistest.StartServer(t)
	c := redis.NewClient(&redis.Options{Addr: srv.Addr, MaxRetries: 1, DialTimeout: time.Second,
		ReadTimeout: time.Second, WriteTimeout: time.Second, PoolTimeout: time.Second})
	t.Cleanup(func() { _ = c.Close() })
	require.NotNil(t, NewRedisStorageForTest, "the redisstorage hook is set by an external test file")
	e := newEnv(t, func(cfg *OAuthProviderConfig) { cfg.TokenStorage = NewRedisStorageForTest(c, "outage:", 0, 0) })
	reg := e.register("none")
	u := e.login(browser(t), reg)
	status, tok := e.exchange(reg, u.Query().Get("code"))
	require.Equal(t, http.StatusOK, status, tok)
	at := tok["access_token"].(string)

	// The check as a server runs it: the middleware maps its error.
	protected := middleware.CheckCredentials(e.p.VerifyRequest, nil)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	}))
	check := func() (*httptest.ResponseRecorder, time.Duration) {
		r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		r.Header.Set("Authorization", "Bearer "+at)
		w := httptest.NewRecorder()
		start := time.Now()
		protected.ServeHTTP(w, r)
		return w, time.Since(start)
	}
	w, _ := check()
	require.Equal(t, http.StatusNoContent, w.Code, w.Body.String())

	srv.Stop()
	for range 3 {
		w, took := check()
		assert.Equal(t, http.StatusServiceUnavailable, w.Code, w.Body.String())
		assert.NotEmpty(t, w.Header().Get("Retry-After"))
		assert.Empty(t, w.Header().Get("WWW-Authenticate"), "not a challenge: the token is not known to be bad")
		assert.Less(t, took, 5*time.Second)
		r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		r.Header.Set("Authorization", "Bearer "+at)
		sess, err := e.p.VerifyRequest(r)
		assert.Nil(t, sess)
		assert.ErrorIs(t, err, mcp.ErrAuthUnavailable)
		assert.NotErrorIs(t, err, mcp.ErrUnauthorized)
	}
	srv.Start()
	require.Eventually(t, func() bool { w, _ := check(); return w.Code == http.StatusNoContent },
		10*time.Second, 50*time.Millisecond, "the token is admitted again once Redis is back")
}
