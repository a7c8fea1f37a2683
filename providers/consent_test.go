package providers

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var styleNonceRE = regexp.MustCompile(`<style nonce="([A-Za-z0-9_-]{20,})">`)

// cspDirectives splits a Content-Security-Policy into directive → value.
func cspDirectives(t *testing.T, csp string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for d := range strings.SplitSeq(csp, ";") {
		name, val, _ := strings.Cut(strings.TrimSpace(d), " ")
		require.NotContains(t, out, name, "directive %s twice in %q", name, csp)
		out[name] = val
	}
	return out
}

func TestConsentPageHeadersAndMarkup(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	c := e.register("none")
	b := browser(t)
	load := func() (*http.Response, string) {
		resp := do(t, b, "GET", e.authorizeURL(c, nil), nil, nil)
		require.Equal(t, 302, resp.StatusCode)
		resp.Body.Close()
		page := do(t, b, "GET", e.ts.URL+resp.Header.Get("Location"), nil, nil)
		require.Equal(t, 200, page.StatusCode)
		return page, readBody(t, page)
	}
	page, body := load()

	h := page.Header
	assert.Equal(t, "text/html; charset=utf-8", h.Get("Content-Type"))
	assert.Equal(t, "DENY", h.Get("X-Frame-Options"))
	assert.Equal(t, "no-referrer", h.Get("Referrer-Policy"))
	assert.Equal(t, "no-store", h.Get("Cache-Control"))
	assert.Equal(t, "nosniff", h.Get("X-Content-Type-Options"))
	csp := cspDirectives(t, h.Get("Content-Security-Policy"))
	m := styleNonceRE.FindStringSubmatch(body)
	require.NotNil(t, m, "the inline style carries a nonce")
	assert.Equal(t, map[string]string{
		"default-src":     "'none'",
		"style-src":       "'nonce-" + m[1] + "'",
		"form-action":     "'self' " + e.idp.URL + " http://127.0.0.1:9999",
		"frame-ancestors": "'none'",
		"base-uri":        "'none'",
	}, csp, "nothing but the page's own style; the form may lead only here, upstream (approve) and to the client (deny)")

	_, again := load()
	m2 := styleNonceRE.FindStringSubmatch(again)
	require.NotNil(t, m2)
	assert.NotEqual(t, m[1], m2[1], "a fresh nonce per response")

	assert.Contains(t, body, `<meta name="viewport" content="width=device-width,initial-scale=1">`)
	for _, ext := range []string{" src=", " href=", "@import", "url(", "<script", "<link"} {
		assert.NotContains(t, body, ext, "the page loads nothing from anywhere")
	}
	assert.Contains(t, body, `id="server-name">`+strings.TrimPrefix(e.ts.URL, "http://")+`<`, "the server is named")
	assert.Contains(t, body, `id="redirect-host">127.0.0.1:9999<`, "the redirect host is shown on its own")
	assert.Contains(t, body, `id="redirect-uri">http://127.0.0.1:9999/cb<`, "and the full redirect URI")
	assert.Contains(t, body, `id="upstream-host">`+strings.TrimPrefix(e.idp.URL, "http://")+`<`, "where the user signs in next")
	assert.Contains(t, body, `id="local-note"`, "a loopback redirect is called out")
	assert.Contains(t, body, `<li>read</li>`)
	assert.Contains(t, body, `<li>write</li>`)
	assert.Contains(t, body, `id="client-name">Test &lt;App&gt;<`)
	assert.Contains(t, body, `is not verified`, "the page says the name is the client's own claim")
	assert.Regexp(t, `<button type="submit" name="action" value="deny" id="deny">Deny</button>\s*<button type="submit" name="action" value="approve" id="approve" class="primary">Approve</button>`, body)
}

func TestConsentPageHTTPSRedirectHost(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	c := e.register("none", "https://app.example.com/oauth/cb")
	b := browser(t)
	resp := do(t, b, "GET", e.authorizeURL(c, nil), nil, nil)
	require.Equal(t, 302, resp.StatusCode)
	resp.Body.Close()
	page := do(t, b, "GET", e.ts.URL+resp.Header.Get("Location"), nil, nil)
	body := readBody(t, page)
	assert.Contains(t, body, `id="redirect-host">app.example.com<`)
	assert.NotContains(t, body, `id="local-note"`, "no loopback note for a remote host")
	csp := cspDirectives(t, page.Header.Get("Content-Security-Policy"))
	assert.Equal(t, "'self' "+e.idp.URL+" https://app.example.com", csp["form-action"])
}

