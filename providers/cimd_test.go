package providers

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"html"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// noFollow is a client that shows redirects instead of following them.
var noFollow = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// docServer is a client's web server over TLS on 127.0.0.1, publishing
// client ID metadata documents; each path answers as the test says.
type docServer struct {
	*httptest.Server
	hits atomic.Int32
	// routes: path → handler; a missing path is 404.
	routes map[string]http.HandlerFunc
}

func newDocServer(t *testing.T) *docServer {
	d := &docServer{routes: map[string]http.HandlerFunc{}}
	d.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d.hits.Add(1)
		if h, ok := d.routes[r.URL.Path]; ok {
			h(w, r)
			return
		}
		http.NotFound(w, r)
	}))
	d.StartTLS()
	t.Cleanup(d.Close)
	return d
}

// tlsConfig trusts d's certificate.
func (d *docServer) tlsConfig() *tls.Config {
	pool := x509.NewCertPool()
	pool.AddCert(d.Certificate())
	return &tls.Config{RootCAs: pool}
}

// doc serves a valid document for the client_id URL of path.
func (d *docServer) doc(path string, mod func(map[string]any), header ...string) string {
	id := d.URL + path
	doc := map[string]any{"client_id": id, "client_name": "Doc Client", "redirect_uris": []string{"http://127.0.0.1:9999/cb"},
		"token_endpoint_auth_method": "none", "grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"}}
	if mod != nil {
		mod(doc)
	}
	body, _ := json.Marshal(doc)
	d.routes[path] = func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		_, _ = w.Write(body)
	}
	return id
}

// cimdEnv is a proxy that may fetch documents from d (loopback allowed).
func cimdEnv(t *testing.T, d *docServer, mod func(*ClientMetadataDocuments)) *env {
	return newEnv(t, func(c *OAuthProviderConfig) {
		c.ClientMetadataDocuments = ClientMetadataDocuments{AllowPrivateAddresses: true, TLSConfig: d.tlsConfig()}
		if mod != nil {
			mod(&c.ClientMetadataDocuments)
		}
	})
}

// TestCIMDFullLogin: a client identified by the URL of its metadata
// document (no registration) signs in: authorize, consent (showing the
// document's client_name and the client_id's host), upstream, code,
// token without a secret, an MCP call, and a refresh. The document is
// fetched once and cached, and nothing is stored as a registration.
func TestCIMDFullLogin(t *testing.T) {
	t.Parallel()
	d := newDocServer(t)
	id := d.doc("/oauth/client.json", nil, "Cache-Control", "max-age=600")
	e := cimdEnv(t, d, nil)
	c := regd{ID: id, Redirect: "http://127.0.0.1:9999/cb"}

	b := browser(t)
	resp := do(t, b, "GET", e.authorizeURL(c, nil), nil, nil)
	require.Equal(t, 302, resp.StatusCode, readBody(t, resp))
	resp = do(t, b, "GET", e.ts.URL+resp.Header.Get("Location"), nil, nil)
	page := readBody(t, resp)
	require.Equal(t, 200, resp.StatusCode, page)
	assert.Contains(t, page, `<bdi id="client-name">Doc Client</bdi>`)
	host := strings.TrimPrefix(d.URL, "https://")
	assert.Contains(t, page, `id="client-host">This application identifies itself with a document published at <strong>`+host+`</strong>`)
	assert.Contains(t, page, html.EscapeString(id), "the client_id itself")

	u := e.login(b, c)
	status, tok := e.exchange(c, u.Query().Get("code"))
	require.Equal(t, 200, status, tok)
	code, body := e.call(tok["access_token"].(string))
	require.Equal(t, 200, code, body)
	var s OAuthSession
	require.NoError(t, json.Unmarshal([]byte(body), &s))
	assert.Equal(t, id, s.ClientID)
	status, tok2 := e.token(c, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok["refresh_token"].(string)}})
	require.Equal(t, 200, status, tok2)
	assert.EqualValues(t, 1, d.hits.Load(), "one fetch for two authorizations, a code exchange and a refresh")
	_, err := e.p.Storage().Get(t.Context(), ClientKeyPrefix+id)
	assert.ErrorIs(t, err, ErrNotFound, "a document client is not stored as a registration")

	// A secret is refused: the client is public.
	status, out := e.token(regd{ID: id, Secret: "guess"}, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok2["refresh_token"].(string)}})
	assert.Equal(t, 401, status, out)

	// The metadata says so.
	md := e.p.OAuthMetadata().AuthorizationServer
	assert.True(t, md.ClientIDMetadataDocumentSupported)
	resp = do(t, http.DefaultClient, "GET", e.ts.URL+"/.well-known/oauth-authorization-server", nil, nil)
	assert.Contains(t, readBody(t, resp), `"client_id_metadata_document_supported":true`)
}

