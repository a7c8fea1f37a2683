package oauth

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"golang.org/x/oauth2"
)

// maxDocument bounds every document the handler reads: metadata,
// registration and token responses.
const maxDocument = 256 << 10

// challenge is what a WWW-Authenticate header of scheme Bearer says
// (RFC 6750 §3, RFC 9728 §5.1).
type challenge struct {
	// metadataURL is the URL of the protected-resource metadata.
	metadataURL string
	// Scope is the scope the request needs, as space-separated values.
	Scope string
	// Error is the error code ("invalid_token", "insufficient_scope").
	Error string
}

// parseChallenge reads the Bearer challenge of WWW-Authenticate header
// values (auth-params, quoted or not; other schemes are skipped). ok is
// false when no value has a Bearer challenge.
func parseChallenge(values []string) (c challenge, ok bool) {
	for _, v := range values {
		if len(v) > 8<<10 {
			v = v[:8<<10]
		}
		scheme := ""
		params := map[string]string{}
		p := &paramLexer{s: v}
		for !p.done() {
			tok := p.token()
			if tok == "" {
				p.skip()
				continue
			}
			p.space()
			if p.peek() == '=' && p.tokenEndsInEquals() {
				for p.peek() == '=' {
					p.i++
				}
				continue // a token68 ("abc=="), not a parameter
			}
			if p.peek() == '=' {
				p.i++
				p.space()
				params[strings.ToLower(tok)] = p.value()
				p.space()
				if p.peek() == ',' {
					p.i++
				}
				continue
			}
			// A scheme name (possibly followed by a token68 or params).
			if scheme == "bearer" || scheme == "dpop" {
				break // the next challenge's scheme: the Bearer one is read
			}
			scheme = strings.ToLower(tok)
			params = map[string]string{}
		}
		if scheme != "bearer" && scheme != "dpop" {
			continue
		}
		return challenge{
			metadataURL: params["resource_metadata"],
			Scope:       params["scope"],
			Error:       params["error"],
		}, true
	}
	return challenge{}, false
}

type paramLexer struct {
	s string
	i int
}

func (p *paramLexer) done() bool { return p.i >= len(p.s) }
func (p *paramLexer) peek() byte {
	if p.done() {
		return 0
	}
	return p.s[p.i]
}
func (p *paramLexer) space() {
	for !p.done() && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}
func (p *paramLexer) skip() { p.i++ }

// tokenEndsInEquals reports whether the '=' at p.i starts the padding of
// a token68 ("abc==") rather than a parameter's value.
func (p *paramLexer) tokenEndsInEquals() bool {
	j := p.i
	for j < len(p.s) && p.s[j] == '=' {
		j++
	}
	return j-p.i > 1
}

func (p *paramLexer) token() string {
	start := p.i
	for !p.done() {
		c := p.s[p.i]
		if c == ' ' || c == '\t' || c == ',' || c == '=' || c == '"' {
			break
		}
		p.i++
	}
	return p.s[start:p.i]
}

func (p *paramLexer) value() string {
	if p.peek() != '"' {
		return p.token()
	}
	p.i++
	var b strings.Builder
	for !p.done() {
		c := p.s[p.i]
		p.i++
		switch c {
		case '\\':
			if !p.done() {
				b.WriteByte(p.s[p.i])
				p.i++
			}
		case '"':
			return b.String()
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// resourceMetadata is an OAuth protected-resource metadata document
// (RFC 9728), as far as a client uses it.
type resourceMetadata struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers,omitempty"`
	ScopesSupported      []string `json:"scopes_supported,omitempty"`
}

// parseResourceMetadata decodes a protected-resource metadata document;
// resource is required.
func parseResourceMetadata(b []byte) (*resourceMetadata, error) {
	var m resourceMetadata
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("protected-resource metadata: %w", err)
	}
	if m.Resource == "" {
		return nil, errors.New("protected-resource metadata: no resource")
	}
	return &m, nil
}

// serverMeta is an OAuth authorization-server metadata document
// (RFC 8414, or OpenID Connect discovery), as far as a client uses it.
type serverMeta struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint,omitempty"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	RegistrationEndpoint              string   `json:"registration_endpoint,omitempty"`
	ScopesSupported                   []string `json:"scopes_supported,omitempty"`
	GrantTypesSupported               []string `json:"grant_types_supported,omitempty"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported,omitempty"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported,omitempty"`
	ClientIDMetadataDocumentSupported bool     `json:"client_id_metadata_document_supported,omitempty"`
	// IssParameterSupported: the authorization response carries iss
	// (RFC 9207), which the client then requires.
	IssParameterSupported bool `json:"authorization_response_iss_parameter_supported,omitempty"`
	// noDocument: the server published no metadata (revision
	// 2025-03-26); the endpoints are the defaults.
	noDocument bool
}

