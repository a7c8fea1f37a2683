package eliciturl

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
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