// authorizeRefusal starts an authorization for client_id id and returns
// the error page's text (which must be a 400 on this server's page,
// never a redirect).
func authorizeRefusal(t *testing.T, e *env, id, redirect string) string {
	t.Helper()
	resp := do(t, noFollow, "GET", e.authorizeURL(regd{ID: id, Redirect: redirect}, nil), nil, nil)
	body := html.UnescapeString(readBody(t, resp))
	require.Equal(t, 400, resp.StatusCode, body)
	assert.Empty(t, resp.Header.Get("Location"))
	return body
}

// TestCIMDAddressGuards: with the default configuration (only the test
// server's certificate trusted, so that the address is the one reason to
// refuse), documents on loopback, private, link-local, CGNAT and other
// internal addresses are refused, by IP literal and by a host name that
// resolves to loopback, and so is http.
func TestCIMDAddressGuards(t *testing.T) {
	t.Parallel()
	d := newDocServer(t)
	d.doc("/client.json", nil)
	e := newEnv(t, func(c *OAuthProviderConfig) {
		c.ClientMetadataDocuments = ClientMetadataDocuments{TLSConfig: d.tlsConfig(), Timeout: 2 * time.Second}
	})
	port := d.Listener.Addr().(interface{ String() string }).String()
	port = port[strings.LastIndex(port, ":")+1:]
	tests := []struct{ name, id, want string }{
		{"http", "http://127.0.0.1:" + port + "/client.json", "must use https"},
		{"loopback literal", "https://127.0.0.1:" + port + "/client.json", "internal address"},
		{"host name resolving to loopback", "https://localhost:" + port + "/client.json", "internal address"},
		{"IPv6 loopback", "https://[::1]:" + port + "/client.json", "internal address"},
		{"IPv4-mapped loopback", "https://[::ffff:127.0.0.1]:" + port + "/client.json", "internal address"},
		{"private", "https://10.1.2.3/client.json", "internal address"},
		{"private 192.168", "https://192.168.1.1/client.json", "internal address"},
		{"link-local metadata service", "https://169.254.169.254/latest/meta-data", "internal address"},
		{"CGNAT", "https://100.64.0.1/client.json", "internal address"},
		{"unspecified", "https://0.0.0.0:" + port + "/client.json", "internal address"},
		{"no path", "https://127.0.0.1:" + port, "must have a path"},
		{"fragment", "https://127.0.0.1:" + port + "/c#x", "fragment"},
		{"user info", "https://u:p@127.0.0.1:" + port + "/c", "user name"},
		{"dot segment", "https://127.0.0.1:" + port + "/a/../c", ". or .."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			body := authorizeRefusal(t, e, tt.id, "http://127.0.0.1:9999/cb")
			assert.Contains(t, body, tt.want)
			assert.Contains(t, body, "Nothing was shared")
		})
	}
	assert.Zero(t, d.hits.Load(), "the guarded fetches never reached the server")
}

