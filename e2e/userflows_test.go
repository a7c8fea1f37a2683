package e2e

import (
	"context"
	"crypto/rand"
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
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/accounts"
	"github.com/mcpchain/mcp/approval"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/providers"
)

// The user flows in a real browser, driven by a real MCP
// client: connect your account (a URL elicitation to the server's page,
// the OAuth dance with a GitHub-like service in the browser) and an
// approval of a destructive call, with the go-sdk client at 2025-11-25
// (the -32042 error, notifications/elicitation/complete, the call again)
// and at 2026-07-28 (input-required rounds). The server signs users in
// through its OAuth proxy; the browser signs in to the server's pages at
// the same identity provider. Another user's browser opening the same
// links is refused.

// flowIdP is the identity provider behind the proxy: /login?as=NAME signs
// a browser in (a cookie on the IdP's origin); /authorize approves at once
// as the browser's user; /token checks PKCE; /userinfo names the user.
type flowIdP struct {
	*httptest.Server
	mu    sync.Mutex
	codes map[string][2]string // code → challenge, user
	users map[string]string    // access token → user
}

func newFlowIdP(t *testing.T) *flowIdP {
	f := &flowIdP{codes: map[string][2]string{}, users: map[string]string{}}
	m := http.NewServeMux()
	m.HandleFunc("GET /login", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "idp_user", Value: r.URL.Query().Get("as"), Path: "/"})
		_, _ = io.WriteString(w, "signed in at the identity provider")
	})
	m.HandleFunc("GET /authorize", func(w http.ResponseWriter, r *http.Request) {
		who, err := r.Cookie("idp_user")
		q := r.URL.Query()
		if err != nil || q.Get("code_challenge_method") != "S256" {
			http.Error(w, "not signed in at the identity provider", http.StatusUnauthorized)
			return
		}
		code := rand.Text()
		f.mu.Lock()
		f.codes[code] = [2]string{q.Get("code_challenge"), who.Value}
		f.mu.Unlock()
		back, _ := url.Parse(q.Get("redirect_uri"))
		back.RawQuery = url.Values{"code": {code}, "state": {q.Get("state")}}.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
	})
	m.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		f.mu.Lock()
		c, ok := f.codes[r.PostForm.Get("code")]
		delete(f.codes, r.PostForm.Get("code"))
		at := rand.Text()
		f.users[at] = c[1]
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if !ok || oauth2.S256ChallengeFromVerifier(r.PostForm.Get("code_verifier")) != c[0] {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"error":"invalid_grant"}`)
			return
		}
		_, _ = fmt.Fprintf(w, `{"access_token":%q,"token_type":"Bearer","expires_in":3600}`, at)
	})
	m.HandleFunc("GET /userinfo", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		u, ok := f.users[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
		f.mu.Unlock()
		if !ok {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"sub":%q}`, u)
	})
	f.Server = httptest.NewServer(m)
	t.Cleanup(f.Close)
	return f
}

