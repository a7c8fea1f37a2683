package accounts

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/elicit"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/providers"
)

// user is the auth data of the test servers: "Bearer <name>" is the user
// <name>; "Bearer opaque" is auth data without a subject.
type user struct{ id string }

func (u *user) Subject() string { return u.id }

type opaque struct{ token string }

func authenticate(r *http.Request) (any, error) {
	name, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	switch {
	case !ok:
		return nil, nil // anonymous
	case name == "opaque":
		return opaque{token: "t"}, nil
	}
	return &user{id: name}, nil
}

// testSignIn is the browser sign-in of the tests: the cookie "who" names
// the browser's user; without it, SignIn redirects to /signin.
type testSignIn struct{}

func (testSignIn) BrowserUser(r *http.Request) (any, bool) {
	c, err := r.Cookie("who")
	if err != nil || c.Value == "" {
		return nil, false
	}
	return &user{id: c.Value}, true
}

func (testSignIn) SignIn(w http.ResponseWriter, r *http.Request, returnTo string) {
	http.Redirect(w, r, "/signin?back="+url.QueryEscape(returnTo), http.StatusSeeOther)
}

// fakeService is an OAuth 2.0 API: /authorize approves at once (PKCE S256
// required), /token redeems codes and rotates refresh tokens, /revoke
// records what it revoked, /user says whose token it is.
type fakeService struct {
	*httptest.Server
	mu         sync.Mutex
	codes      map[string]string // code → challenge
	tokens     map[string]string // access token → login
	refreshes  map[string]string // refresh token → login
	revoked    []string
	expiresIn  atomic.Int64 // seconds; 0: 3600
	refreshed  atomic.Int32
	refuseNext atomic.Bool // answer the next refresh invalid_grant
	login      atomic.Value
}

func newFakeService(t *testing.T) *fakeService {
	f := &fakeService{codes: map[string]string{}, tokens: map[string]string{}, refreshes: map[string]string{}}
	f.login.Store("octocat")
	mux := http.NewServeMux()
	mux.HandleFunc("GET /authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("client_id") != "svc-client" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" {
			http.Error(w, "bad authorization request", http.StatusBadRequest)
			return
		}
		code := "code-" + newID()
		f.mu.Lock()
		f.codes[code] = q.Get("code_challenge")
		f.mu.Unlock()
		back, _ := url.Parse(q.Get("redirect_uri"))
		back.RawQuery = url.Values{"code": {code}, "state": {q.Get("state")}}.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
	})
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		id, secret, _ := r.BasicAuth()
		if id == "" {
			id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
		}
		if id != "svc-client" || secret != "svc-secret" {
			tokenErr(w, "invalid_client")
			return
		}
		login := f.login.Load().(string)
		f.mu.Lock()
		defer f.mu.Unlock()
		switch r.PostForm.Get("grant_type") {
		case "authorization_code":
			ch, ok := f.codes[r.PostForm.Get("code")]
			delete(f.codes, r.PostForm.Get("code"))
			if !ok || oauth2.S256ChallengeFromVerifier(r.PostForm.Get("code_verifier")) != ch {
				tokenErr(w, "invalid_grant")
				return
			}
		case "refresh_token":
			f.refreshed.Add(1)
			rt := r.PostForm.Get("refresh_token")
			l, ok := f.refreshes[rt]
			delete(f.refreshes, rt) // rotation: a refresh token works once
			if !ok || f.refuseNext.Swap(false) {
				tokenErr(w, "invalid_grant")
				return
			}
			login = l
		default:
			tokenErr(w, "unsupported_grant_type")
			return
		}
		at, rt := "svc-at-"+newID(), "svc-rt-"+newID()
		f.tokens[at], f.refreshes[rt] = login, login
		exp := f.expiresIn.Load()
		if exp == 0 {
			exp = 3600
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": exp,
			"refresh_token": rt, "scope": "repo read:user"})
	})
	mux.HandleFunc("POST /revoke", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		f.mu.Lock()
		f.revoked = append(f.revoked, r.PostForm.Get("token"))
		delete(f.tokens, r.PostForm.Get("token"))
		delete(f.refreshes, r.PostForm.Get("token"))
		f.mu.Unlock()
	})
	mux.HandleFunc("GET /user", func(w http.ResponseWriter, r *http.Request) {
		at, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		f.mu.Lock()
		login, ok := f.tokens[at]
		f.mu.Unlock()
		if !ok {
			http.Error(w, "bad token", http.StatusUnauthorized)
			return
		}
		_, _ = io.WriteString(w, login)
	})
	f.Server = httptest.NewServer(mux)
	t.Cleanup(f.Close)
	return f
}

func tokenErr(w http.ResponseWriter, code string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = fmt.Fprintf(w, `{"error":%q}`, code)
}

var idSeq atomic.Int64

func newID() string { return fmt.Sprint(idSeq.Add(1)) }

func (f *fakeService) service() Service {
	return Service{Name: "github", Title: "GitHub", ClientID: "svc-client", ClientSecret: "svc-secret",
		AuthURL: f.URL + "/authorize", TokenURL: f.URL + "/token", RevocationURL: f.URL + "/revoke",
		Scopes: []string{"repo", "read:user"}}
}

// world is an MCP server with a tool that calls the fake service as the
// user ("whoami"), its accounts pages, and the fake service.
type world struct {
	t    *testing.T
	svc  *fakeService
	acc  *Accounts
	srv  *mcp.Server
	ts   *httptest.Server
	url  string // the MCP endpoint
	logs *strings.Builder
}

