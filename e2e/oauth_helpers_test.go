package e2e

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Helpers of the OAuth e2e tests: examples/oauth as a process, and a
// scripted browser that logs in and approves the consent page.

// oauthBinary builds examples/oauth with the race detector, once.
func oauthBinary(t testing.TB) string { return exampleBinary(t, "oauth") }

// oauthServer is a running examples/oauth.
type oauthServer struct {
	URL    string // http://127.0.0.1:PORT, where it listens
	Pid    int
	stderr *syncBuffer
}

// startOAuthServer runs examples/oauth on port with env (on top of a clean
// environment) and waits until it answers /health. At cleanup it is sent
// SIGTERM and must exit 0 within 5 s, without a data race.
func startOAuthServer(t *testing.T, port int, env map[string]string) *oauthServer {
	t.Helper()
	bin := oauthBinary(t)
	s := &oauthServer{URL: "http://127.0.0.1:" + strconv.Itoa(port), stderr: &syncBuffer{}}
	dumpStderrOnFailure(t, s.stderr)
	cmd := exec.Command(bin, "-host", "127.0.0.1", "-port", strconv.Itoa(port))
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stdout, cmd.Stderr = s.stderr, s.stderr
	require.NoError(t, cmd.Start())
	s.Pid = cmd.Process.Pid
	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		select {
		case <-exited:
			t.Errorf("examples/oauth exited early: %v", waitErr)
		default:
			_ = syscall.Kill(cmd.Process.Pid, syscall.SIGTERM)
			select {
			case <-exited:
				if waitErr != nil {
					t.Errorf("examples/oauth did not stop cleanly on SIGTERM: %v", waitErr)
				}
			case <-time.After(5 * time.Second):
				t.Errorf("examples/oauth did not exit within 5 s of SIGTERM; killing it")
				_ = syscall.Kill(cmd.Process.Pid, syscall.SIGKILL)
				<-exited
			}
		}
		checkRaces(t, s.stderr)
	})

	c := &http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	deadline := time.Now().Add(15 * time.Second)
	for {
		select {
		case <-exited:
			t.Fatalf("examples/oauth exited before answering: %v\n%s", waitErr, s.stderr)
		default:
		}
		resp, err := c.Get(s.URL + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("examples/oauth did not answer %s/health within 15 s: %v", s.URL, err)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// browser is a scripted user agent: a cookie jar, redirects followed one
// by one, and a user who clicks Approve on the consent page.
type browser struct {
	t  testing.TB
	c  *http.Client
	tr *http.Transport
	// Steps lists every request made, for failure messages.
	Steps []string
}

// newFormBrowser returns a scripted browser: an HTTP client with a cookie
// jar that follows the OAuth redirects itself and approves consent by
// posting the form (consent_test.go drives the real page in Chromium).
func newFormBrowser(t testing.TB) *browser {
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &browser{t: t, tr: tr, c: &http.Client{Jar: jar, Transport: tr, Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// login opens authURL and goes where the servers send it: the consent page
// (approved), the upstream provider (which logs the user in at once), the
// callback, until a redirect leaves for a URL that starts with stopAt
// (the client's redirect URI). It returns that URL, not fetched.
func (b *browser) login(authURL, stopAt string) *url.URL {
	b.t.Helper()
	next, err := url.Parse(authURL)
	require.NoError(b.t, err)
	method, body, origin := http.MethodGet, "", ""
	for hop := 0; hop < 12; hop++ {
		if method == http.MethodGet && strings.HasPrefix(next.String(), stopAt) {
			return next
		}
		req, err := http.NewRequest(method, next.String(), strings.NewReader(body))
		require.NoError(b.t, err)
		if method == http.MethodPost {
			// What a browser sends with a form it submits on the same page.
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Origin", origin)
			req.Header.Set("Sec-Fetch-Site", "same-origin")
		}
		resp, err := b.c.Do(req)
		require.NoError(b.t, err, "%s %s", method, next)
		page, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		b.Steps = append(b.Steps, fmt.Sprintf("%s %s → %d", method, next.Redacted(), resp.StatusCode))
		switch {
		case resp.StatusCode >= 300 && resp.StatusCode < 400:
			loc, err := next.Parse(resp.Header.Get("Location"))
			require.NoError(b.t, err, "bad Location after %s", next)
			next, method, body = loc, http.MethodGet, ""
		case resp.StatusCode == http.StatusOK && method == http.MethodGet:
			action, form := approveForm(b.t, string(page))
			loc, err := next.Parse(action)
			require.NoError(b.t, err)
			origin = next.Scheme + "://" + next.Host
			next, method, body = loc, http.MethodPost, form.Encode()
		default:
			b.t.Fatalf("login: %s %s answered %d:\n%s\nsteps: %s", method, next, resp.StatusCode, page, strings.Join(b.Steps, "\n"))
		}
	}
	b.t.Fatalf("login: too many hops:\n%s", strings.Join(b.Steps, "\n"))
	return nil
}

var (
	formTag   = regexp.MustCompile(`(?is)<form\b[^>]*>`)
	inputTag  = regexp.MustCompile(`(?is)<(?:input|button)\b[^>]*>`)
	attribute = regexp.MustCompile(`(?is)\b([a-z-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))`)
)

func attrs(tag string) map[string]string {
	m := map[string]string{}
	for _, a := range attribute.FindAllStringSubmatch(tag, -1) {
		m[strings.ToLower(a[1])] = html.UnescapeString(a[2] + a[3] + a[4])
	}
	return m
}

// approveForm reads the consent page like a browser would: the POST form,
// its hidden fields (the transaction and the CSRF token), and the Approve
// button (value or id "approve"), whose name and value a click submits.
func approveForm(t testing.TB, page string) (string, url.Values) {
	t.Helper()
	ft := formTag.FindString(page)
	require.NotEmpty(t, ft, "the page has no form:\n%s", page)
	fa := attrs(ft)
	require.Equal(t, "post", strings.ToLower(fa["method"]), "the consent form must POST: %s", ft)
	form := url.Values{}
	approve := false
	for _, tag := range inputTag.FindAllString(page, -1) {
		a := attrs(tag)
		switch {
		case strings.EqualFold(a["type"], "hidden") && a["name"] != "":
			form.Set(a["name"], a["value"])
		case !approve && (strings.EqualFold(a["value"], "approve") || strings.EqualFold(a["id"], "approve")):
			// The button the user clicks: a browser sends its name=value.
			if a["name"] != "" {
				form.Set(a["name"], a["value"])
			}
			approve = true
		}
	}
	require.True(t, approve, "the consent page has no Approve button:\n%s", page)
	return fa["action"], form
}

// get fetches u with the browser (cookies included) and returns the status.
func (b *browser) get(u string) int {
	b.t.Helper()
	resp, err := b.c.Get(u)
	require.NoError(b.t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// withTimeout returns a context ending after d and at the end of t.
func withTimeout(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// apiClient makes the tests' own OAuth calls (register, token); its idle
// connections are closed at the end of t.
func apiClient(t testing.TB) *http.Client {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 10 * time.Second}
}

// registerPublicClient registers a public client (no secret) with one
// redirect URI and returns its client_id.
func registerPublicClient(t testing.TB, base, redirect string) string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"redirect_uris": []string{redirect}, "token_endpoint_auth_method": "none",
		"client_name": "mcpchain e2e (Go)", "grant_types": []string{"authorization_code", "refresh_token"}})
	resp, err := apiClient(t).Post(base+"/oauth/register", "application/json", bytes.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	var out struct {
		ClientID string `json:"client_id"`
	}
	raw, _ := io.ReadAll(resp.Body)
	require.Equal(t, http.StatusCreated, resp.StatusCode, "register: %s", raw)
	require.NoError(t, json.Unmarshal(raw, &out))
	require.NotEmpty(t, out.ClientID)
	return out.ClientID
}

func s256(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// tokenResponse is a token endpoint's answer, success or error.
type tokenResponse struct {
	Status       int    `json:"-"`
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	TokenType    string `json:"token_type"`
	Error        string `json:"error"`
	Description  string `json:"error_description"`
}

// tokenRequest posts form to base's token endpoint.
func tokenRequest(t testing.TB, base string, form url.Values) tokenResponse {
	t.Helper()
	resp, err := apiClient(t).PostForm(base+"/oauth/token", form)
	require.NoError(t, err)
	defer resp.Body.Close()
	var out tokenResponse
	raw, _ := io.ReadAll(resp.Body)
	require.NoError(t, json.Unmarshal(raw, &out), "token endpoint: %d %s", resp.StatusCode, raw)
	out.Status = resp.StatusCode
	return out
}

// exchangeCode redeems a code at server's token endpoint for a public
// client (with the RFC 8707 resource) and requires success.
func exchangeCode(t testing.TB, server, resource, clientID, redirect, code, verifier string) tokenResponse {
	t.Helper()
	tok := tokenRequest(t, server, url.Values{"grant_type": {"authorization_code"}, "client_id": {clientID},
		"redirect_uri": {redirect}, "code": {code}, "code_verifier": {verifier}, "resource": {resource}})
	require.Equal(t, http.StatusOK, tok.Status, "code exchange: %s %s", tok.Error, tok.Description)
	require.NotEmpty(t, tok.AccessToken)
	return tok
}

// refresh uses a refresh token for a public client.
func refresh(t testing.TB, base, clientID, rt string) tokenResponse {
	t.Helper()
	return tokenRequest(t, base, url.Values{"grant_type": {"refresh_token"}, "client_id": {clientID}, "refresh_token": {rt}})
}