// TestCIMDDocumentRefusals: what the server at the URL answers, and what
// the document says, each make it unusable (and it is not cached).
func TestCIMDDocumentRefusals(t *testing.T) {
	t.Parallel()
	d := newDocServer(t)
	valid := d.doc("/valid.json", nil)
	d.routes["/big.json"] = func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"client_id":"` + d.URL + `/big.json","client_name":"` + strings.Repeat("a", 6000) + `"}`))
	}
	d.routes["/slow.json"] = func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(3 * time.Second):
		case <-r.Context().Done():
		}
	}
	d.routes["/redirect.json"] = func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, valid, http.StatusFound) }
	d.routes["/html.json"] = func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(`{"client_id":"` + d.URL + `/html.json","redirect_uris":["http://127.0.0.1:9999/cb"]}`))
	}
	d.routes["/dup.json"] = func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"client_id":"` + d.URL + `/dup.json","redirect_uris":["http://127.0.0.1:9999/cb"],"Redirect_URIs":["https://evil.example/cb"]}`))
	}
	// Only the slow document meets the short timeout: on a loaded machine
	// a quick document may take longer than 500 ms too.
	e := cimdEnv(t, d, func(c *ClientMetadataDocuments) { c.Timeout = 20 * time.Second })
	short := cimdEnv(t, d, func(c *ClientMetadataDocuments) { c.Timeout = 500 * time.Millisecond })
	tests := []struct{ name, id, want string }{
		{"not found", d.URL + "/missing.json", "answered 404"},
		{"oversized", d.URL + "/big.json", "larger than 5120 bytes"},
		{"slow", d.URL + "/slow.json", "did not arrive within 500ms"},
		{"redirect", d.URL + "/redirect.json", "redirects are not followed"},
		{"wrong content type", d.URL + "/html.json", "not served as application/json"},
		{"case-variant member", d.URL + "/dup.json", "not a JSON object of client metadata"},
		{"client_id mismatch", d.doc("/mismatch.json", func(m map[string]any) { m["client_id"] = "https://other.example/client.json" }), "is not the URL it was fetched from"},
		{"no redirect_uris", d.doc("/noredirect.json", func(m map[string]any) { delete(m, "redirect_uris") }), "redirect_uris is required"},
		{"private_key_jwt", d.doc("/pkjwt.json", func(m map[string]any) { m["token_endpoint_auth_method"] = "private_key_jwt" }), "private_key_jwt is not supported"},
		{"secret method", d.doc("/basic.json", func(m map[string]any) { m["token_endpoint_auth_method"] = "client_secret_basic" }), "not allowed in a metadata document"},
		{"client_secret", d.doc("/secret.json", func(m map[string]any) { m["client_secret"] = "s" }), "must not contain a client_secret"},
		{"long name", d.doc("/name.json", func(m map[string]any) { m["client_name"] = strings.Repeat("n", 201) }), "client_name is longer"},
		{"redirect outside the patterns", d.doc("/evil.json", func(m map[string]any) { m["redirect_uris"] = []string{"javascript:alert(1)"} }), "invalid_redirect_uri"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := e
			if tt.name == "slow" {
				env = short
			}
			body := authorizeRefusal(t, env, tt.id, "http://127.0.0.1:9999/cb")
			assert.Contains(t, body, tt.want)
		})
	}
	t.Run("redirect_uri not in the document", func(t *testing.T) {
		t.Parallel()
		body := authorizeRefusal(t, e, valid, "http://127.0.0.1:9999/other")
		assert.Contains(t, body, "is not one it registered")
	})
	t.Run("token endpoint names the reason", func(t *testing.T) {
		t.Parallel()
		status, out := e.token(regd{ID: d.URL + "/missing.json"}, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {"x.y"}})
		assert.Equal(t, 401, status)
		assert.Equal(t, "invalid_client", out["error"])
		assert.Contains(t, out["error_description"], "answered 404")
	})
}

// TestCIMDErrorsAreNotCached: a document that was unusable is fetched
// again next time, and works once fixed; a usable one is cached.
func TestCIMDErrorsAreNotCached(t *testing.T) {
	t.Parallel()
	d := newDocServer(t)
	id := d.doc("/c.json", func(m map[string]any) { m["client_id"] = "wrong" })
	e := cimdEnv(t, d, nil)
	authorizeRefusal(t, e, id, "http://127.0.0.1:9999/cb")
	d.doc("/c.json", nil)
	resp := do(t, noFollow, "GET", e.authorizeURL(regd{ID: id, Redirect: "http://127.0.0.1:9999/cb"}, nil), nil, nil)
	require.Equal(t, 302, resp.StatusCode)
	resp = do(t, noFollow, "GET", e.authorizeURL(regd{ID: id, Redirect: "http://127.0.0.1:9999/cb"}, nil), nil, nil)
	require.Equal(t, 302, resp.StatusCode)
	assert.EqualValues(t, 2, d.hits.Load(), "the bad answer was not cached; the good one was")
}

