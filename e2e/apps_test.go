package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/apps"
	"github.com/mcpchain/mcp/mcphttp"
)

// TestMCPAppInBrowser renders an MCP App (io.modelcontextprotocol/ui,
// SEP-1865) served by mcpchain in headless Chromium, as a web host does:
// node/apps/host.js (bundled by node/apps-bundle.mjs with rolldown) is a
// host page on the official TypeScript client, which declares the
// extension, and ext-apps' AppBridge; it puts the view in a sandbox proxy
// iframe on another origin (node/apps/sandbox.html), which loads it in an
// inner iframe under the CSP built from the view's _meta.ui. The view,
// built on ext-apps' App, renders the tool's input and result, calls the
// app-only tool through the host, probes the CSP (the declared origin may
// be fetched, another may not) and reports what it rendered to the host
// with ui/update-model-context. A second client on the page, without the
// extension, is not shown the app-only tool or the view and cannot call
// the tool. The screenshot is artifacts/mcp-app.png.
func TestMCPAppInBrowser(t *testing.T) {
	hostJS, viewJS := bundleApps(t)
	// Two origins the view may try to fetch from: one its CSP declares.
	greeting := func(text string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Access-Control-Allow-Origin", "*")
			_, _ = fmt.Fprint(w, text)
		})
	}
	declared := httptest.NewServer(greeting("hello"))
	t.Cleanup(declared.Close)
	other := httptest.NewServer(greeting("leaked"))
	t.Cleanup(other.Close)

	w := newAppWorld(t, newAppServer(t, string(viewJS), declared.URL, other.URL), hostJS)
	state := w.open(t, "", func(s hostState) bool { return len(s.ModelContext) > 0 })
	require.NotEmpty(t, state.ModelContext, "the view reported nothing (steps %v, logs %v)", state.Steps, state.Logs)

	assert.Contains(t, state.ServerExtensions, apps.Extension, "the server declares the extension")
	assert.ElementsMatch(t, []hostTool{
		{Name: "weather", View: "ui://weather/view.html"},
		{Name: "refresh", View: "ui://weather/view.html", AppOnly: true},
		{Name: "plain"},
	}, state.Tools)
	assert.Equal(t, []string{"weather", "plain"}, state.ModelTools, "the app-only tool is kept from the model")
	assert.Equal(t, "ui://weather/view.html", state.View.URI)
	assert.Equal(t, apps.MIMEType, state.View.MIMEType)
	assert.JSONEq(t, `{"csp":{"connectDomains":["`+declared.URL+`"]},"permissions":{"clipboardWrite":{}},"prefersBorder":true}`, string(state.View.UI))
	assert.Equal(t, "clipboard-write", state.Allow, "the host grants what the view asked for")
	assert.Equal(t, "weather-view", state.AppInfo.Name, "the view's ui/initialize reached the host")
	assert.Equal(t, "Sunny, 21 °C in Oslo", state.ToolResult.Content[0].Text, "the text fallback")

	require.Len(t, state.ModelContext[0].Content, 1)
	assert.Equal(t, "Oslo | sunny, 21 °C | Refreshed Oslo: sunny, 21 °C | declared origin: allowed hello; other origin: blocked",
		state.ModelContext[0].Content[0].Text, "what the view rendered")

	assert.Equal(t, []string{"weather", "plain"}, state.PlainTools, "a client without the extension is not shown the app-only tool")
	assert.NotContains(t, state.PlainResources, "ui://weather/view.html")
	assert.Contains(t, string(state.PlainRefresh), `"code":-32602`, "nor may it call it")

	// Let the view's size reach the iframe before the picture.
	time.Sleep(300 * time.Millisecond)
	screenshot(t, w.ctx, "mcp-app.png", 900, false, false)
}

