package main

import (
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpchain/mcp/providers"
)

// errConfig marks a configuration error (exit status 2).
var errConfig = errors.New("configuration")

// configError lists every problem of the environment, one per line.
type configError struct{ errs []error }

func (e *configError) Error() string {
	var b strings.Builder
	b.WriteString("bad configuration (see the OAuth section of docs/auth.md):")
	for _, err := range e.errs {
		b.WriteString("\n  - " + err.Error())
	}
	return b.String()
}

// Unwrap makes a configError match errConfig and each listed error.
func (e *configError) Unwrap() []error { return append([]error{errConfig}, e.errs...) }

// The provider names OAUTH_PROVIDER takes.
const (
	providerGeneric    = "generic"
	providerConsumer   = "consumer"
	providerCodeHost   = "codehost"
	providerEnterprise = "enterprise"
)

// config is the environment, read once.
type config struct {
	Provider     string
	ClientID     string
	ClientSecret string
	BaseURL      string
	UpstreamURL  string
	Issuer       string
	JWKSURL      string
	APIURL       string
	TenantID     string
	Tenants      []string
	AuthEndpoint string
	TokenEndpt   string
	AuthMethod   string
	UserInfo     string
	Scopes       []string
	Patterns     []string
	SigningKey   string
	PrevKeys     []string
	EncKey       string
	RedisURL     string
	InsecureHTTP bool
	// CIMD configures client ID metadata documents (OAUTH_CIMD).
	CIMD         providers.ClientMetadataDocuments
	RegisterRate providers.RateLimit
	AuthorizeRL  providers.RateLimit
	AddrHeader   string
}

