package e2e

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/elicit"
	"github.com/mcpchain/mcp/mcphttp"
)

// elicitPizza is the typed form of the "form" tool.
type elicitPizza struct {
	Size     string   `json:"size" title:"Size" enum:"s,m,l" enumTitles:"Small,Medium,Large" default:"m"`
	Toppings []string `json:"toppings,omitempty" enum:"ham,olives,basil" enumTitles:"Ham,Olives,Basil" mcp:"maxItems=2"`
	Note     string   `json:"note,omitempty" mcp:"maxLength=80"`
	Delivery bool     `json:"delivery"`
}

// newElicitServer serves, on 127.0.0.1, an MCP endpoint at /mcp whose
// "connect" tool asks with ElicitURL, whose "account" tool returns
// URLElicitationRequired until the user opened its page (per session and
// client), and whose "form" tool asks an elicitPizza; /connect is the page
// (it records the visit and calls elicit.Complete).
func newElicitServer(t *testing.T) string {
	t.Helper()
	srv := mcp.NewServer(mcp.Options{Name: "elicit-e2e", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	var (
		mu      sync.Mutex
		base    string
		pending = map[string]string{} // elicitation ID → caller
		linked  = map[string]bool{}
	)
	caller := func(c *mcp.Context) string { return c.SessionID + "|" + c.Client.Name }
	mcp.AddTool(srv, mcp.Tool{Name: "connect"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		res, err := elicit.OpenURL(ctx, c, elicit.URLRequest{ID: "e1", URL: base + "/connect?id=e1", Message: "Connect your account"})
		if err != nil {
			return "refused: " + err.Error(), nil
		}
		return res.Action, nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "account"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		if linked[caller(c)] {
			return "linked", nil
		}
		id := rand.Text()
		pending[id] = caller(c)
		return "", elicit.URLRequired(elicit.URLRequest{ID: id, URL: base + "/connect?id=" + id, Message: "Link your account"})
	})
	mcp.AddTool(srv, mcp.Tool{Name: "form"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		v, action, err := elicit.As[elicitPizza](ctx, c, "Your pizza?")
		if err != nil {
			return "", err
		}
		b, _ := json.Marshal(v)
		return action + " " + string(b), nil
	})
	mux := http.NewServeMux()
	h := mcphttp.New(srv, nil)
	mux.Handle("/mcp", h)
	mux.HandleFunc("GET /connect", func(w http.ResponseWriter, r *http.Request) {
		id := r.URL.Query().Get("id")
		mu.Lock()
		who, ok := pending[id]
		if ok {
			linked[who] = true
			delete(pending, id)
		}
		mu.Unlock()
		if ok {
			sid, _, _ := strings.Cut(who, "|")
			elicit.Complete(srv, sid, id)
		}
		fmt.Fprintln(w, "done")
	})
	ts := httptest.NewUnstartedServer(mux)
	base = "http://" + ts.Listener.Addr().String() // before any handler runs
	ts.Start()
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	return ts.URL + "/mcp"
}

// elicitOut is what node/elicit.mjs prints.
type elicitOut struct {
	SDKVersion      string `json:"sdkVersion"`
	ProtocolVersion string `json:"protocolVersion"`
	Requests        []struct {
		Client string          `json:"client"`
		Params json.RawMessage `json:"params"`
	} `json:"requests"`
	Notifications []struct {
		Client string `json:"client"`
		Params struct {
			ElicitationID string `json:"elicitationId"`
		} `json:"params"`
	} `json:"notifications"`
	Steps map[string]struct {
		Text    string          `json:"text"`
		IsError bool            `json:"isError"`
		Error   string          `json:"error"`
		Name    string          `json:"name"`
		Class   string          `json:"class"`
		Code    json.RawMessage `json:"code"`
		Data    json.RawMessage `json:"data"`
	} `json:"steps"`
	Fatal json.RawMessage `json:"fatal"`
}

// TestTypeScriptElicitation: the official TypeScript clients against URL
// and typed-form elicitation. The v1 SDK (1.32.2) at 2025-11-25: an
// elicitation/create in URL mode with its elicitationId, the -32042 error
// it turns into UrlElicitationRequiredError, the completion notification
// after the page was opened, and the call that then works. The v2 client
// (2.4.0) pinned to 2026-07-28: the same tools as input-required rounds,
// the page opened in the round. Both: a typed form whose schema the SDK
// validates the answer against (titled single and multi-select), and a
// form-only client refused URL mode with a result that says why.
func TestTypeScriptElicitation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		sdk, mode, version string
	}{
		{"v1", "default", "2025-11-25"},
		{"v2", "pin:2026-07-28", "2026-07-28"},
	} {
		t.Run(tc.sdk, func(t *testing.T) {
			t.Parallel()
			url := newElicitServer(t)
			run := runNode(t, 60*time.Second, "elicit.mjs", tc.sdk, tc.mode, url)
			require.Equal(t, 0, run.exitCode, "stderr:\n%s", run.stderr)
			var out elicitOut
			require.NoError(t, json.Unmarshal(run.stdout, &out), "%s\nstderr:\n%s", run.stdout, run.stderr)
			t.Logf("elicit.mjs %s: %s", tc.sdk, run.stdout)
			require.Empty(t, out.Fatal, "%s", run.stdout)
			assert.Equal(t, tc.version, out.ProtocolVersion)
			rev20260728 := tc.version == "2026-07-28"

			assert.Equal(t, "accept", out.Steps["connect"].Text, "%s", run.stdout)
			var connectReq map[string]any
			for _, r := range out.Requests {
				var p map[string]any
				require.NoError(t, json.Unmarshal(r.Params, &p))
				if p["message"] == "Connect your account" {
					connectReq = p
				}
			}
			require.NotNil(t, connectReq, "the client's handler saw the URL elicitation: %s", run.stdout)
			assert.Equal(t, "url", connectReq["mode"])
			assert.True(t, strings.HasSuffix(connectReq["url"].(string), "/connect?id=e1"))
			if rev20260728 {
				assert.NotContains(t, connectReq, "elicitationId")
			} else {
				assert.Equal(t, "e1", connectReq["elicitationId"])
			}

			if rev20260728 {
				assert.Equal(t, "linked", out.Steps["account"].Text, "rounds: the page opened, the call completes: %s", run.stdout)
				assert.Empty(t, out.Notifications)
			} else {
				acc := out.Steps["account"]
				assert.Equal(t, "-32042", string(acc.Code), "%s", run.stdout)
				assert.Equal(t, "UrlElicitationRequiredError", acc.Class, "the SDK's own error for -32042")
				var data struct {
					Elicitations []struct {
						Mode, ElicitationID, URL, Message string
					}
				}
				require.NoError(t, json.Unmarshal(acc.Data, &data))
				require.Len(t, data.Elicitations, 1)
				assert.Equal(t, "url", data.Elicitations[0].Mode)
				assert.Equal(t, "Link your account", data.Elicitations[0].Message)
				require.Len(t, out.Notifications, 1, "notifications/elicitation/complete: %s", run.stdout)
				assert.Equal(t, "full", out.Notifications[0].Client)
				assert.Equal(t, data.Elicitations[0].ElicitationID, out.Notifications[0].Params.ElicitationID)
				assert.Equal(t, "linked", out.Steps["accountRetry"].Text)
			}

			assert.Equal(t, `accept {"size":"l","toppings":["basil"],"delivery":true}`, out.Steps["form"].Text, "%s", run.stdout)
			for _, r := range out.Requests {
				if strings.Contains(string(r.Params), "Your pizza?") {
					assert.Contains(t, string(r.Params), `"oneOf":[{"`)
					assert.Contains(t, string(r.Params), `"anyOf":[{"`)
				}
			}

			assert.Contains(t, out.Steps["formOnlyConnect"].Text, "refused: mcp: the client did not declare that capability: URL-mode elicitation needs the client to declare the capability elicitation.url")
			assert.True(t, out.Steps["formOnlyAccount"].IsError, "%s", run.stdout)
			assert.Contains(t, out.Steps["formOnlyAccount"].Text, "capability elicitation.url")
			for _, r := range out.Requests {
				assert.Equal(t, "full", r.Client, "nothing was asked of the form-only client")
			}
		})
	}
}