// fakeGitHub is an OAuth 2.0 API: /login/oauth/authorize approves at once
// (PKCE S256), /login/oauth/access_token redeems the code, /user names the
// token's owner ("octocat").
func fakeGitHub(t *testing.T) *httptest.Server {
	var mu sync.Mutex
	codes, tokens := map[string]string{}, map[string]bool{}
	m := http.NewServeMux()
	m.HandleFunc("GET /login/oauth/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("client_id") != "gh-client" || q.Get("code_challenge_method") != "S256" {
			http.Error(w, "bad authorization request", http.StatusBadRequest)
			return
		}
		code := rand.Text()
		mu.Lock()
		codes[code] = q.Get("code_challenge")
		mu.Unlock()
		back, _ := url.Parse(q.Get("redirect_uri"))
		back.RawQuery = url.Values{"code": {code}, "state": {q.Get("state")}}.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
	})
	m.HandleFunc("POST /login/oauth/access_token", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		mu.Lock()
		ch, ok := codes[r.PostForm.Get("code")]
		delete(codes, r.PostForm.Get("code"))
		at := "gho_" + rand.Text()
		tokens[at] = true
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if !ok || r.PostForm.Get("client_secret") != "gh-secret" || oauth2.S256ChallengeFromVerifier(r.PostForm.Get("code_verifier")) != ch {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"error":"bad_verification_code"}`)
			return
		}
		_, _ = fmt.Fprintf(w, `{"access_token":%q,"token_type":"bearer","scope":"repo"}`, at)
	})
	m.HandleFunc("GET /user", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		ok := tokens[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
		mu.Unlock()
		if !ok {
			http.Error(w, "Bad credentials", http.StatusUnauthorized)
			return
		}
		_, _ = io.WriteString(w, `{"login":"octocat"}`)
	})
	s := httptest.NewServer(m)
	t.Cleanup(s.Close)
	return s
}

// flowWorld is an MCP server behind the proxy, with connected accounts
// and approvals, and the two services it talks to.
type flowWorld struct {
	idp     *flowIdP
	gh      *httptest.Server
	server  *httptest.Server
	proxy   *providers.OAuthProvider
	deleted chan string
}

func newFlowWorld(t *testing.T) *flowWorld {
	w := &flowWorld{idp: newFlowIdP(t), gh: fakeGitHub(t), deleted: make(chan string, 4)}
	w.server = httptest.NewUnstartedServer(nil)
	base := "http://" + w.server.Listener.Addr().String()
	log := slog.New(slog.DiscardHandler)
	p, err := providers.NewOAuthProvider(providers.OAuthProviderConfig{
		Config: providers.Config{BaseURL: base, ClientID: "up-client", ClientSecret: "up-secret", Scopes: []string{"openid"},
			JWTSigningKey: strings.Repeat("j", 32), EncryptionKey: strings.Repeat("e", 32), Logger: log},
		AuthorizationEndpoint: w.idp.URL + "/authorize", TokenEndpoint: w.idp.URL + "/token", UserInfoEndpoint: w.idp.URL + "/userinfo",
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	w.proxy = p
	gh := accounts.GitHub("gh-client", "gh-secret", "repo")
	gh.AuthURL, gh.TokenURL = w.gh.URL+"/login/oauth/authorize", w.gh.URL+"/login/oauth/access_token"
	accts, err := accounts.New(accounts.Config{BaseURL: base, Services: []accounts.Service{gh}, SignIn: p,
		Storage: p.Storage(), Key: strings.Repeat("a", 32), Logger: log})
	require.NoError(t, err)
	approvals, err := approval.New(approval.Config{BaseURL: base, SignIn: p, Storage: p.Storage(), Key: strings.Repeat("b", 32), Logger: log})
	require.NoError(t, err)

	srv := mcp.NewServer(mcp.Options{Name: "flows", Version: "1.0.0", Auth: p, Logger: log})
	mcp.AddTool(srv, mcp.Tool{Name: "github_whoami", Description: "Your GitHub login"},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			gh, err := accts.Client(ctx, c, "github")
			if err != nil {
				return "", err
			}
			resp, err := gh.Get(w.gh.URL + "/user")
			if err != nil {
				return "", err
			}
			defer resp.Body.Close()
			var u struct{ Login string }
			if err := json.NewDecoder(resp.Body).Decode(&u); err != nil {
				return "", err
			}
			return "GitHub says you are " + u.Login, nil
		})
	type deleteIn struct {
		Repo string `json:"repo"`
	}
	mcp.AddTool(srv, mcp.Tool{Name: "delete_repo", Description: "Deletes a repository and everything in it.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: new(true)}},
		func(ctx context.Context, c *mcp.Context, in deleteIn) (string, error) {
			w.deleted <- in.Repo
			return "deleted " + in.Repo, nil
		})
	accts.Mount(srv)
	approvals.Mount(srv)
	h := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = h.Close() })
	w.server.Config.Handler = mcphttp.NewMux(h, nil)
	w.server.Start()
	t.Cleanup(w.server.Close)
	return w
}

// mcpToken signs user in headlessly (registration, the proxy's consent
// page, the identity provider) and returns the proxy's access token: what
// an MCP client holds after its own login.
func (w *flowWorld) mcpToken(t *testing.T, user string) string {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	idpURL, _ := url.Parse(w.idp.URL)
	jar.SetCookies(idpURL, []*http.Cookie{{Name: "idp_user", Value: user, Path: "/"}})
	const redirect = "http://127.0.0.1:1/callback"
	hc := &http.Client{Jar: jar, Timeout: 10 * time.Second, CheckRedirect: func(r *http.Request, _ []*http.Request) error {
		if strings.HasPrefix(r.URL.String(), redirect) {
			return http.ErrUseLastResponse
		}
		return nil
	}}
	body := `{"client_name":"e2e","redirect_uris":["` + redirect + `"],"token_endpoint_auth_method":"none","grant_types":["authorization_code"]}`
	resp, err := hc.Post(w.server.URL+providers.RegisterPath, "application/json", strings.NewReader(body))
	require.NoError(t, err)
	var reg struct {
		ClientID string `json:"client_id"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&reg))
	resp.Body.Close()
	conf := &oauth2.Config{ClientID: reg.ClientID, RedirectURL: redirect, Scopes: []string{"openid"},
		Endpoint: oauth2.Endpoint{AuthURL: w.server.URL + providers.AuthorizePath, TokenURL: w.server.URL + providers.TokenPath, AuthStyle: oauth2.AuthStyleInParams}}
	verifier := oauth2.GenerateVerifier()
	resp, err = hc.Get(conf.AuthCodeURL("st", oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", w.proxy.Resource())))
	require.NoError(t, err)
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	form := url.Values{"action": {"approve"}}
	for _, m := range regexp.MustCompile(`name="(txn|csrf)" value="([^"]*)"`).FindAllStringSubmatch(string(page), -1) {
		form.Set(m[1], m[2])
	}
	req, _ := http.NewRequest(http.MethodPost, w.server.URL+providers.ConsentPath, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", w.server.URL)
	resp, err = hc.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	back, err := url.Parse(resp.Header.Get("Location"))
	require.NoError(t, err)
	require.NotEmpty(t, back.Query().Get("code"), "the proxy's login ended at %s", back)
	tok, err := conf.Exchange(context.WithValue(context.Background(), oauth2.HTTPClient, hc), back.Query().Get("code"),
		oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("resource", w.proxy.Resource()))
	require.NoError(t, err)
	return tok.AccessToken
}

type bearerRT struct {
	base http.RoundTripper
	tok  string
}

func (b bearerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.tok)
	return b.base.RoundTrip(r)
}

// browserAs signs a browser (a context of its own: cookies apart) in at
// the identity provider as user.
func (w *flowWorld) browserAs(t *testing.T, ctx context.Context, user string) {
	t.Helper()
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(w.idp.URL+"/login?as="+user)))
}

