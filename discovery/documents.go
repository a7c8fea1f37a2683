package discovery

// Options say which OAuth discovery documents to serve: the
// configuration of [Mount], of mcphttp.Options.OAuth, and what a
// [MetadataProvider] returns.
type Options struct {
	// Enabled serves the documents.
	Enabled bool
	// AuthorizationServer is served as RFC 8414 metadata.
	AuthorizationServer *AuthorizationServerMetadata
	// ProtectedResource is served as RFC 9728 metadata.
	ProtectedResource *ProtectedResourceMetadata
}

// AuthorizationServerMetadata is the RFC 8414 document.
type AuthorizationServerMetadata struct {
	// Issuer is the authorization server's issuer URL.
	Issuer string `json:"issuer"`
	// AuthorizationEndpoint is the URL of the authorization endpoint.
	AuthorizationEndpoint string `json:"authorization_endpoint"`
	// TokenEndpoint is the URL of the token endpoint.
	TokenEndpoint string `json:"token_endpoint"`
	// RegistrationEndpoint is the URL of dynamic client registration (RFC 7591).
	RegistrationEndpoint string `json:"registration_endpoint,omitempty"`
	// RevocationEndpoint is the URL of token revocation (RFC 7009).
	RevocationEndpoint string `json:"revocation_endpoint,omitempty"`
	// JWKSURI is the URL of the server's signing keys.
	JWKSURI string `json:"jwks_uri,omitempty"`
	// ResponseTypesSupported lists the OAuth response types ("code").
	ResponseTypesSupported []string `json:"response_types_supported"`
	// GrantTypesSupported lists the grant types ("authorization_code", "refresh_token").
	GrantTypesSupported []string `json:"grant_types_supported,omitempty"`
	// ScopesSupported lists the scopes the server issues.
	ScopesSupported []string `json:"scopes_supported,omitempty"`
	// CodeChallengeMethodsSupported lists the PKCE methods ("S256").
	CodeChallengeMethodsSupported []string `json:"code_challenge_methods_supported,omitempty"`
	// TokenEndpointAuthMethodsSupported lists how clients authenticate at the token endpoint.
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported,omitempty"`
	// ResponseModesSupported (RFC 8414 §2).
	ResponseModesSupported []string `json:"response_modes_supported,omitempty"`
	// RevocationEndpointAuthMethodsSupported (RFC 8414 §2).
	RevocationEndpointAuthMethodsSupported []string `json:"revocation_endpoint_auth_methods_supported,omitempty"`
	// AuthorizationResponseIssParameterSupported says authorization
	// responses carry iss (RFC 9207).
	AuthorizationResponseIssParameterSupported bool `json:"authorization_response_iss_parameter_supported,omitempty"`
	// ClientIDMetadataDocumentSupported says a client may use the https
	// URL of its client ID metadata document as its client_id (MCP
	// 2025-11-25 authorization, SEP-991).
	ClientIDMetadataDocumentSupported bool `json:"client_id_metadata_document_supported,omitempty"`
}

// ProtectedResourceMetadata is the RFC 9728 document.
type ProtectedResourceMetadata struct {
	// Resource is the protected resource's identifier: the MCP endpoint's URL.
	Resource string `json:"resource"`
	// AuthorizationServers are the issuers whose tokens the resource accepts.
	AuthorizationServers []string `json:"authorization_servers"`
	// ScopesSupported lists the scopes the resource understands.
	ScopesSupported []string `json:"scopes_supported,omitempty"`
	// BearerMethodsSupported lists how a token may be sent ("header").
	BearerMethodsSupported []string `json:"bearer_methods_supported,omitempty"`
	// ResourceName is a human-readable name of the resource.
	ResourceName string `json:"resource_name,omitempty"`
	// DPoPSigningAlgValuesSupported lists the JWS algorithms the
	// resource accepts for DPoP proofs (RFC 9449, RFC 9728 §2), when it
	// checks them.
	DPoPSigningAlgValuesSupported []string `json:"dpop_signing_alg_values_supported,omitempty"`
}

// MetadataProvider is implemented by an auth provider (mcp.AuthProvider)
// that knows its own OAuth discovery documents: the OAuth proxies of
// package providers and the verifiers of package resourceserver do. When
// mcphttp.Options.OAuth is nil, the HTTP mux serves these documents and
// builds the WWW-Authenticate challenge of its 401 and 403 answers from
// them, so setting mcp.Options.Auth configures discovery too.
type MetadataProvider interface {
	// OAuthMetadata returns the discovery documents to serve.
	OAuthMetadata() *Options
}