func TestErrorPageCSP(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	page := do(t, browser(t), "GET", e.ts.URL+ConsentPath+"?txn=nope", nil, nil)
	body := readBody(t, page)
	assert.Equal(t, 400, page.StatusCode)
	assert.Contains(t, body, "This sign-in request has expired")
	assert.Equal(t, "DENY", page.Header.Get("X-Frame-Options"))
	csp := cspDirectives(t, page.Header.Get("Content-Security-Policy"))
	m := styleNonceRE.FindStringSubmatch(body)
	require.NotNil(t, m)
	assert.Equal(t, "'nonce-"+m[1]+"'", csp["style-src"])
	assert.Equal(t, "'none'", csp["form-action"], "an error page has no form")
	assert.Equal(t, "'none'", csp["frame-ancestors"])
}

func TestCSPSource(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"https://app.example/cb", "https://app.example"},
		{"HTTPS://App.Example:8443/cb?x=1", "https://app.example:8443"},
		{"http://127.0.0.1:9999/cb", "http://127.0.0.1:9999"},
		{"http://localhost:3000/callback", "http://localhost:3000"},
		{"http://[::1]:8080/cb", "http:"},                     // IPv6 cannot be spelt in a source expression
		{"cursor://anysphere.cursor-retrieval/cb", "cursor:"}, // a native app's scheme
		{"https://a;b.example/cb", ""},                        // would split the header
		{"https://a'b.example/cb", ""},
		{"javascript://x/%0aalert(1)", ""},
		{"data://x/y", ""},
		{"urn:ietf:wg:oauth:2.0:oob", ""}, // no host
		{"/relative", ""},
		{"", ""},
		{"%zz", ""},
	} {
		assert.Equal(t, tc.want, cspSource(tc.in), "cspSource(%q)", tc.in)
	}
}

func TestScopeLines(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []scopeLine{{Text: "Use this server as you"}}, scopeLines(nil))
	assert.Equal(t, []scopeLine{{Text: "See your email address", Name: "email"}, {Text: "files:read"}},
		scopeLines([]string{"email", "files:read"}))
}

// TestConsentNameCannotReorderThePage: a client's name with
// bidirectional formatting characters (U+202E RIGHT-TO-LEFT OVERRIDE
// and its kin) or control characters reaches the consent page without
// them, and the name is isolated (<bdi>) from the text around it: a name
// cannot make the page read as another application's.
func TestConsentNameCannotReorderThePage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	for _, tc := range []struct{ name, want string }{
		{"Good App\u202Eppa liveE", "Good Appppa liveE"},
		{"\u2067Isolate\u2069 \u202Aembed\u202C \u200Fmark\u200E \u061Cx", "Isolate embed mark x"},
		{"tab\tand\nnewline\x7f", "tabandnewline"},
	} {
		body, _ := json.Marshal(map[string]any{"redirect_uris": []string{"http://127.0.0.1:9999/cb"},
			"token_endpoint_auth_method": "none", "client_name": tc.name})
		resp, err := http.Post(e.ts.URL+RegisterPath, "application/json", strings.NewReader(string(body)))
		require.NoError(t, err)
		var out map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
		resp.Body.Close()
		require.Equal(t, 201, resp.StatusCode, out)
		c := regd{ID: out["client_id"].(string), Redirect: "http://127.0.0.1:9999/cb"}

		b := browser(t)
		resp = do(t, b, "GET", e.authorizeURL(c, nil), nil, nil)
		require.Equal(t, 302, resp.StatusCode)
		resp.Body.Close()
		page := do(t, b, "GET", e.ts.URL+resp.Header.Get("Location"), nil, nil)
		require.Equal(t, 200, page.StatusCode)
		html := readBody(t, page)
		for _, r := range html {
			require.False(t, unicode.Is(unicode.Bidi_Control, r), "%U reached the page for %q", r, tc.name)
		}
		assert.Contains(t, html, `<bdi id="client-name">`+tc.want+`</bdi>`)
		assert.Contains(t, html, `The name “<bdi>`+tc.want+`</bdi>”`)
		assert.Contains(t, html, `<title>Allow `+tc.want+` to access`)
	}
}
