package e2e

import (
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/oauth2-proxy/mockoidc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rsBinary builds examples/resourceserver with the race detector, once.
func rsBinary(t testing.TB) string { return exampleBinary(t, "resourceserver") }

// startResourceServer runs examples/resourceserver with args on a free
// port and waits for /health; at cleanup it must stop cleanly on SIGTERM
// with no data race.
func startResourceServer(t *testing.T, args ...string) string {
	t.Helper()
	port := freePort(t)
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	stderr := &syncBuffer{}
	dumpStderrOnFailure(t, stderr)
	cmd := exec.Command(rsBinary(t), append([]string{"-host", "127.0.0.1", "-port", strconv.Itoa(port), "-resource", base + "/mcp"}, args...)...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	cmd.Stdout, cmd.Stderr = stderr, stderr
	require.NoError(t, cmd.Start())
	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		select {
		case <-exited:
			t.Errorf("examples/resourceserver exited early: %v", waitErr)
		default:
			_ = syscall.Kill(cmd.Process.Pid, syscall.SIGTERM)
			select {
			case <-exited:
				if waitErr != nil {
					t.Errorf("examples/resourceserver did not stop cleanly: %v", waitErr)
				}
			case <-time.After(5 * time.Second):
				_ = syscall.Kill(cmd.Process.Pid, syscall.SIGKILL)
				<-exited
				t.Errorf("examples/resourceserver did not exit within 5 s of SIGTERM")
			}
		}
		checkRaces(t, stderr)
	})
	c := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(15 * time.Second)
	for {
		select {
		case <-exited:
			t.Fatalf("examples/resourceserver exited: %v\n%s", waitErr, stderr)
		default:
		}
		if resp, err := c.Get(base + "/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("examples/resourceserver did not answer /health within 15 s")
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// rsClientOut is what rs-client.mjs prints.
type rsClientOut struct {
	Watchdog              string              `json:"watchdog"`
	Fatal                 *tsErr              `json:"fatal"`
	AuthorizationRequests []map[string]string `json:"authorizationRequests"`
	Discovery             struct {
		AuthorizationServerURL string   `json:"authorizationServerUrl"`
		ResourceMetadataURL    string   `json:"resourceMetadataUrl"`
		Resource               string   `json:"resource"`
		AuthorizationServers   []string `json:"authorizationServers"`
		Issuer                 string   `json:"issuer"`
	} `json:"discovery"`
	TokenHistory []struct {
		AccessTokenClaims map[string]any `json:"accessTokenClaims"`
	} `json:"tokenHistory"`
	Steps map[string]json.RawMessage `json:"steps"`
}

// TestResourceServerTypeScriptClient: examples/resourceserver accepts
// the tokens of an external identity provider (mockoidc, a real OpenID
// Connect provider library, in process). The official TypeScript SDK
// client, knowing only the MCP URL and its pre-registered client at the
// provider, gets a 401, reads the protected-resource metadata it names,
// finds mockoidc there, reads mockoidc's metadata, signs in with PKCE
// and the resource indicator, exchanges the code at mockoidc, and calls
// tools with mockoidc's access token. The server never sees a login.
func TestResourceServerTypeScriptClient(t *testing.T) {
	t.Parallel()
	m, err := mockoidc.NewServer(nil)
	require.NoError(t, err)
	m.AccessTTL = time.Hour
	var mu sync.Mutex // mockoidc's session store is a plain map
	require.NoError(t, m.AddMiddleware(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			defer mu.Unlock()
			next.ServeHTTP(w, r)
		})
	}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	require.NoError(t, m.Start(ln, nil))
	t.Cleanup(func() { _ = m.Shutdown() })

	// mockoidc's access tokens name its client in aud and carry no scope
	// claim: the audience is configured, no scope is required.
	base := startResourceServer(t, "-issuer", m.Issuer(), "-audience", m.ClientID)

	// A token mockoidc did not sign, or none: refused with the challenges.
	req, _ := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Header.Set("Authorization", "Bearer eyJhbGciOiJSUzI1NiJ9.e30.c2ln")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.Equal(t, `Bearer resource_metadata="`+base+`/.well-known/oauth-protected-resource/mcp", error="invalid_token", error_description="the access token's signature does not verify with the issuer's published keys"`,
		resp.Header.Get("WWW-Authenticate"))

	run := runNodeEnv(t, 70*time.Second, []string{"RS_CLIENT_ID=" + m.ClientID, "RS_CLIENT_SECRET=" + m.ClientSecret, "RS_SCOPE=openid profile"},
		"rs-client.mjs", base+"/mcp")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("rs-client.mjs stderr:\n%s\nstdout:\n%s", run.stderr, run.stdout)
		}
	})
	var out rsClientOut
	require.NoError(t, json.Unmarshal(run.stdout, &out), "rs-client.mjs must print one JSON object")
	require.Empty(t, out.Watchdog)
	require.Nil(t, out.Fatal)
	require.Equal(t, 0, run.exitCode)

	assert.Contains(t, string(out.Steps["firstConnect"]), "error", "without a token the first connect fails (401)")
	assert.Equal(t, base+"/mcp", out.Discovery.Resource, "the SDK read the protected-resource metadata")
	assert.Equal(t, []string{m.Issuer()}, out.Discovery.AuthorizationServers)
	assert.Equal(t, m.Issuer(), out.Discovery.Issuer, "…and mockoidc's own metadata")
	require.Len(t, out.AuthorizationRequests, 1)
	ar := out.AuthorizationRequests[0]
	assert.Equal(t, m.AuthorizationEndpoint(), ar["endpoint"], "the browser went to the external provider")
	assert.Equal(t, base+"/mcp", ar["resource"], "RFC 8707 resource indicator")
	assert.Equal(t, "S256", ar["code_challenge_method"])
	assert.Equal(t, m.ClientID, ar["client_id"])
	require.JSONEq(t, `{"ok":true}`, string(out.Steps["finishAuth"]))
	require.NotEmpty(t, out.TokenHistory)
	claims := out.TokenHistory[0].AccessTokenClaims
	assert.Equal(t, m.Issuer(), claims["iss"], "mockoidc's token, unchanged")

	var tools struct{ Names []string }
	require.NoError(t, json.Unmarshal(out.Steps["tools"], &tools), "%s", out.Steps["tools"])
	assert.Contains(t, tools.Names, "whoami")
	assert.Contains(t, tools.Names, "echo")
	var who struct {
		IsError           bool           `json:"isError"`
		StructuredContent map[string]any `json:"structuredContent"`
		Text              string         `json:"text"`
	}
	require.NoError(t, json.Unmarshal(out.Steps["whoami"], &who), "%s", out.Steps["whoami"])
	require.False(t, who.IsError, who.Text)
	var sess map[string]any
	require.NoError(t, json.Unmarshal([]byte(who.Text), &sess), who.Text)
	assert.Equal(t, mockoidc.DefaultUser().Subject, sess["subject"])
	assert.Equal(t, m.Issuer(), sess["issuer"])
	assert.Equal(t, []any{m.ClientID}, sess["audience"])
	assert.JSONEq(t, `{"isError":false,"text":"hi"}`, string(out.Steps["echo"]))
}
