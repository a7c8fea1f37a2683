package client

import "net/http"

// Authorizer authorizes what the HTTP transports ([HTTP], [LegacySSE])
// send to a server that is an OAuth protected resource: it wraps the
// transport's http.RoundTripper, so it sees every request and every
// answer, and can add the credentials, answer a 401 or 403 challenge by
// getting a token, and send the request again. Package client/oauth
// implements the MCP authorization flow with it; a program with a token
// of its own needs none (HTTPOptions.Header carries it).
type Authorizer interface {
	// Wrap returns the RoundTripper the transport for the MCP endpoint
	// at serverURL sends its requests through; base sends them on.
	Wrap(serverURL string, base http.RoundTripper) http.RoundTripper
}

// ownClient gives o a client of its own when it has none, and says so.
// Its connection pool is its own, not http.DefaultTransport's: code
// elsewhere in the process that closes the default transport's idle
// connections (httptest.Server.Close does) cannot break a request this
// client has just sent on one, and closing the connection can release the
// pool.
func (o *HTTPOptions) ownClient() bool {
	if o.Client != nil {
		return false
	}
	o.Client = &http.Client{}
	if dt, ok := http.DefaultTransport.(*http.Transport); ok {
		o.Client.Transport = dt.Clone()
	}
	return true
}

// authorize puts o.Auth around the transport of o.Client (a copy: the
// caller's client is left as it is).
func (o *HTTPOptions) authorize(serverURL string) {
	if o.Auth == nil {
		return
	}
	c := *o.Client
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c.Transport = o.Auth.Wrap(serverURL, base)
	o.Client = &c
}
