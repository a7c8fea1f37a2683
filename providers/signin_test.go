package providers

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/internal/identity"
)

// signInEnv is a proxy whose server also serves /page: it tells who its
// browser is, or signs the browser in and comes back to ?back.
func signInEnv(t *testing.T) (*OAuthProvider, string, *fakeIdP) {
	idp := newFakeIdP(t)
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	p, err := NewOAuthProvider(OAuthProviderConfig{
		Config: Config{BaseURL: ts.URL, ClientID: "up-client", ClientSecret: "up-secret", Scopes: []string{"read"},
			JWTSigningKey: strings.Repeat("k", 32), EncryptionKey: strings.Repeat("e", 32), Logger: slog.New(slog.DiscardHandler)},
		AuthorizationEndpoint: idp.URL + "/authorize", TokenEndpoint: idp.URL + "/token", UserInfoEndpoint: idp.URL + "/userinfo",
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	p.Mount(mux)
	mux.HandleFunc("GET /page", func(w http.ResponseWriter, r *http.Request) {
		if u, ok := p.BrowserUser(r); ok {
			k, _ := identity.Key(u)
			_, _ = io.WriteString(w, "signed in as "+k)
			return
		}
		p.SignIn(w, r, r.URL.Query().Get("back"))
	})
	return p, ts.URL, idp
}

func signInBrowser(t *testing.T, follow bool) *http.Client {
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	c := &http.Client{Jar: jar, Timeout: 5 * time.Second}
	if !follow {
		c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	}
	return c
}

// TestBrowserSignIn: a page of the server sends a browser without a
// sign-in to the upstream provider through Proxy.SignIn, with no consent
// page, and gets it back signed in as the same subject the user's MCP
// tokens carry (identity.Key "sub:generic:alice"); the sign-in needs the
// browser that started it (a callback replayed elsewhere is refused and
// leaves it usable by its browser), and returnTo must be a path of this
// server.
func TestBrowserSignIn(t *testing.T) {
	t.Parallel()
	p, base, idp := signInEnv(t)

	t.Run("signs in and comes back", func(t *testing.T) {
		t.Parallel()
		b := signInBrowser(t, true)
		resp, err := b.Get(base + "/page?back=" + url.QueryEscape("/page?x=1"))
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, "signed in as sub:generic:alice", string(body))
		assert.Equal(t, "/page", resp.Request.URL.Path)
		assert.Equal(t, "x=1", resp.Request.URL.RawQuery)
	})

	t.Run("another browser cannot finish it", func(t *testing.T) {
		t.Parallel()
		starter := signInBrowser(t, false)
		resp, err := starter.Get(base + "/page?back=/page")
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusSeeOther, resp.StatusCode)
		up := resp.Header.Get("Location")
		require.True(t, strings.HasPrefix(up, idp.URL), up)
		assert.NotContains(t, up, "consent")
		resp, err = starter.Get(up) // the provider answers with the callback
		require.NoError(t, err)
		resp.Body.Close()
		callback := resp.Header.Get("Location")
		require.Contains(t, callback, CallbackPath)

		other := signInBrowser(t, false)
		resp, err = other.Get(callback)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusForbidden, resp.StatusCode, "another browser's replay")
		u, _ := url.Parse(base)
		for _, c := range other.Jar.Cookies(u) {
			assert.NotEqual(t, "mcp_user", c.Name, "no sign-in for the other browser")
		}

		resp, err = starter.Get(callback)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusSeeOther, resp.StatusCode, "its own browser still finishes it")
		assert.Equal(t, base+"/page", resp.Header.Get("Location"))
		resp, err = starter.Get(callback)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "a second use of the callback")
	})

	t.Run("returnTo is a path of this server", func(t *testing.T) {
		t.Parallel()
		for _, back := range []string{"https://evil.example/", "//evil.example/x", "/\\evil.example", "", "page", "/x\r\nSet-Cookie: a=b"} {
			resp, err := signInBrowser(t, false).Get(base + "/page?back=" + url.QueryEscape(back))
			require.NoError(t, err)
			resp.Body.Close()
			assert.Equal(t, http.StatusBadRequest, resp.StatusCode, back)
		}
	})

	t.Run("a forged or stale cookie is no sign-in", func(t *testing.T) {
		t.Parallel()
		r, _ := http.NewRequest(http.MethodGet, base+"/page", nil)
		r.AddCookie(&http.Cookie{Name: "mcp_user", Value: "forged"})
		_, ok := p.BrowserUser(r)
		assert.False(t, ok)
		enc, err := p.users.Encode("mcp_user", userCookie{Sub: "generic:alice", At: time.Now().Add(-BrowserSessionTTL - time.Minute).Unix()})
		require.NoError(t, err)
		r, _ = http.NewRequest(http.MethodGet, base+"/page", nil)
		r.AddCookie(&http.Cookie{Name: "mcp_user", Value: enc})
		_, ok = p.BrowserUser(r)
		assert.False(t, ok, "older than BrowserSessionTTL")
		// The consent page never shows a sign-in's transaction.
		b := signInBrowser(t, false)
		resp, err := b.Get(base + "/page?back=/page")
		require.NoError(t, err)
		resp.Body.Close()
		up, _ := url.Parse(resp.Header.Get("Location"))
		id, _, _ := strings.Cut(up.Query().Get("state"), ".")
		resp, err = b.Get(base + ConsentPath + "?txn=" + url.QueryEscape(id))
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	})
}

func FuzzLocalPath(f *testing.F) {
	for _, s := range []string{"/a?b=c", "//evil", "/\\evil", "https://x/", "/%2F%2Fevil", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !localPath(s) {
			return
		}
		// Whatever passes, joined to the origin, stays on the origin.
		u, err := url.Parse("https://mcp.example" + s)
		if err != nil || u.Host != "mcp.example" {
			t.Fatalf("%q leaves the origin: %v", s, u)
		}
	})
}
