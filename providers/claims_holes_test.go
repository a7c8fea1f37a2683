package providers

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Only email_verified true (or "true") verifies an
// email, and the UPN never comes from preferred_username, which users can
// change ("nOAuth").
func TestThreatSpoofedEmailAndUPN(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name     string
		verified any
		want     string
	}{
		{"true", true, "a@example.com"},
		{`"true"`, "true", "a@example.com"},
		{"missing", nil, ""},
		{"false", false, ""},
		{`"false"`, "false", ""},
		{"1", 1.0, ""},
		{`"yes"`, "yes", ""},
	} {
		claims := map[string]any{"email": "a@example.com"}
		if tt.verified != nil {
			claims["email_verified"] = tt.verified
		}
		assert.Equal(t, tt.want, consumerIdentity("s", claims).Email, "consumer, email_verified %s", tt.name)
		assert.Equal(t, tt.want, enterpriseIdentity("s", claims).Email, "enterprise, email_verified %s", tt.name)
		assert.Equal(t, tt.want, genericIdentity("s", claims).Email, "generic, email_verified %s", tt.name)
	}
	spoof := map[string]any{"tid": "t", "oid": "o", "preferred_username": "ceo@victim.example"}
	id := enterpriseIdentity("pairwise", spoof)
	assert.Empty(t, id.UPN, "preferred_username is not a UPN")
	assert.Equal(t, "enterprise:t:o", id.Subject, "the stable id is tid:oid")
	spoof["upn"] = "ada@contoso.example"
	assert.Equal(t, "ada@contoso.example", enterpriseIdentity("pairwise", spoof).UPN)
}