// loadConfig reads the environment through getenv and reports every
// problem at once, each naming its variable.
func loadConfig(getenv func(string) string) (*config, error) {
	get := func(k string) string { return strings.TrimSpace(getenv(k)) }
	c := &config{
		Provider: strings.ToLower(get("OAUTH_PROVIDER")), ClientID: get("OAUTH_CLIENT_ID"), ClientSecret: get("OAUTH_CLIENT_SECRET"),
		BaseURL: strings.TrimSuffix(get("MCP_BASE_URL"), "/"), UpstreamURL: strings.TrimSuffix(get("OAUTH_UPSTREAM_URL"), "/"),
		Issuer: get("OAUTH_ISSUER"), JWKSURL: get("OAUTH_JWKS_URL"), APIURL: get("OAUTH_API_URL"),
		TenantID: get("OAUTH_TENANT_ID"), Tenants: list(get("OAUTH_ALLOWED_TENANTS")),
		AuthEndpoint: get("OAUTH_AUTHORIZATION_ENDPOINT"), TokenEndpt: get("OAUTH_TOKEN_ENDPOINT"),
		AuthMethod: get("OAUTH_TOKEN_ENDPOINT_AUTH_METHOD"), UserInfo: get("OAUTH_USERINFO_ENDPOINT"),
		Scopes: strings.Fields(get("OAUTH_SCOPES")), Patterns: list(get("OAUTH_REDIRECT_URI_PATTERNS")),
		SigningKey: get("OAUTH_JWT_SIGNING_KEY"), PrevKeys: list(get("OAUTH_JWT_PREVIOUS_SIGNING_KEYS")),
		EncKey: get("OAUTH_ENCRYPTION_KEY"), RedisURL: get("REDIS_URL"), AddrHeader: get("OAUTH_CLIENT_ADDRESS_HEADER"),
	}
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	switch c.Provider {
	case providerGeneric, providerConsumer, providerCodeHost, providerEnterprise:
	case "":
		bad("OAUTH_PROVIDER is required: generic, consumer, codehost or enterprise")
	default:
		bad("OAUTH_PROVIDER %q is not one of generic, consumer, codehost, enterprise", c.Provider)
	}
	if c.ClientID == "" {
		bad("OAUTH_CLIENT_ID is required: the client id the upstream provider issued to this server")
	}
	if c.ClientSecret == "" {
		bad("OAUTH_CLIENT_SECRET is required: the client secret the upstream provider issued to this server")
	}
	if c.BaseURL == "" {
		bad("MCP_BASE_URL is required: where clients reach this server, e.g. https://mcp.example.com " +
			"(register {MCP_BASE_URL}/oauth/callback as the redirect URI at the provider)")
	} else if err := checkURL(c.BaseURL); err != nil {
		bad("MCP_BASE_URL: %v", err)
	}
	for _, kv := range [][2]string{{"OAUTH_UPSTREAM_URL", c.UpstreamURL}, {"OAUTH_ISSUER", c.Issuer}, {"OAUTH_JWKS_URL", c.JWKSURL},
		{"OAUTH_API_URL", c.APIURL}, {"OAUTH_AUTHORIZATION_ENDPOINT", c.AuthEndpoint}, {"OAUTH_TOKEN_ENDPOINT", c.TokenEndpt},
		{"OAUTH_USERINFO_ENDPOINT", c.UserInfo}} {
		if kv[1] != "" {
			if err := checkURL(kv[1]); err != nil {
				bad("%s: %v", kv[0], err)
			}
		}
	}
	// Settings of one provider given to another are mistakes, not no-ops.
	only := map[string][]string{
		"OAUTH_AUTHORIZATION_ENDPOINT": {providerGeneric}, "OAUTH_TOKEN_ENDPOINT": {providerGeneric},
		"OAUTH_TOKEN_ENDPOINT_AUTH_METHOD": {providerGeneric}, "OAUTH_USERINFO_ENDPOINT": {providerGeneric},
		"OAUTH_UPSTREAM_URL": {providerConsumer, providerCodeHost, providerEnterprise},
		"OAUTH_ISSUER":       {providerConsumer, providerGeneric}, "OAUTH_JWKS_URL": {providerConsumer, providerGeneric},
		"OAUTH_API_URL": {providerCodeHost}, "OAUTH_TENANT_ID": {providerEnterprise}, "OAUTH_ALLOWED_TENANTS": {providerEnterprise},
	}
	if c.Provider != "" {
		for _, k := range slices.Sorted(maps.Keys(only)) {
			if get(k) != "" && !slices.Contains(only[k], c.Provider) {
				bad("%s does not apply to OAUTH_PROVIDER=%s (only to %s)", k, c.Provider, strings.Join(only[k], ", "))
			}
		}
	}
	if c.Provider == providerGeneric {
		if c.AuthEndpoint == "" || c.TokenEndpt == "" {
			bad("OAUTH_AUTHORIZATION_ENDPOINT and OAUTH_TOKEN_ENDPOINT are required with OAUTH_PROVIDER=generic")
		}
		switch c.AuthMethod {
		case "", "client_secret_basic", "client_secret_post":
		default:
			bad("OAUTH_TOKEN_ENDPOINT_AUTH_METHOD %q: want client_secret_basic or client_secret_post", c.AuthMethod)
		}
	}
	if c.RedisURL != "" && (c.SigningKey == "" || c.EncKey == "") {
		bad("REDIS_URL is set, so OAUTH_JWT_SIGNING_KEY and OAUTH_ENCRYPTION_KEY are required " +
			"(the same on every replica; generate each with: openssl rand -base64 32)")
	}
	for _, kv := range [][2]string{{"OAUTH_JWT_SIGNING_KEY", c.SigningKey}, {"OAUTH_ENCRYPTION_KEY", c.EncKey}} {
		if kv[1] != "" && len(kv[1]) < 32 {
			bad("%s must be at least 32 bytes (it is %d); generate one with: openssl rand -base64 32", kv[0], len(kv[1]))
		}
	}
	switch v := strings.ToLower(get("OAUTH_INSECURE_HTTP")); v {
	case "", "0", "false":
	case "1", "true":
		c.InsecureHTTP = true
	default:
		bad("OAUTH_INSECURE_HTTP %q: want 1 or true (development only), or leave it unset", v)
	}
	switch v := strings.ToLower(get("OAUTH_CIMD")); v {
	case "", "on":
	case "off":
		c.CIMD.Disabled = true
	case "allow-private-addresses":
		c.CIMD.AllowPrivateAddresses = true
	default:
		bad("OAUTH_CIMD %q: want on (the default), off, or allow-private-addresses (tests and development only)", v)
	}
	if u, err := url.Parse(c.BaseURL); err == nil && u.Scheme == "http" && !c.InsecureHTTP && !loopback(u.Hostname()) {
		bad("MCP_BASE_URL %q is http on a host other than loopback: give the https URL clients use (a reverse proxy "+
			"terminating TLS is fine), or set OAUTH_INSECURE_HTTP=1 for a development setup", c.BaseURL)
	}
	for _, kv := range []struct {
		name string
		to   *providers.RateLimit
	}{{"OAUTH_REGISTER_RATE_LIMIT", &c.RegisterRate}, {"OAUTH_AUTHORIZE_RATE_LIMIT", &c.AuthorizeRL}} {
		l, err := parseRateLimit(get(kv.name))
		if err != nil {
			bad("%s: %v", kv.name, err)
		}
		*kv.to = l
	}
	for i, k := range c.PrevKeys {
		if len(k) < 32 {
			bad("OAUTH_JWT_PREVIOUS_SIGNING_KEYS: key %d must be at least 32 bytes (it is %d)", i+1, len(k))
		}
	}
	if len(errs) > 0 {
		return nil, &configError{errs}
	}
	return c, nil
}

