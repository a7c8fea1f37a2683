package devidp_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/mcpchain/mcp/devidp"
)

// FuzzRequest sends the provider any request its clients and browsers
// could (method, path, query, form or JSON body, Origin, cookie, from a
// loopback peer or not) through every endpoint's decoder: it never panics
// or fails with a 500, and any redirect it answers goes to a loopback http
// URI, the only kind this configuration lets a client use.
func FuzzRequest(f *testing.F) {
	_, challenge := pkce()
	auth := url.Values{"response_type": {"code"}, "client_id": {"dev-client"}, "redirect_uri": {"http://localhost:1/cb"},
		"code_challenge": {challenge}, "code_challenge_method": {"S256"}, "state": {"s"}, "nonce": {"n"}}.Encode()
	for _, s := range []struct {
		method                        uint8
		path, query, body, origin, ck string
		loopback                      bool
	}{
		{0, "/authorize", auth, "", "", "", true},
		{0, "/authorize", auth, "", "", "", false},
		{0, "/authorize", auth + "&redirect_uri=https://evil.example", "", "", "", true},
		{0, "/authorize", "redirect_uri=http%3A%2F%2Flocalhost%40evil.example%2F&client_id=dev-client", "", "", "", true},
		{1, "/authorize", "", "request=x&csrf=y&action=approve&user=dev-user-1", "", "devidp_browser=" + strings.Repeat("a", 32), false},
		{1, "/authorize", "", "request=%zz", "https://evil.example", "", false},
		{1, "/token", "", "grant_type=authorization_code&code=x&code_verifier=" + strings.Repeat("v", 43) + "&client_id=dev-client", "", "", true},
		{1, "/token", "", "grant_type=refresh_token&refresh_token=x&client_id=dev-client&client_secret=", "", "", true},
		{1, "/register", "", `{"redirect_uris":["http://127.0.0.1:3/cb"],"client_name":"c"}`, "", "", true},
		{1, "/register", "", `{"redirect_uris":["https://evil.example"]}`, "", "", true},
		{0, "/userinfo", "", "", "", "", true},
		{0, "/.well-known/openid-configuration", "", "", "", "", true},
		{0, "/jwks", "", "", "", "", true},
	} {
		f.Add(s.method, s.path, s.query, s.body, s.origin, s.ck, s.loopback)
	}
	p, err := devidp.New(devidp.Config{Issuer: "http://127.0.0.1:9", AutoApprove: true, Audience: "http://127.0.0.1:8/mcp", Logger: quiet})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, method uint8, path, query, body, origin, cookie string, loopback bool) {
		if !strings.HasPrefix(path, "/") {
			path = "/" + path // as every request's path is on the wire
		}
		r := &http.Request{Method: []string{"GET", "POST", "PUT", "HEAD"}[method%4], URL: &url.URL{Path: path, RawQuery: query},
			Header: http.Header{}, Body: http.NoBody, Host: "127.0.0.1:9", RemoteAddr: "192.0.2.1:5"}
		if loopback {
			r.RemoteAddr = "127.0.0.1:5"
		}
		if body != "" {
			r.Body = io.NopCloser(strings.NewReader(body))
			r.ContentLength = int64(len(body))
			if strings.HasPrefix(body, "{") {
				r.Header.Set("Content-Type", "application/json")
			} else {
				r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			}
		}
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		if cookie != "" {
			r.Header.Set("Cookie", cookie)
		}
		w := httptest.NewRecorder()
		p.ServeHTTP(w, r)
		if w.Code >= 500 && w.Code != http.StatusServiceUnavailable {
			t.Fatalf("%s %s?%s: %d %s", r.Method, path, query, w.Code, w.Body)
		}
		loc := w.Header().Get("Location")
		switch {
		case loc == "":
		case strings.HasPrefix(loc, "/"):
			// The mux's own redirects (a cleaned path) stay on the
			// provider's host: not //host, nor /\host, which browsers
			// read as //host.
			if strings.HasPrefix(loc, "//") || strings.HasPrefix(loc, "/\\") {
				t.Fatalf("%s %s?%s: redirect to %q", r.Method, path, query, loc)
			}
		default:
			u, err := url.Parse(loc)
			if err != nil || u.Scheme != "http" || u.User != nil || u.Fragment != "" ||
				(u.Hostname() != "localhost" && u.Hostname() != "127.0.0.1" && u.Hostname() != "::1") {
				t.Fatalf("%s %s?%s: redirect to %q", r.Method, path, query, loc)
			}
		}
	})
}
