package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/accounts"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/elicit"
	"github.com/mcpchain/mcp/mcphttp"
)

type acctUser struct{ id string }

func (u *acctUser) Subject() string { return u.id }

// cookieSignIn: the browser's user is its cookie "who".
type cookieSignIn struct{}

func (cookieSignIn) BrowserUser(r *http.Request) (any, bool) {
	c, err := r.Cookie("who")
	if err != nil {
		return nil, false
	}
	return &acctUser{id: c.Value}, true
}

func (cookieSignIn) SignIn(w http.ResponseWriter, _ *http.Request, _ string) {
	http.Error(w, "sign in", http.StatusForbidden)
}

// accountsServer is an MCP server (Bearer <name> is user <name>) whose
// users connect a fake OAuth service "github"; alice has connected it.
func accountsServer(t *testing.T) string {
	t.Helper()
	svc := http.NewServeMux()
	svc.HandleFunc("GET /authorize", func(w http.ResponseWriter, r *http.Request) {
		back, _ := url.Parse(r.URL.Query().Get("redirect_uri"))
		back.RawQuery = url.Values{"code": {"c1"}, "state": {r.URL.Query().Get("state")}}.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
	})
	svc.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"access_token":"at","token_type":"Bearer","refresh_token":"rt","expires_in":3600}`)
	})
	fake := httptest.NewServer(svc)
	t.Cleanup(fake.Close)

	ts := httptest.NewUnstartedServer(nil)
	base := "http://" + ts.Listener.Addr().String()
	acc, err := accounts.New(accounts.Config{BaseURL: base, SignIn: cookieSignIn{}, Logger: slog.New(slog.DiscardHandler),
		Key: strings.Repeat("k", 32), Services: []accounts.Service{{Name: "github", Title: "GitHub", ClientID: "c",
			ClientSecret: "s", AuthURL: fake.URL + "/authorize", TokenURL: fake.URL + "/token", AuthStyle: oauth2.AuthStyleInParams,
			Scopes: []string{"repo"}}}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = acc.Close() })
	srv := mcp.NewServer(mcp.Options{Name: "acct", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler),
		Authenticate: func(r *http.Request) (any, error) {
			if name, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
				return &acctUser{id: name}, nil
			}
			return nil, nil
		}})
	mcp.AddTool(srv, mcp.Tool{Name: "gh"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		if _, err := acc.Client(ctx, c, "github"); err != nil {
			return "", err
		}
		return "ok", nil
	})
	acc.Mount(srv)
	h := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = h.Close() })
	ts.Config.Handler = mcphttp.NewMux(h, nil)
	ts.Start()
	t.Cleanup(ts.Close)

	// alice connects GitHub: the tool's elicitation, then the page.
	ctx := context.Background()
	c, err := client.Connect(ctx, client.HTTP(ts.URL+"/mcp", &client.HTTPOptions{Header: http.Header{"Authorization": {"Bearer alice"}}}),
		&client.Options{ElicitURL: func(context.Context, *elicit.Params) (*elicit.Result, error) {
			return &elicit.Result{Action: elicit.ActionAccept}, nil
		}})
	require.NoError(t, err)
	defer c.Close()
	_, err = c.CallTool(ctx, "gh", nil, nil)
	var je *mcp.Error
	require.ErrorAs(t, err, &je)
	var data struct{ Elicitations []elicit.Params }
	raw, err := json.Marshal(je.Data)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &data))
	jar, _ := cookiejar.New(nil)
	u, _ := url.Parse(ts.URL)
	jar.SetCookies(u, []*http.Cookie{{Name: "who", Value: "alice", Path: "/"}})
	b := &http.Client{Jar: jar, Timeout: 5 * time.Second}
	resp, err := b.Get(data.Elicitations[0].URL)
	require.NoError(t, err)
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	form := url.Values{"action": {"connect"}}
	for _, m := range regexp.MustCompile(`name="(id|csrf)" value="([^"]*)"`).FindAllStringSubmatch(string(page), -1) {
		form.Set(m[1], m[2])
	}
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/accounts/connect", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", ts.URL)
	resp, err = b.Do(req)
	require.NoError(t, err)
	done, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Contains(t, string(done), "is connected")
	return ts.URL + "/mcp"
}

// TestAccounts runs mcpchain accounts list and disconnect as a user does,
// against a server whose user alice connected GitHub.
func TestAccounts(t *testing.T) {
	t.Parallel()
	mcpURL := accountsServer(t)
	alice := []string{"-H", "Authorization: Bearer alice"}
	r := run(t, "", "", append(append([]string{"accounts", "list"}, alice...), mcpURL)...)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `SERVICE\s+NAME\s+SCOPES\s+CONNECTED\ngithub\s+GitHub\s+repo\s+\d{4}-`, r.stdout)

	r = run(t, "", "", "accounts", "list", "-H", "Authorization: Bearer bob", mcpURL)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "no connected accounts\n", r.stdout, "bob sees none of alice's")

	r = run(t, "", "", "accounts", "list", mcpURL)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "403 Forbidden")
	assert.Contains(t, r.stderr, "mcp.Subject", "an anonymous caller is told why")

	r = run(t, "", "", append(append([]string{"accounts", "list", "--path", "/nope"}, alice...), mcpURL)...)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "no accounts API there")

	r = run(t, "", "", append(append([]string{"accounts", "disconnect"}, alice...), mcpURL, "gitlab")...)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "no service named gitlab")

	r = run(t, "", "", append(append([]string{"accounts", "disconnect"}, alice...), mcpURL, "github")...)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "disconnected github\n", r.stdout)
	r = run(t, "", "", append(append([]string{"accounts", "list"}, alice...), mcpURL)...)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "no connected accounts\n", r.stdout)
}
