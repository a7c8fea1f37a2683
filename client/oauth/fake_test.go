package oauth

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
)

// fake is a protected MCP endpoint (rs, at /mcp) and its authorization
// server (as), each recording what it was asked.
type fake struct {
	rs, as *httptest.Server

	// What the resource server publishes.
	prmPath      string // "" none
	prmInHeader  bool
	prmResource  string // default the endpoint's URL
	prmScopes    []string
	headerScope  string   // the 401's scope
	callScopes   []string // a call to /mcp/call needs these (403 otherwise)
	asMetaPath   string   // "" none
	asPrefix     string   // the issuer's path
	issuer       string   // the metadata's issuer; default the AS URL + prefix
	cimd         bool
	noRegister   bool
	pkce         []string // default S256
	issSupported bool
	issRedirect  string // "", "wrong"
	expiresIn    int
	refreshFails bool
	movedTo      *fake          // the authorization server the metadata names instead
	noPKCE       bool           // the metadata has no code_challenge_methods_supported
	tls          bool           // both servers speak https
	headerPRM    string         // the challenge's resource_metadata, instead of prmPath's URL
	prmAS        string         // the authorization server the resource metadata names, instead
	metaOverride map[string]any // members set in the authorization server's metadata

	mu        *sync.Mutex
	paths     []string            // every GET of a metadata document, in order
	authReqs  []url.Values        // authorization requests
	tokenReqs []url.Values        // token requests (with client_id from Basic)
	regs      []map[string]any    // registration bodies
	tokens    map[string][]string // issued tokens and their scopes
	challenge map[string]string   // code → S256 challenge
	seen      []string            // Authorization headers the resource server saw
	n         int
}

func newFake(t *testing.T, f *fake) *fake {
	f.mu = &sync.Mutex{}
	f.tokens = map[string][]string{}
	f.challenge = map[string]string{}
	serve := httptest.NewServer
	if f.tls {
		serve = httptest.NewTLSServer
	}
	f.as = serve(http.HandlerFunc(f.serveAS))
	f.rs = serve(http.HandlerFunc(f.serveRS))
	t.Cleanup(f.rs.Close)
	t.Cleanup(f.as.Close)
	return f
}

func (f *fake) endpoint() string { return f.rs.URL + "/mcp" }
func (f *fake) asBase() string   { return f.as.URL + f.asPrefix }