// TestCIMDCacheBounds: the cache honours max-age within the bounds and
// holds at most CacheSize documents.
func TestCIMDCacheBounds(t *testing.T) {
	t.Parallel()
	f := newCIMDFetcher(ClientMetadataDocuments{MinCacheTTL: time.Minute, MaxCacheTTL: time.Hour}, time.Now)
	tests := []struct {
		cc   []string
		want time.Duration
	}{
		{nil, time.Hour},
		{[]string{"max-age=300"}, 5 * time.Minute},
		{[]string{"public, max-age=5"}, time.Minute},
		{[]string{"max-age=999999"}, time.Hour},
		{[]string{"no-store"}, time.Minute},
		{[]string{"max-age=x"}, time.Hour},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, f.ttl(tt.cc), "%q", tt.cc)
	}

	d := newDocServer(t)
	now := time.Now()
	var clock atomic.Int64
	e := cimdEnv(t, d, func(c *ClientMetadataDocuments) { c.CacheSize = 2 })
	e.p.cimd.now = func() time.Time { return now.Add(time.Duration(clock.Load())) }
	ids := []string{d.doc("/a.json", nil, "Cache-Control", "max-age=120"), d.doc("/b.json", nil), d.doc("/c.json", nil)}
	start := func(id string) {
		resp := do(t, noFollow, "GET", e.authorizeURL(regd{ID: id, Redirect: "http://127.0.0.1:9999/cb"}, nil), nil, nil)
		require.Equal(t, 302, resp.StatusCode, readBody(t, resp))
	}
	for _, id := range ids {
		start(id)
	}
	require.EqualValues(t, 3, d.hits.Load())
	start(ids[2])
	start(ids[1])
	assert.EqualValues(t, 3, d.hits.Load(), "b and c are cached")
	start(ids[0])
	assert.EqualValues(t, 4, d.hits.Load(), "a was evicted (size 2)")
	clock.Store(int64(121 * time.Second))
	start(ids[0])
	assert.EqualValues(t, 5, d.hits.Load(), "a's max-age of 120 s passed")
}

// TestCIMDRateLimitedAndDisabled: fetches count against the registration
// limit of the caller's address; with the feature off a URL client_id is
// an unknown application, and the metadata does not advertise it.
func TestCIMDRateLimitedAndDisabled(t *testing.T) {
	t.Parallel()
	d := newDocServer(t)
	e := newEnv(t, func(c *OAuthProviderConfig) {
		c.ClientMetadataDocuments = ClientMetadataDocuments{AllowPrivateAddresses: true, TLSConfig: d.tlsConfig()}
		c.RegisterRateLimit = RateLimit{PerMinute: 0.001, Burst: 2}
	})
	for i := range 3 {
		d.doc("/r"+string(rune('0'+i))+".json", nil)
	}
	for i := range 2 {
		resp := do(t, noFollow, "GET", e.authorizeURL(regd{ID: d.URL + "/r" + string(rune('0'+i)) + ".json", Redirect: "http://127.0.0.1:9999/cb"}, nil), nil, nil)
		require.Equal(t, 302, resp.StatusCode)
	}
	body := authorizeRefusal(t, e, d.URL+"/r2.json", "http://127.0.0.1:9999/cb")
	assert.Contains(t, body, "too many metadata documents")
	assert.EqualValues(t, 2, d.hits.Load())

	off := newEnv(t, func(c *OAuthProviderConfig) {
		c.ClientMetadataDocuments = ClientMetadataDocuments{Disabled: true, AllowPrivateAddresses: true, TLSConfig: d.tlsConfig()}
	})
	body = authorizeRefusal(t, off, d.URL+"/r0.json", "http://127.0.0.1:9999/cb")
	assert.Contains(t, body, "not registered")
	assert.False(t, off.p.OAuthMetadata().AuthorizationServer.ClientIDMetadataDocumentSupported)
}

// TestInternalAddr: the address predicate, including public addresses
// that must pass.
func TestInternalAddr(t *testing.T) {
	t.Parallel()
	for addr, internal := range map[string]bool{
		"127.0.0.1": true, "127.255.0.9": true, "10.0.0.1": true, "172.16.5.4": true, "192.168.0.1": true,
		"169.254.169.254": true, "100.64.0.1": true, "100.127.255.254": true, "0.0.0.0": true, "0.1.2.3": true,
		"224.0.0.1": true, "255.255.255.255": true, "198.18.0.1": true, "::1": true, "::": true, "fe80::1": true,
		"fc00::1": true, "fd12::1": true, "ff02::1": true, "::ffff:10.0.0.1": true, "64:ff9b::a00:1": true,
		"2002:a00:1::1": true, "2001:db8::1": true,
		"8.8.8.8": false, "1.1.1.1": false, "100.128.0.1": false, "2606:4700:4700::1111": false, "::ffff:8.8.8.8": false,
	} {
		assert.Equal(t, internal, internalAddr(netip.MustParseAddr(addr)), addr)
	}
	assert.ErrorIs(t, refuseInternal("tcp", "127.0.0.1:443", nil), errInternalAddress)
	assert.NoError(t, refuseInternal("tcp", "93.184.215.14:443", nil))
	assert.ErrorIs(t, refuseInternal("tcp", "garbage", nil), errInternalAddress)
}

