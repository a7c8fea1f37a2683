package eliciturl

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		url string
		ok  bool
	}{
		{"https://example.com/consent?x=1", true},
		{"HTTPS://example.com/", true},
		{"http://localhost:8080/cb", true},
		{"http://127.0.0.1/x", true},
		{"http://[::1]:9/x", true},
		{"http://app.localhost/x", true},
		{"http://example.com/x", false},
		{"javascript:alert(1)", false},
		{"data:text/html,<script>alert(1)</script>", false},
		{"file:///etc/passwd", false},
		{"ftp://example.com/x", false},
		{"//example.com/x", false},
		{"/relative", false},
		{"https://bank.example@evil.example/", false},
		{"https:///nohost", false},
		{"https://" + strings.Repeat("a", MaxLen), false},
		{"http://127.0.0.1.evil.example/", false},
	}
	for _, tt := range tests {
		t.Run(tt.url[:min(len(tt.url), 40)], func(t *testing.T) {
			t.Parallel()
			err := Check(tt.url)
			if tt.ok {
				assert.NoError(t, err)
			} else {
				assert.Error(t, err)
			}
		})
	}
}

func FuzzCheck(f *testing.F) {
	for _, s := range []string{"https://a.example/x", "http://localhost/", "javascript:x", "data:,x", "https://u@h/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if Check(raw) != nil {
			return
		}
		// Whatever passes is https, or http to a loopback host, with a host and no user.
		lower := strings.ToLower(raw)
		if !strings.HasPrefix(lower, "https:") && !strings.HasPrefix(lower, "http:") {
			t.Fatalf("accepted %q with another scheme", raw)
		}
	})
}

// TestCheckElicitation: a URL elicitation needs an ID, a message that is
// not blank, and a URL that passes Check; the error names what is wrong.
func TestCheckElicitation(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, id, message, url, wantErr string
	}{
		{"complete", "id1", "Connect your account", "https://example.com/connect?id=id1", ""},
		{"loopback http", "id1", "Sign in", "http://127.0.0.1:8080/x", ""},
		{"no ID", "", "Sign in", "https://example.com", "ID is empty"},
		{"blank message", "id1", " \t", "https://example.com", "message is empty"},
		{"javascript URL", "id1", "Sign in", "javascript:alert(1)", "not an absolute URL with a host"},
		{"user information", "id1", "Sign in", "https://bank.example@evil.example/", "user information"},
		{"http elsewhere", "id1", "Sign in", "http://example.com/", "not loopback"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckElicitation(tc.id, tc.message, tc.url)
			if tc.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.wantErr)
		})
	}
}