func (f *fake) record(r *http.Request) {
	f.mu.Lock()
	f.paths = append(f.paths, r.Host+r.URL.Path)
	f.mu.Unlock()
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (f *fake) serveRS(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/.well-known/") || r.URL.Path == f.prmPath {
		f.record(r)
		if r.URL.Path != f.prmPath {
			http.NotFound(w, r)
			return
		}
		res := f.prmResource
		if res == "" {
			res = f.endpoint()
		}
		as := f.asBase()
		f.mu.Lock()
		if f.movedTo != nil {
			as = f.movedTo.asBase()
		}
		if f.prmAS != "" {
			as = f.prmAS
		}
		f.mu.Unlock()
		writeJSON(w, 200, map[string]any{"resource": res, "authorization_servers": []string{as},
			"scopes_supported": f.prmScopes})
		return
	}
	f.mu.Lock()
	f.seen = append(f.seen, r.Header.Get("Authorization"))
	scopes, ok := f.tokens[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
	f.mu.Unlock()
	if !ok {
		ch := `Bearer error="invalid_token"`
		if f.headerPRM != "" {
			ch += fmt.Sprintf(`, resource_metadata="%s"`, f.headerPRM)
		} else if f.prmInHeader {
			ch += fmt.Sprintf(`, resource_metadata="%s%s"`, f.rs.URL, f.prmPath)
		}
		if f.headerScope != "" {
			ch += fmt.Sprintf(`, scope="%s"`, f.headerScope)
		}
		w.Header().Set("WWW-Authenticate", ch)
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	if r.URL.Path == "/mcp/call" {
		for _, s := range f.callScopes {
			if !slices.Contains(scopes, s) {
				w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="insufficient_scope", scope="%s"`, strings.Join(f.callScopes, " ")))
				http.Error(w, "forbidden", http.StatusForbidden)
				return
			}
		}
	}
	b, _ := io.ReadAll(r.Body)
	fmt.Fprintf(w, "ok %s", b)
}

func (f *fake) serveAS(w http.ResponseWriter, r *http.Request) {
	p := strings.TrimPrefix(r.URL.Path, f.asPrefix)
	switch {
	case strings.Contains(r.URL.Path, "/.well-known/"):
		f.record(r)
		if r.URL.Path != f.asMetaPath {
			http.NotFound(w, r)
			return
		}
		iss := f.issuer
		if iss == "" {
			iss = f.asBase()
		}
		pkce := f.pkce
		if pkce == nil {
			pkce = []string{"S256"}
		}
		m := map[string]any{"issuer": iss, "authorization_endpoint": f.asBase() + "/authorize",
			"token_endpoint": f.asBase() + "/token", "code_challenge_methods_supported": pkce,
			"client_id_metadata_document_supported":          f.cimd,
			"authorization_response_iss_parameter_supported": f.issSupported,
			"token_endpoint_auth_methods_supported":          []string{"none", "client_secret_basic"}}
		if !f.noRegister {
			m["registration_endpoint"] = f.asBase() + "/register"
		}
		if f.noPKCE {
			delete(m, "code_challenge_methods_supported")
		}
		maps.Copy(m, f.metaOverride)
		writeJSON(w, 200, m)
	case p == "/register":
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		f.mu.Lock()
		f.regs = append(f.regs, body)
		f.mu.Unlock()
		writeJSON(w, 201, map[string]any{"client_id": "dyn-client"})
	case p == "/authorize":
		q := r.URL.Query()
		f.mu.Lock()
		f.authReqs = append(f.authReqs, q)
		f.n++
		code := fmt.Sprintf("code-%d", f.n)
		f.challenge[code] = q.Get("code_challenge")
		f.mu.Unlock()
		to, _ := url.Parse(q.Get("redirect_uri"))
		v := url.Values{"code": {code}, "state": {q.Get("state")}}
		switch f.issRedirect {
		case "wrong":
			v.Set("iss", "https://evil.example")
		case "":
			if f.issSupported {
				v.Set("iss", f.asBase())
			}
		}
		to.RawQuery = v.Encode()
		http.Redirect(w, r, to.String(), http.StatusFound)
	case p == "/token":
		_ = r.ParseForm()
		form := r.PostForm
		if id, _, ok := r.BasicAuth(); ok {
			form.Set("client_id", id)
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		f.tokenReqs = append(f.tokenReqs, form)
		var scopes []string
		switch form.Get("grant_type") {
		case "authorization_code":
			sum := sha256.Sum256([]byte(form.Get("code_verifier")))
			if base64.RawURLEncoding.EncodeToString(sum[:]) != f.challenge[form.Get("code")] {
				writeJSON(w, 400, map[string]any{"error": "invalid_grant", "error_description": "PKCE"})
				return
			}
			last := f.authReqs[len(f.authReqs)-1]
			// Every scope asked for is granted, but admin.
			for _, s := range strings.Fields(last.Get("scope")) {
				if s != "admin" {
					scopes = append(scopes, s)
				}
			}
		case "refresh_token":
			if f.refreshFails || !strings.HasPrefix(form.Get("refresh_token"), "rt-") {
				writeJSON(w, 400, map[string]any{"error": "invalid_grant"})
				return
			}
		case "client_credentials":
		default:
			writeJSON(w, 400, map[string]any{"error": "unsupported_grant_type"})
			return
		}
		f.n++
		tok := fmt.Sprintf("tok-%d", f.n)
		f.tokens[tok] = scopes
		resp := map[string]any{"access_token": tok, "token_type": "Bearer", "refresh_token": fmt.Sprintf("rt-%d", f.n)}
		if f.expiresIn != 0 {
			resp["expires_in"] = f.expiresIn
		}
		writeJSON(w, 200, resp)
	default:
		http.NotFound(w, r)
	}
}

// revoke forgets every token issued so far.
func (f *fake) revoke() {
	f.mu.Lock()
	clear(f.tokens)
	f.mu.Unlock()
}

// approveWith is the browser step of the tests: it fetches the
// authorization URL with hc and returns the redirect's query.
func approveWith(hc *http.Client) AuthorizeFunc {
	return func(ctx context.Context, authURL string) (url.Values, error) {
		c := *hc
		c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
		if err != nil {
			return nil, err
		}
		resp, err := c.Do(req)
		if err != nil {
			return nil, err
		}
		resp.Body.Close()
		loc, err := resp.Location()
		if err != nil {
			return nil, err
		}
		return loc.Query(), nil
	}
}