// text is the text of the element with id on the current page.
func text(t *testing.T, ctx context.Context, id string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID(id)))
	require.NoError(t, err, "#%s", id)
	return strings.TrimSpace(s)
}

// TestUserFlowsInBrowser: connect your account, then approve a
// destructive call, each from a tool call of the go-sdk client, in
// headless Chromium, at 2025-11-25 and 2026-07-28; bob's browser, signed
// in at the same identity provider, is refused alice's links.
func TestUserFlowsInBrowser(t *testing.T) {
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			w := newFlowWorld(t)
			alice := newChromium(t)
			violations := cspErrors(t, alice)
			bob, cancelBob := chromedp.NewContext(alice, chromedp.WithNewBrowserContext())
			t.Cleanup(cancelBob)
			w.browserAs(t, alice, "alice")
			w.browserAs(t, bob, "bob")

			var mu sync.Mutex
			var opened []string
			open := func(ctx context.Context, req *gosdk.ElicitRequest) (*gosdk.ElicitResult, error) {
				p := req.Params
				require.Equal(t, "url", p.Mode)
				mu.Lock()
				opened = append(opened, p.URL)
				n := len(opened)
				mu.Unlock()
				switch {
				case strings.Contains(p.URL, "/accounts/connect"):
					// bob first: signed in, but not the user it was made for.
					require.NoError(t, chromedp.Do(bob, chromedp.Navigate(p.URL), chromedp.WaitVisible(chromedp.ID("title"))))
					assert.Equal(t, "This link is for another user", text(t, bob, "title"))
					// alice: signed in to the server's pages at the IdP,
					// shown the page, sent to GitHub, back connected.
					require.NoError(t, chromedp.Do(alice, chromedp.Navigate(p.URL), chromedp.WaitVisible(chromedp.ID("connect"))))
					assert.Equal(t, "GitHub", text(t, alice, "service"))
					assert.Equal(t, strings.TrimPrefix(w.gh.URL, "http://"), text(t, alice, "service-host"))
					if version == "2025-11-25" {
						screenshot(t, alice, "connect-account.png", 1280, false, false)
					}
					require.NoError(t, chromedp.Do(alice, chromedp.Click(chromedp.ID("connect")), chromedp.WaitVisible(chromedp.ID("message"))))
					assert.Equal(t, "Your GitHub account is connected", text(t, alice, "title"))
				case strings.Contains(p.URL, "/approvals/"):
					require.NoError(t, chromedp.Do(bob, chromedp.Navigate(p.URL), chromedp.WaitVisible(chromedp.ID("title"))))
					assert.Equal(t, "This request is another user's", text(t, bob, "title"))
					require.NoError(t, chromedp.Do(alice, chromedp.Navigate(p.URL), chromedp.WaitVisible(chromedp.ID("approve"))))
					assert.Equal(t, "delete_repo", text(t, alice, "tool"))
					assert.Contains(t, text(t, alice, "args"), `"repo": "acme/site"`)
					assert.Equal(t, "Deletes a repository and everything in it.", text(t, alice, "description"))
					if version == "2025-11-25" {
						screenshot(t, alice, "approval.png", 1280, false, false)
						screenshot(t, alice, "approval-phone-dark.png", 390, true, true)
					}
					require.NoError(t, chromedp.Do(alice, chromedp.Click(chromedp.ID("approve")), chromedp.WaitVisible(chromedp.ID("message"))))
					assert.Equal(t, "Approved", text(t, alice, "title"))
				default:
					t.Errorf("elicitation %d: unexpected URL %s", n, p.URL)
				}
				return &gosdk.ElicitResult{Action: "accept"}, nil
			}
			completed := make(chan string, 4)
			c := gosdk.NewClient(&gosdk.Implementation{Name: "e2e-flows", Version: "1.0.0"}, &gosdk.ClientOptions{
				ElicitationHandler: open,
				ElicitationCompleteHandler: func(_ context.Context, r *gosdk.ElicitationCompleteNotificationRequest) {
					completed <- r.Params.ElicitationID
				},
				Capabilities: &gosdk.ClientCapabilities{Elicitation: &gosdk.ElicitationCapabilities{
					Form: &gosdk.FormElicitationCapabilities{}, URL: &gosdk.URLElicitationCapabilities{}}},
			})
			base := http.DefaultTransport.(*http.Transport).Clone()
			t.Cleanup(base.CloseIdleConnections)
			tr := &gosdk.StreamableClientTransport{Endpoint: w.server.URL + "/mcp", MaxRetries: -1,
				HTTPClient: &http.Client{Transport: bearerRT{base: base, tok: w.mcpToken(t, "alice")}}}
			ctx := testContext(t, 60*time.Second)
			s, err := c.Connect(ctx, tr, &gosdk.ClientSessionOptions{ProtocolVersion: version})
			require.NoError(t, err)
			t.Cleanup(func() { _ = s.Close() })
			if version == "2026-07-28" {
				require.Equal(t, version, s.InitializeResult().ProtocolVersion)
			}

			// call is what an application does with a tool call: at
			// 2026-07-28 the SDK answers the rounds itself; at 2025-11-25
			// a -32042 error's pages are shown (the same handler), the
			// page's notifications/elicitation/complete awaited, and the
			// tool called again.
			call := func(p *gosdk.CallToolParams) (*gosdk.CallToolResult, error) {
				res, err := s.CallTool(ctx, p)
				var je *jsonrpc.Error
				if version != "2025-11-25" || !errors.As(err, &je) || je.Code != mcp.CodeURLElicitationRequired {
					return res, err
				}
				var data struct {
					Elicitations []*gosdk.ElicitParams `json:"elicitations"`
				}
				require.NoError(t, json.Unmarshal(je.Data, &data))
				require.Len(t, data.Elicitations, 1)
				_, err = open(ctx, &gosdk.ElicitRequest{Params: data.Elicitations[0]})
				require.NoError(t, err)
				select {
				case id := <-completed:
					assert.Equal(t, data.Elicitations[0].ElicitationID, id, "notifications/elicitation/complete names the page's elicitation")
				case <-ctx.Done():
					t.Fatal("no notifications/elicitation/complete")
				}
				return s.CallTool(ctx, p)
			}
			res, err := call(&gosdk.CallToolParams{Name: "github_whoami"})
			require.NoError(t, err)
			require.False(t, res.IsError, "%v", res.Content)
			assert.Equal(t, "GitHub says you are octocat", res.Content[0].(*gosdk.TextContent).Text)

			res, err = call(&gosdk.CallToolParams{Name: "delete_repo", Arguments: map[string]any{"repo": "acme/site"}})
			require.NoError(t, err)
			require.False(t, res.IsError, "%v", res.Content)
			assert.Equal(t, "deleted acme/site", res.Content[0].(*gosdk.TextContent).Text)
			assert.Equal(t, "acme/site", <-w.deleted)
			select {
			case r := <-w.deleted:
				t.Fatalf("the tool ran twice (%s)", r)
			default:
			}

			// The account stays connected: no page this time.
			res, err = s.CallTool(ctx, &gosdk.CallToolParams{Name: "github_whoami"})
			require.NoError(t, err)
			assert.Equal(t, "GitHub says you are octocat", res.Content[0].(*gosdk.TextContent).Text)
			mu.Lock()
			assert.Len(t, opened, 2, "one page per flow: %v", opened)
			mu.Unlock()
			assert.Empty(t, violations(), "the browser reported Content-Security-Policy violations")
		})
	}
}