type worldOptions struct {
	storage   providers.TokenStorage
	key       string
	svc       *fakeService
	stateless bool
	now       func() time.Time
}

func newWorld(t *testing.T, o worldOptions) *world {
	t.Helper()
	w := &world{t: t, svc: o.svc}
	if w.svc == nil {
		w.svc = newFakeService(t)
	}
	ts := httptest.NewUnstartedServer(nil)
	base := "http://" + ts.Listener.Addr().String()
	key := o.key
	if key == "" {
		key = strings.Repeat("k", 32)
	}
	var logMu sync.Mutex
	w.logs = &strings.Builder{}
	logger := slog.New(slog.NewTextHandler(lockedWriter{&logMu, w.logs}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	acc, err := New(Config{BaseURL: base, Services: []Service{w.svc.service()}, SignIn: testSignIn{},
		Storage: o.storage, Key: key, Logger: logger})
	require.NoError(t, err)
	if o.now != nil {
		acc.now = o.now
	}
	t.Cleanup(func() { _ = acc.Close() })
	srv := mcp.NewServer(mcp.Options{Name: "acct", Version: "1.0.0", Authenticate: authenticate, Logger: logger})
	mcp.AddTool(srv, mcp.Tool{Name: "whoami"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		gh, err := acc.Client(ctx, c, "github")
		if err != nil {
			return "", err
		}
		resp, err := gh.Get(w.svc.URL + "/user")
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return fmt.Sprintf("%d %s", resp.StatusCode, b), nil
	})
	acc.Mount(srv)
	h := mcphttp.New(srv, &mcphttp.Options{Stateless: o.stateless})
	t.Cleanup(func() { _ = h.Close() })
	ts.Config.Handler = mcphttp.NewMux(h, nil)
	ts.Start()
	t.Cleanup(ts.Close)
	w.acc, w.srv, w.ts, w.url = acc, srv, ts, ts.URL+"/mcp"
	return w
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *strings.Builder
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// connect opens an MCP client as name ("" for anonymous) at version, whose
// URL elicitations go to open (nil: accepted without opening).
func (w *world) connect(name string, version mcp.Version, open func(url string)) *client.Client {
	w.t.Helper()
	h := http.Header{}
	if name != "" {
		h.Set("Authorization", "Bearer "+name)
	}
	c, err := client.Connect(context.Background(), client.HTTP(w.url, &client.HTTPOptions{Header: h}), &client.Options{
		ProtocolVersion: version,
		ElicitURL: func(_ context.Context, p *elicit.Params) (*elicit.Result, error) {
			if open != nil {
				open(p.URL)
			}
			return &elicit.Result{Action: elicit.ActionAccept}, nil
		}})
	require.NoError(w.t, err)
	w.t.Cleanup(func() { _ = c.Close() })
	return c
}

// elicitationURL calls whoami at 2025-11-25 and returns the connect URL of
// the -32042 error.
func elicitationURL(t *testing.T, c *client.Client) string {
	t.Helper()
	_, err := c.CallTool(context.Background(), "whoami", nil, nil)
	var je *mcp.Error
	require.True(t, errors.As(err, &je), "want -32042, got %v", err)
	require.Equal(t, mcp.CodeURLElicitationRequired, int(je.Code))
	var data struct {
		Elicitations []elicit.Params `json:"elicitations"`
	}
	require.NoError(t, json.Unmarshal(errorData(t, je), &data))
	require.Len(t, data.Elicitations, 1)
	return data.Elicitations[0].URL
}

// browser is a browser signed in as who ("" for none).
type browser struct {
	t    *testing.T
	c    *http.Client
	base string
}

func (w *world) browser(t *testing.T, who string) *browser {
	jar, _ := cookiejar.New(nil)
	u, _ := url.Parse(w.ts.URL)
	if who != "" {
		jar.SetCookies(u, []*http.Cookie{{Name: "who", Value: who, Path: "/"}})
	}
	return &browser{t: t, c: &http.Client{Jar: jar, Timeout: 5 * time.Second}, base: w.ts.URL}
}

// get returns the status, body and final URL of a GET (redirects followed).
func (b *browser) get(u string) (int, string, *url.URL) {
	b.t.Helper()
	resp, err := b.c.Get(u)
	require.NoError(b.t, err)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), resp.Request.URL
}

// post posts a form as the page would (Origin: the server's).
func (b *browser) post(path string, form url.Values, hdr map[string]string) (int, string, *url.URL) {
	b.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, b.base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", b.base)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := b.c.Do(req)
	require.NoError(b.t, err)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), resp.Request.URL
}

var hiddenRE = regexp.MustCompile(`name="(id|csrf|service)" value="([^"]*)"`)

// fields are the hidden fields of a page's form.
func fields(body string) url.Values {
	v := url.Values{}
	for _, m := range hiddenRE.FindAllStringSubmatch(body, -1) {
		v.Set(m[1], m[2])
	}
	return v
}

// connectFlow opens u in b and chooses Connect: the status and body of
// the page the browser ends on.
func (b *browser) connectFlow(u string) (int, string) {
	b.t.Helper()
	status, body, _ := b.get(u)
	require.Equal(b.t, http.StatusOK, status, body)
	f := fields(body)
	f.Set("action", "connect")
	status, body, _ = b.post("/accounts/connect", f, nil)
	return status, body
}

// errorData is the JSON of a JSON-RPC error's data.
func errorData(t *testing.T, e *mcp.Error) []byte {
	t.Helper()
	b, err := json.Marshal(e.Data)
	require.NoError(t, err)
	return b
}