// TestMCPAppVanillaViewInBrowser renders examples/apps' view, which
// speaks the extension without an SDK, through the same web host and
// ext-apps' AppBridge: it initializes, draws the tool's result, and its
// "Roll again" button (clicked in the nested frames) calls the app-only
// tool through the host and draws the new roll.
func TestMCPAppVanillaViewInBrowser(t *testing.T) {
	hostJS, _ := bundleApps(t)
	srv := mcp.NewServer(mcp.Options{Name: "dice", Version: "1.0.0"})
	srv.AddAppResource(mcp.AppResource{URI: "ui://dice/view.html", Name: "dice-view",
		FS: os.DirFS(filepath.Join("..", "examples", "apps")), File: "ui/dice.html", PrefersBorder: new(true)})
	type rollResult struct {
		Dice  []int `json:"dice"`
		Sides int   `json:"sides"`
		Total int   `json:"total"`
	}
	// Fixed rolls, so that the page can be checked.
	reply := func(dice ...int) *mcp.ContentResult {
		r := rollResult{Dice: dice, Sides: 6}
		for _, d := range dice {
			r.Total += d
		}
		return &mcp.ContentResult{Content: []mcp.Content{mcp.TextContent{Text: fmt.Sprint("Rolled ", dice)}}, StructuredContent: r}
	}
	type rollArgs struct {
		Count int `json:"count,omitempty"`
	}
	rerolled := make(chan int, 4)
	mcp.AddTool(srv, mcp.Tool{Name: "roll", UI: &apps.ToolUI{ResourceURI: "ui://dice/view.html"}},
		func(ctx context.Context, c *mcp.Context, in rollArgs) (*mcp.ContentResult, error) {
			return reply(3, 5), nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "reroll", UI: &apps.ToolUI{ResourceURI: "ui://dice/view.html", Visibility: []apps.Visibility{apps.VisibleToApp}}},
		func(ctx context.Context, c *mcp.Context, in rollArgs) (*mcp.ContentResult, error) {
			rerolled <- in.Count
			return reply(6, 6), nil
		})

	w := newAppWorld(t, srv, hostJS)
	state := w.open(t, "&tool=roll&args="+url.QueryEscape(`{"count":2}`), func(s hostState) bool {
		return slices.Contains(s.Steps, "result sent") && s.LastHeight > 0
	})
	require.Contains(t, state.Steps, "result sent")
	assert.Equal(t, "dice-view", state.AppInfo.Name, "the view's ui/initialize reached the host")
	assert.Positive(t, state.LastHeight, "the view reported its size")

	total, err := chromedp.Run(w.ctx, chromedp.Text("#total"))
	require.NoError(t, err)
	assert.Equal(t, "Total 8 (2d6)", total)
	require.NoError(t, chromedp.Do(w.ctx, chromedp.Click("#again")))
	deadline := time.Now().Add(10 * time.Second)
	for total != "Total 12 (2d6)" && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		total, err = chromedp.Run(w.ctx, chromedp.Text("#total"))
		require.NoError(t, err)
	}
	assert.Equal(t, "Total 12 (2d6)", total, "the reroll went through the host and was drawn")
	select {
	case n := <-rerolled:
		assert.Equal(t, 2, n, "with the tool's input as its arguments")
	default:
		t.Error("reroll was not called")
	}
}

// bundleApps builds node/apps' host and view for the browser.
func bundleApps(t *testing.T) (hostJS, viewJS []byte) {
	t.Helper()
	out := t.TempDir()
	run := runNode(t, 2*time.Minute, "apps-bundle.mjs", out)
	require.Equal(t, 0, run.exitCode, "apps-bundle.mjs: %s\n%s", run.stdout, run.stderr)
	hostJS, err := os.ReadFile(filepath.Join(out, "host.js"))
	require.NoError(t, err)
	viewJS, err = os.ReadFile(filepath.Join(out, "view.js"))
	require.NoError(t, err)
	return hostJS, viewJS
}

// appWorld is a web host for srv in Chromium: the host page and srv's
// endpoint on one origin, the sandbox proxy on another.
type appWorld struct {
	ctx           context.Context
	host, sandbox *httptest.Server
}

func newAppWorld(t *testing.T, srv *mcp.Server, hostJS []byte) *appWorld {
	dir, _ := nodePaths(t)
	sandboxHTML, err := os.ReadFile(filepath.Join(dir, "apps", "sandbox.html"))
	require.NoError(t, err)
	sandbox := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(sandboxHTML)
	}))
	t.Cleanup(sandbox.Close)
	h := mcphttp.New(srv, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	mux.HandleFunc("GET /host.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		_, _ = w.Write(hostJS)
	})
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = fmt.Fprint(w, hostPage)
	})
	host := httptest.NewServer(mux)
	t.Cleanup(func() { host.Close(); _ = h.Close() })
	return &appWorld{ctx: newChromium(t), host: host, sandbox: sandbox}
}