// parseServerMetadata decodes an authorization-server metadata document;
// issuer and token_endpoint are required, and every endpoint must be an
// absolute http(s) URL.
func parseServerMetadata(b []byte) (*serverMeta, error) {
	var m serverMeta
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("authorization-server metadata: %w", err)
	}
	if m.Issuer == "" || m.TokenEndpoint == "" {
		return nil, errors.New("authorization-server metadata: no issuer or token_endpoint")
	}
	for _, u := range []string{m.AuthorizationEndpoint, m.TokenEndpoint, m.RegistrationEndpoint} {
		if u != "" && !isHTTPURL(u) {
			return nil, fmt.Errorf("authorization-server metadata: endpoint %q is not an http(s) URL", u)
		}
	}
	return &m, nil
}

func isHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
}

// tokenResponse is a token endpoint's answer (RFC 6749 §5.1, §5.2).
type tokenResponse struct {
	AccessToken      string          `json:"access_token"`
	TokenType        string          `json:"token_type"`
	RefreshToken     string          `json:"refresh_token"`
	ExpiresIn        json.RawMessage `json:"expires_in"`
	Scope            string          `json:"scope"`
	Error            string          `json:"error"`
	ErrorDescription string          `json:"error_description"`
}

// parseTokenResponse decodes a token endpoint's JSON answer into a token
// (an error response into an error naming its code). now dates the
// expiry.
func parseTokenResponse(b []byte, now time.Time) (*oauth2.Token, error) {
	var r tokenResponse
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("token response: %w", err)
	}
	if r.Error != "" {
		if r.ErrorDescription != "" {
			return nil, fmt.Errorf("token endpoint: %s: %s", r.Error, r.ErrorDescription)
		}
		return nil, fmt.Errorf("token endpoint: %s", r.Error)
	}
	if r.AccessToken == "" {
		return nil, errors.New("token response: no access_token")
	}
	typ := "Bearer"
	switch {
	case strings.EqualFold(r.TokenType, "dpop"):
		typ = "DPoP" // bound to the key of the request's DPoP proof
	case r.TokenType != "" && !strings.EqualFold(r.TokenType, "bearer"):
		return nil, fmt.Errorf("token response: token_type %q is not Bearer or DPoP", r.TokenType)
	}
	t := &oauth2.Token{AccessToken: r.AccessToken, TokenType: typ, RefreshToken: r.RefreshToken}
	// expires_in as a number, or as a string of one (some servers); any
	// other value is taken as no expiry given.
	if e := strings.Trim(string(r.ExpiresIn), `"`); e != "" {
		if n, err := strconv.ParseInt(e, 10, 64); err == nil && n > 0 && n < 10*365*24*3600 {
			t.Expiry = now.Add(time.Duration(n) * time.Second)
			t.ExpiresIn = n
		}
	}
	if r.Scope != "" {
		t = t.WithExtra(map[string]any{"scope": r.Scope})
	}
	return t, nil
}

// registration is a client registration response (RFC 7591 §3.2.1).
type registration struct {
	ClientID                string `json:"client_id"`
	ClientSecret            string `json:"client_secret,omitempty"`
	TokenEndpointAuthMethod string `json:"token_endpoint_auth_method,omitempty"`
}

func parseRegistration(b []byte) (*registration, error) {
	var r registration
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("registration response: %w", err)
	}
	if r.ClientID == "" {
		return nil, errors.New("registration response: no client_id")
	}
	return &r, nil
}
