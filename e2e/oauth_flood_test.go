package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOAuthRegistrationFlood is a registration flood against
// examples/oauth as a process, in front of a real identity provider
// library: a victim registers, then 1,000 anonymous registrations of the
// largest size the server accepts (two redirect URIs of 2,000 bytes and a
// name of 200, all "<", which JSON escaping used to make six bytes each)
// arrive from one address; the victim's login and refresh must still
// work, and the server's RSS must stay bounded. It runs with the default
// rate limits (most of the flood is refused with 429) and with the
// registration limit off (every registration is stored: the records'
// size and the registration quota are what bound the memory).
func TestOAuthRegistrationFlood(t *testing.T) {
	oauthBinary(t)
	for _, tc := range []struct{ name, limit string }{{"default limits", ""}, {"registration limit off", "off"}} {
		t.Run(tc.name, func(t *testing.T) {
			up := newUpstream(t, "generic")
			port := freePort(t)
			base := "http://127.0.0.1:" + strconv.Itoa(port)
			env := up.env()
			env["MCP_BASE_URL"] = base
			if tc.limit != "" {
				env["OAUTH_REGISTER_RATE_LIMIT"] = tc.limit
			}
			srv := startOAuthServer(t, port, env)
			redirect := "http://127.0.0.1:9/cb"
			victim := registerPublicClient(t, base, redirect)

			time.Sleep(200 * time.Millisecond) // let the start settle before the first reading
			before := procRSSKiB(t, srv.Pid)
			body := maximalRegistration()
			c := apiClient(t)
			statuses := map[int]int{}
			start := time.Now()
			for range 1000 {
				resp, err := c.Post(base+"/oauth/register", "application/json", strings.NewReader(body))
				require.NoError(t, err)
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				statuses[resp.StatusCode]++
			}
			elapsed := time.Since(start)
			after := procRSSKiB(t, srv.Pid)
			t.Logf("%s: 1,000 registrations of %d bytes in %v: statuses %v; RSS %d KiB before, %d KiB after (+%d KiB)",
				tc.name, len(body), elapsed.Round(time.Millisecond), statuses, before, after, after-before)
			for st := range statuses {
				assert.Contains(t, []int{http.StatusCreated, http.StatusTooManyRequests, http.StatusServiceUnavailable}, st,
					"every registration is stored or refused as a limit, none fails")
			}
			if tc.limit == "" {
				assert.Greater(t, statuses[http.StatusTooManyRequests], 900, "the rate limit refuses most of the flood")
			} else {
				assert.Equal(t, 1000, statuses[http.StatusCreated], "without the rate limit every registration is stored")
			}
			assert.Less(t, after-before, 64<<10, "RSS grows by less than 64 MiB")

			// The victim logs in and refreshes.
			authURL, verifier := authorizeURL(base, victim, redirect, "st")
			back := newFormBrowser(t).login(authURL, redirect)
			require.NotEmpty(t, back.Query().Get("code"), "login after the flood: %s", back)
			tok := exchangeCode(t, base, base+"/mcp", victim, redirect, back.Query().Get("code"), verifier)
			r := refresh(t, base, victim, tok.RefreshToken)
			require.Equal(t, http.StatusOK, r.Status, "refresh after the flood: %s %s", r.Error, r.Description)
			assert.NotEmpty(t, r.AccessToken)
		})
	}
}

// maximalRegistration is the largest registration body examples/oauth
// accepts.
func maximalRegistration() string {
	uri := func(i int) string {
		u := fmt.Sprintf("http://localhost:%d/", 5000+i)
		return u + strings.Repeat("<", 2000-len(u))
	}
	b, _ := json.Marshal(map[string]any{"redirect_uris": []string{uri(0), uri(1)}, "token_endpoint_auth_method": "none",
		"client_name": strings.Repeat("<", 200), "application_type": "native"})
	return string(b)
}

// procRSSKiB reads the resident set size of pid (VmRSS) in KiB.
func procRSSKiB(t *testing.T, pid int) int {
	t.Helper()
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			require.NoError(t, err)
			return n
		}
	}
	t.Fatalf("no VmRSS in /proc/%d/status", pid)
	return 0
}