// open loads the host page with query added to its URL and returns what
// it recorded once done says so, it failed, or 20 s passed.
func (w *appWorld) open(t *testing.T, query string, done func(hostState) bool) hostState {
	t.Helper()
	require.NoError(t, chromedp.Do(w.ctx, chromedp.Navigate(w.host.URL+"/?sandbox="+url.QueryEscape(w.sandbox.URL)+query)))
	var state hostState
	deadline := time.Now().Add(20 * time.Second)
	for {
		raw, err := chromedp.Run(w.ctx, chromedp.Evaluate[string](`JSON.stringify(window.__host || {})`))
		require.NoError(t, err)
		state = hostState{}
		require.NoError(t, json.Unmarshal([]byte(raw), &state))
		if state.Error != "" || done(state) || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	require.Empty(t, state.Error, "the host page failed (steps %v)", state.Steps)
	return state
}

// hostTool is a tool as the host page saw it.
type hostTool struct {
	Name    string `json:"name"`
	View    string `json:"view"`
	AppOnly bool   `json:"appOnly"`
}

// hostState is window.__host of node/apps/host.js.
type hostState struct {
	Steps            []string                   `json:"steps"`
	Error            string                     `json:"error"`
	ServerExtensions map[string]json.RawMessage `json:"serverExtensions"`
	Tools            []hostTool                 `json:"tools"`
	ModelTools       []string                   `json:"modelTools"`
	View             struct {
		URI      string          `json:"uri"`
		MIMEType string          `json:"mimeType"`
		UI       json.RawMessage `json:"ui"`
	} `json:"view"`
	Allow   string `json:"allow"`
	AppInfo struct {
		Name string `json:"name"`
	} `json:"appInfo"`
	ToolResult struct {
		Content []tsText `json:"content"`
	} `json:"toolResult"`
	ModelContext []struct {
		Content []tsText `json:"content"`
	} `json:"modelContext"`
	Logs           []json.RawMessage `json:"logs"`
	PlainTools     []string          `json:"plainTools"`
	PlainResources []string          `json:"plainResources"`
	PlainRefresh   json.RawMessage   `json:"plainRefresh"`
	LastHeight     float64           `json:"lastHeight"`
}

// hostPage is the web host: a conversation turn whose tool call renders
// the app below it.
const hostPage = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>e2e web host</title>
<style>
body { font: 15px/1.45 system-ui, sans-serif; background: #f4f4f5; color: #18181b; margin: 0; padding: 24px; }
.turn { max-width: 820px; margin: 0 auto 12px; padding: 12px 16px; border-radius: 12px; background: #fff; }
.user { background: #e0e7ff; margin-left: auto; max-width: 420px; }
.call { font: 13px ui-monospace, monospace; color: #52525b; }
#frame iframe { width: 100%; border: 1px solid #d4d4d8; border-radius: 10px; background: #fff; height: 120px; }
</style></head>
<body>
<div class="turn user">What is the weather in Oslo?</div>
<div class="turn"><div class="call">⚙ weather({"city": "Oslo"}) · rendered by ui://weather/view.html</div><div id="frame"></div></div>
<script src="/host.js"></script>
</body></html>`

// newAppServer is the server of the app: the view (viewJS inlined, its
// CSP declaring the origin allowed), the tool that shows it, the app-only
// tool the view calls, and a plain tool.
func newAppServer(t *testing.T, viewJS, allowed, blocked string) *mcp.Server {
	srv := mcp.NewServer(mcp.Options{Name: "weather", Version: "1.0.0"})
	html := `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Weather</title>
<style>
body { font: 15px/1.45 system-ui, sans-serif; margin: 0; padding: 16px 20px; color: #0f172a; background: linear-gradient(135deg, #e0f2fe, #fef9c3); }
h1 { font-size: 20px; margin: 0 0 8px; }
#sky { width: 40px; height: 40px; border-radius: 50%; float: right; margin: 0; }
#sky.sunny { background: radial-gradient(circle, #facc15 55%, #fde68a 56%, transparent 70%); }
#forecast { font-size: 28px; font-weight: 600; margin: 4px 0; }
.small { font-size: 13px; color: #475569; margin: 4px 0; }
</style></head>
<body data-allowed="` + allowed + `/greeting" data-blocked="` + blocked + `/greeting">
<p id="sky"></p>
<h1>Weather in <span id="city">…</span></h1>
<p id="forecast">waiting for the result…</p>
<p class="small" id="refresh"></p>
<p class="small" id="csp"></p>
<script>` + strings.ReplaceAll(viewJS, "</script", `<\/script`) + `</script>
</body></html>`
	srv.AddAppResource(mcp.AppResource{URI: "ui://weather/view.html", Name: "weather-view", Title: "Weather", HTML: html,
		CSP: &apps.CSP{ConnectDomains: []string{allowed}}, Permissions: &apps.Permissions{ClipboardWrite: true},
		PrefersBorder: new(true)})
	type forecast struct {
		City    string `json:"city"`
		Sky     string `json:"sky"`
		Celsius int    `json:"celsius"`
	}
	type cityArgs struct {
		City string `json:"city"`
	}
	mcp.AddTool(srv, mcp.Tool{Name: "weather", Title: "Weather", Description: "The weather in a city",
		UI: &apps.ToolUI{ResourceURI: "ui://weather/view.html"}},
		func(ctx context.Context, c *mcp.Context, in cityArgs) (*mcp.ContentResult, error) {
			f := forecast{City: in.City, Sky: "sunny", Celsius: 21}
			return &mcp.ContentResult{Content: []mcp.Content{mcp.TextContent{Text: fmt.Sprintf("Sunny, %d °C in %s", f.Celsius, f.City)}},
				StructuredContent: f}, nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "refresh", Description: "Reload the forecast the view shows",
		UI: &apps.ToolUI{ResourceURI: "ui://weather/view.html", Visibility: []apps.Visibility{apps.VisibleToApp}}},
		func(ctx context.Context, c *mcp.Context, in cityArgs) (string, error) {
			return "Refreshed " + in.City + ": sunny, 21 °C", nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "plain", Description: "A tool without a view"},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) { return "plain", nil })
	return srv
}
