package apps_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/apps"
)

// TestPermissionsJSON: both ways, in the extension's form.
func TestPermissionsJSON(t *testing.T) {
	b, err := json.Marshal(apps.Permissions{Camera: true, ClipboardWrite: true})
	require.NoError(t, err)
	assert.JSONEq(t, `{"camera":{},"clipboardWrite":{}}`, string(b))
	b, err = json.Marshal(apps.Permissions{})
	require.NoError(t, err)
	assert.JSONEq(t, `{}`, string(b))
	var p apps.Permissions
	require.NoError(t, json.Unmarshal([]byte(`{"microphone":{},"geolocation":{"x":1},"camera":null,"other":{}}`), &p))
	assert.Equal(t, apps.Permissions{Microphone: true, Geolocation: true}, p)
	assert.Error(t, json.Unmarshal([]byte(`[]`), &p))
}

// FuzzPermissionsJSON: any input decodes or fails without a panic, and
// permissions that decode survive a round trip.
func FuzzPermissionsJSON(f *testing.F) {
	for _, s := range []string{`{}`, `{"camera":{},"clipboardWrite":null}`, `{"geolocation":1,"microphone":[]}`, `[]`, `null`, `{"camera":{}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var p apps.Permissions
		if json.Unmarshal(data, &p) != nil {
			return
		}
		b, err := json.Marshal(p)
		require.NoError(t, err)
		var back apps.Permissions
		require.NoError(t, json.Unmarshal(b, &back))
		require.Equal(t, p, back, "permissions survive a round trip")
	})
}

// TestCSPValidate: the sources the extension documents pass; an entry
// that would change the host's policy, or is no CSP source, is refused
// with the field and the entry named.
func TestCSPValidate(t *testing.T) {
	var none *apps.CSP
	require.NoError(t, none.Validate(), "no CSP: nothing to check")
	require.NoError(t, (&apps.CSP{
		ConnectDomains:  []string{"https://api.example.com", "wss://live.example.com:8443", "http://127.0.0.1:*"},
		ResourceDomains: []string{"https://*.cloudflare.com", "cdn.example.com", "https://cdn.example.com/lib/"},
		FrameDomains:    []string{"https://www.youtube.com", "*"},
		BaseURIDomains:  []string{"https://[::1]:8080"},
	}).Validate())
	tests := []struct {
		name string
		csp  apps.CSP
		want string
	}{
		{"directive injected", apps.CSP{ConnectDomains: []string{"https://a.example.com; script-src *"}},
			`ConnectDomains[0] "https://a.example.com; script-src *": a CSP source has no space`},
		{"quoted keyword", apps.CSP{ResourceDomains: []string{"'unsafe-eval'"}}, "ResourceDomains[0]"},
		{"empty", apps.CSP{FrameDomains: []string{""}}, `FrameDomains[0] "": empty`},
		{"bad port", apps.CSP{BaseURIDomains: []string{"https://a.example.com:http"}}, `port "http" is not a number or *`},
		{"bad scheme", apps.CSP{ConnectDomains: []string{"1https://a.example.com"}}, `scheme "1https" is not a URI scheme`},
		{"bad host", apps.CSP{ConnectDomains: []string{"https://ok.example.com", "https://a_b!.example.com"}}, "ConnectDomains[1]"},
		{"non-ASCII host", apps.CSP{ConnectDomains: []string{"https://bücher.example"}}, "not a CSP source"},
		{"control character", apps.CSP{ConnectDomains: []string{"https://a.example.com\x7f"}}, "control character"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.csp.Validate()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// TestToolUIValidate: a link names a ui:// view and each audience once.
func TestToolUIValidate(t *testing.T) {
	require.NoError(t, (&apps.ToolUI{ResourceURI: "ui://v/view.html"}).Validate())
	require.NoError(t, (&apps.ToolUI{ResourceURI: "ui://v/view.html", Visibility: []apps.Visibility{apps.VisibleToModel, apps.VisibleToApp}}).Validate())
	tests := []struct {
		name string
		ui   apps.ToolUI
		want string
	}{
		{"no URI", apps.ToolUI{}, "ResourceURI is required: the ui:// URI of an app resource"},
		{"not ui://", apps.ToolUI{ResourceURI: "config://app"}, `ResourceURI "config://app" is not a ui:// URI`},
		{"unknown audience", apps.ToolUI{ResourceURI: "ui://v", Visibility: []apps.Visibility{"user"}}, `Visibility[0] is "user": it takes "model" and "app"`},
		{"audience twice", apps.ToolUI{ResourceURI: "ui://v", Visibility: []apps.Visibility{apps.VisibleToApp, apps.VisibleToApp}}, `Visibility names "app" twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.ui.Validate()
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
		})
	}
}