// parseRateLimit reads "" (the default), "off", "N" (N a minute, burst
// N) or "N,B" (N a minute, burst B).
func parseRateLimit(s string) (providers.RateLimit, error) {
	switch s {
	case "":
		return providers.RateLimit{}, nil
	case "off":
		return providers.RateLimit{PerMinute: -1}, nil
	}
	n, b, hasBurst := strings.Cut(s, ",")
	per, err := strconv.ParseFloat(strings.TrimSpace(n), 64)
	if err != nil || per <= 0 {
		return providers.RateLimit{}, fmt.Errorf("%q: want off, N (requests a minute per client address) or N,BURST", s)
	}
	burst := int(per)
	if hasBurst {
		if burst, err = strconv.Atoi(strings.TrimSpace(b)); err != nil || burst <= 0 {
			return providers.RateLimit{}, fmt.Errorf("%q: the burst must be a positive integer", s)
		}
	}
	return providers.RateLimit{PerMinute: per, Burst: max(burst, 1)}, nil
}

func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func checkURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an absolute http(s) URL", s)
	}
	return nil
}

func list(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' })
}

// newProvider builds the configured provider on storage (nil: memory).
func (c *config) newProvider(storage providers.TokenStorage, log *slog.Logger) (*providers.Proxy, error) {
	base := providers.Config{
		BaseURL: c.BaseURL, ClientID: c.ClientID, ClientSecret: c.ClientSecret, Scopes: c.Scopes,
		AllowedRedirectURIPatterns: c.Patterns, JWTSigningKey: c.SigningKey, PreviousJWTSigningKeys: c.PrevKeys,
		EncryptionKey: c.EncKey, AllowInsecureHTTP: c.InsecureHTTP, TokenStorage: storage, Logger: log,
		RegisterRateLimit: c.RegisterRate, AuthorizeRateLimit: c.AuthorizeRL, ClientMetadataDocuments: c.CIMD,
	}
	if c.AddrHeader != "" {
		base.ClientAddress = providers.ForwardedClientAddress(c.AddrHeader)
	}
	switch c.Provider {
	case providerGeneric:
		p, err := providers.NewOAuthProvider(providers.OAuthProviderConfig{Config: base,
			AuthorizationEndpoint: c.AuthEndpoint, TokenEndpoint: c.TokenEndpt, TokenEndpointAuthMethod: c.AuthMethod,
			Issuer: c.Issuer, JWKSURL: c.JWKSURL, UserInfoEndpoint: c.UserInfo})
		if err != nil {
			return nil, err
		}
		return p.Proxy, nil
	case providerConsumer:
		// One base URL stands for the provider's hosts, with their paths:
		// {U}/o/oauth2/v2/auth, {U}/token, {U}/oauth2/v3/certs; the ID
		// tokens' issuer is U unless OAUTH_ISSUER says otherwise.
		cc := providers.ConsumerIdentityConfig{Config: base, Issuer: c.Issuer, JWKSURL: c.JWKSURL}
		if u := c.UpstreamURL; u != "" {
			cc.IdPURL, cc.TokenURL = u, u
			if cc.JWKSURL == "" {
				cc.JWKSURL = u + "/oauth2/v3/certs"
			}
			if cc.Issuer == "" {
				cc.Issuer = u
			}
		}
		p, err := providers.NewConsumerIdentityProvider(cc)
		if err != nil {
			return nil, err
		}
		return p.Proxy, nil
	case providerCodeHost:
		p, err := providers.NewCodeHostProvider(providers.CodeHostConfig{Config: base, IdPURL: c.UpstreamURL, APIURL: c.APIURL})
		if err != nil {
			return nil, err
		}
		return p.Proxy, nil
	case providerEnterprise:
		p, err := providers.NewEnterpriseDirectoryProvider(providers.EnterpriseDirectoryConfig{Config: base,
			TenantID: c.TenantID, IdPURL: c.UpstreamURL, AllowedTenants: c.Tenants})
		if err != nil {
			return nil, err
		}
		return p.Proxy, nil
	}
	return nil, fmt.Errorf("OAUTH_PROVIDER %q is not one of generic, consumer, codehost, enterprise", c.Provider)
}