// Security pass: the consent page shows the client_id's host as the
// client's identity, so it must read as what it is: a host with a
// Cyrillic а ("аpple.com"), raw or %-escaped, is refused; its xn-- form,
// which shows what it is, is allowed.
func TestCIMDClientIDHostIsPlainASCII(t *testing.T) {
	t.Parallel()
	for id, want := range map[string]string{
		"https://аpple.com/client.json":          "printable ASCII",
		"https://%D0%B0pple.com/client.json":     "written plainly",
		"https://app%6Ce.com/client.json":        "not a URL",
		"https://apple.com/client.json\u202e":    "printable ASCII",
		"https://xn--pple-43d.com/client.json":   "",
		"https://client.example./c":              "",
		"https://[2606:4700::1111]/client.json":  "",
		"https://203.0.113.7:8443/client.json":   "",
		"https://client.example/%D0%B0/c.json":   "",
		"https://under_score.example/c.json":     "written plainly",
		"https://[fe80::1%25eth0]/client.json":   "written plainly",
		"https://client.example/path with space": "printable ASCII",
	} {
		err := checkClientIDURL(id)
		if want == "" {
			assert.NoError(t, err, id)
		} else if assert.Error(t, err, id) {
			assert.Contains(t, err.Error(), want, id)
		}
	}
	d := newDocServer(t)
	e := cimdEnv(t, d, nil)
	body := authorizeRefusal(t, e, "https://%D0%B0pple.com/client.json", "http://127.0.0.1:9999/cb")
	assert.Contains(t, body, "written plainly")
	assert.Zero(t, d.hits.Load())
}

// Security pass: a fetch waits for one of the 8 fetch slots at most its
// Timeout, then the user hears why (it used to wait for as long as the
// request lived, behind whoever held the slots).
func TestCIMDFetchQueueIsBounded(t *testing.T) {
	t.Parallel()
	d := newDocServer(t)
	id := d.doc("/client.json", nil)
	e := cimdEnv(t, d, func(c *ClientMetadataDocuments) { c.Timeout = 200 * time.Millisecond })
	for range cap(e.p.cimd.slots) {
		e.p.cimd.slots <- struct{}{} // every slot busy
	}
	t.Cleanup(func() {
		for range cap(e.p.cimd.slots) {
			<-e.p.cimd.slots
		}
	})
	client := &http.Client{Timeout: 5 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp := do(t, client, "GET", e.authorizeURL(regd{ID: id, Redirect: "http://127.0.0.1:9999/cb"}, nil), nil, nil)
	body := html.UnescapeString(readBody(t, resp))
	assert.Equal(t, 400, resp.StatusCode, body)
	assert.Contains(t, body, "too many metadata documents are being fetched")
	assert.Zero(t, d.hits.Load())
}

// Security pass: a fetch is shared by everyone who asks for the document
// meanwhile, so the first asker going away (a client that disconnects at
// once) must not fail it for the others: the fetch runs to its end and
// its document is cached.
func TestCIMDFetchOutlivesItsFirstAsker(t *testing.T) {
	t.Parallel()
	d := newDocServer(t)
	id := d.doc("/client.json", nil)
	serve := d.routes["/client.json"]
	arrived, release := make(chan struct{}), make(chan struct{})
	d.routes["/client.json"] = func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-release
		serve(w, r)
	}
	e := cimdEnv(t, d, nil)
	allow := func() bool { return true }
	ctx, cancel := context.WithCancel(t.Context())
	type result struct {
		c   *client
		err error
	}
	first := make(chan result, 1)
	go func() {
		c, err := e.p.cimd.client(ctx, id, allow, e.p.Proxy)
		first <- result{c, err}
	}()
	<-arrived
	cancel() // the first asker goes away while the document is on its way
	close(release)
	got := <-first
	require.NoError(t, got.err, "the fetch ran to its end")
	assert.Equal(t, id, got.c.ID)
	c, err := e.p.cimd.client(t.Context(), id, func() bool { t.Error("fetched again"); return false }, e.p.Proxy)
	require.NoError(t, err)
	assert.Equal(t, id, c.ID, "the document was cached")
	assert.EqualValues(t, 1, d.hits.Load())
}
