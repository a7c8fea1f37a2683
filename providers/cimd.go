package providers

import (
	"container/list"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcpchain/mcp/internal/strictjson"
)

// ClientMetadataDocuments configures client ID metadata documents (the
// MCP 2025-11-25 authorization spec, SEP-991; draft-ietf-oauth-client-id-
// metadata-document): a client whose client_id is an https URL needs no
// registration; the proxy fetches the JSON document at that URL and
// treats it as the registration. The zero value turns it on with the
// defaults below.
//
// The fetch is the proxy calling a URL anyone can choose, so it is
// guarded against server-side request forgery: https only, on port 443
// unless the URL names another; no proxy from the environment; every
// address the name resolves to is checked when the connection is made
// (in the dialer, so DNS rebinding cannot slip a second, internal answer
// past a check made earlier), and loopback, private (RFC 1918, fc00::/7),
// link-local, CGNAT (100.64.0.0/10), unspecified, multicast, reserved,
// documentation and NAT64 addresses are refused; no redirect is
// followed; the answer must be 200, JSON, and at most MaxDocumentBytes;
// the whole fetch has Timeout. Fetches that miss the cache count against
// Config.RegisterRateLimit of the caller's address, as a registration
// would, and at most 8 run at once.
type ClientMetadataDocuments struct {
	// Disabled turns the feature off: a URL client_id is then unknown.
	Disabled bool
	// AllowPrivateAddresses lets documents be fetched from loopback,
	// private and other internal addresses. For tests and development
	// only: with it, anyone who can start an authorization can make the
	// proxy send GET requests into its own network.
	AllowPrivateAddresses bool
	// TLSConfig is used for the fetches (tests: a RootCAs that trusts a
	// test server). Default: the system roots.
	TLSConfig *tls.Config
	// Timeout bounds one fetch, connection to last byte. Default: 5 s.
	Timeout time.Duration
	// MaxDocumentBytes bounds a document. Default: 5 KiB, as the draft
	// recommends.
	MaxDocumentBytes int
	// CacheSize bounds the documents kept. Default: 1000.
	CacheSize int
	// MinCacheTTL and MaxCacheTTL bound how long a document is kept: its
	// Cache-Control max-age, clamped to them (no max-age: 1 h, clamped).
	// The minimum keeps a client from making the proxy refetch at every
	// request. Defaults: 1 min and 24 h.
	MinCacheTTL, MaxCacheTTL time.Duration
}

// maxClientIDURL bounds a URL client_id.
const maxClientIDURL = 2048

// clientIDHost is what the host of a client_id URL may hold: a DNS name
// in ASCII, an IPv4 address, or (between brackets in the URL) an IPv6
// one.
var clientIDHost = regexp.MustCompile(`^([A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.?|[0-9A-Fa-f:.]+)$`)

// isMetadataDocumentURL reports whether a client_id names a metadata
// document rather than a registration: registered ids are random
// base64url and never contain "://".
func isMetadataDocumentURL(id string) bool {
	return strings.Contains(id, "://")
}

// checkClientIDURL applies the draft's rules for a client_id URL: https,
// a host, a path other than "/", no fragment, no user info, no dot
// segments; and this server's: printable ASCII, a host of ASCII letters,
// digits, dots and hyphens (an internationalised name in its xn-- form),
// since the consent page shows the host as the client's identity, and
// "аpple.com" with a Cyrillic а would read as apple.com.
func checkClientIDURL(id string) error {
	if err := checkClientIDBytes(id); err != nil {
		return err
	}
	u, err := url.Parse(id)
	switch {
	case err != nil:
		return errors.New("the client_id is not a URL")
	case u.Scheme != "https":
		return errors.New("a client_id URL must use https")
	case u.Host == "" || u.Hostname() == "":
		return errors.New("the client_id URL has no host")
	case !clientIDHost.MatchString(u.Hostname()):
		return errors.New("the client_id URL's host must be a DNS name or an IP address written plainly (no %-escapes)")
	case u.User != nil:
		return errors.New("the client_id URL must not contain a user name or password")
	case u.Fragment != "" || strings.Contains(id, "#"):
		return errors.New("the client_id URL must not contain a fragment")
	case u.Path == "" || u.Path == "/":
		return errors.New("the client_id URL must have a path")
	}
	for _, seg := range strings.Split(u.Path, "/") {
		if seg == "." || seg == ".." {
			return errors.New("the client_id URL must not contain . or .. path segments")
		}
	}
	return nil
}

// checkClientIDBytes checks a client_id URL's length and that it is
// printable ASCII, before it is parsed.
func checkClientIDBytes(id string) error {
	if len(id) > maxClientIDURL {
		return fmt.Errorf("the client_id URL is longer than %d bytes", maxClientIDURL)
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; c <= ' ' || c >= 0x7f {
			return fmt.Errorf("the client_id URL must be printable ASCII (byte %d is not; an internationalised host name is written in its xn-- form)", i)
		}
	}
	return nil
}

// clientDocument is what the proxy reads of a client ID metadata
// document (RFC 7591 client metadata).
type clientDocument struct {
	ClientID                string   `json:"client_id"`
	ClientName              string   `json:"client_name"`
	RedirectURIs            []string `json:"redirect_uris"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	Scope                   string   `json:"scope"`
	ApplicationType         string   `json:"application_type"`
	ClientSecret            *string  `json:"client_secret"`
	ClientSecretExpiresAt   *int64   `json:"client_secret_expires_at"`
	ClientURI               string   `json:"client_uri"`
	LogoURI                 string   `json:"logo_uri"`
}

// decodeClientDocument checks a fetched document against the URL it was
// fetched from and returns the client it describes: strict JSON (no
// duplicate or case-variant members), client_id equal to url by simple
// string comparison, no client secret, token_endpoint_auth_method none
// (private_key_jwt and the secret methods are refused), and the
// registration rules of this proxy (redirect URIs within its patterns,
// bounded name and lists, supported grants and scopes).
func (p *Proxy) decodeClientDocument(id string, body []byte) (*client, error) {
	var doc clientDocument
	if err := strictjson.Check(body, 8); err != nil {
		return nil, fmt.Errorf("the document is not valid JSON: %s", strictjson.Clip(err.Error(), 200))
	}
	if err := strictjson.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("the document is not a JSON object of client metadata: %s", strictjson.Clip(err.Error(), 200))
	}
	switch {
	case doc.ClientID != id:
		return nil, fmt.Errorf("the document's client_id %s is not the URL it was fetched from", strictjson.Quote(strictjson.Clip(doc.ClientID, 200)))
	case doc.ClientSecret != nil || doc.ClientSecretExpiresAt != nil:
		return nil, errors.New("the document must not contain a client_secret")
	case doc.TokenEndpointAuthMethod == "private_key_jwt":
		return nil, errors.New("token_endpoint_auth_method private_key_jwt is not supported by this server: use none (a public client with PKCE)")
	case doc.TokenEndpointAuthMethod != "" && doc.TokenEndpointAuthMethod != "none":
		return nil, fmt.Errorf("token_endpoint_auth_method %s is not allowed in a metadata document: use none", strictjson.Quote(strictjson.Clip(doc.TokenEndpointAuthMethod, 40)))
	case len(doc.ClientURI) > 2048 || len(doc.LogoURI) > 2048:
		return nil, errors.New("client_uri and logo_uri must be at most 2048 bytes")
	}
	c, code, msg := p.validateRegistration(&registration{
		RedirectURIs: doc.RedirectURIs, TokenEndpointAuthMethod: "none", GrantTypes: doc.GrantTypes,
		ResponseTypes: doc.ResponseTypes, ClientName: doc.ClientName, Scope: doc.Scope, ApplicationType: doc.ApplicationType,
	})
	if code != "" {
		return nil, fmt.Errorf("%s: %s", code, msg)
	}
	c.ID = id
	c.IssuedAt = 0
	return c, nil
}

// cimdFetcher fetches, checks and caches client ID metadata documents.
type cimdFetcher struct {
	cfg   ClientMetadataDocuments
	hc    *http.Client
	now   func() time.Time
	slots chan struct{} // bounds concurrent fetches

	mu     sync.Mutex
	ll     *list.List
	m      map[string]*list.Element
	flight map[string]*cimdFlight
}

type cimdEntry struct {
	id    string
	c     *client
	until time.Time
}

type cimdFlight struct {
	done chan struct{}
	c    *client
	err  error
}

// errCIMD wraps why a metadata document could not be used: the reason is
// safe to show the user (it never names an address the host resolved to).
var errCIMD = errors.New("client metadata document")

func newCIMDFetcher(cfg ClientMetadataDocuments, now func() time.Time) *cimdFetcher {
	if cfg.Timeout <= 0 {
		cfg.Timeout = 5 * time.Second
	}
	if cfg.MaxDocumentBytes <= 0 {
		cfg.MaxDocumentBytes = 5 << 10
	}
	if cfg.CacheSize <= 0 {
		cfg.CacheSize = 1000
	}
	if cfg.MinCacheTTL <= 0 {
		cfg.MinCacheTTL = time.Minute
	}
	if cfg.MaxCacheTTL <= 0 {
		cfg.MaxCacheTTL = 24 * time.Hour
	}
	if cfg.MaxCacheTTL < cfg.MinCacheTTL {
		cfg.MaxCacheTTL = cfg.MinCacheTTL
	}
	dialer := &net.Dialer{Timeout: cfg.Timeout}
	if !cfg.AllowPrivateAddresses {
		dialer.Control = refuseInternal
	}
	tr := &http.Transport{
		Proxy:                  nil, // a proxy would be dialled instead of the host, past the address check
		DialContext:            dialer.DialContext,
		TLSClientConfig:        cfg.TLSConfig,
		TLSHandshakeTimeout:    cfg.Timeout,
		ResponseHeaderTimeout:  cfg.Timeout,
		MaxResponseHeaderBytes: 16 << 10,
		DisableKeepAlives:      true,
		ForceAttemptHTTP2:      true,
	}
	return &cimdFetcher{cfg: cfg, now: now, slots: make(chan struct{}, 8),
		ll: list.New(), m: map[string]*list.Element{}, flight: map[string]*cimdFlight{},
		hc: &http.Client{Transport: tr, Timeout: cfg.Timeout,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// errInternalAddress is the dialer's refusal.
var errInternalAddress = errors.New("the host resolves to a loopback, private or otherwise internal address")

// refuseInternal is the dialer's Control: it runs for every address the
// connection tries, after DNS resolution, so the address checked is the
// address connected to.
func refuseInternal(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return errInternalAddress
	}
	if internalAddr(ap.Addr()) {
		return errInternalAddress
	}
	return nil
}

// Address ranges a metadata document is never fetched from, beyond what
// netip's predicates name.
var internalPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // CGNAT (RFC 6598)
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // documentation
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, and broadcast
	netip.MustParsePrefix("64:ff9b::/96"),    // NAT64: may embed an internal IPv4 address
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use NAT64
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("2002::/16"),       // 6to4: embeds an IPv4 address
	netip.MustParsePrefix("2001::/32"),       // Teredo: embeds an IPv4 address
	netip.MustParsePrefix("100::/64"),        // discard
}

// internalAddr reports whether a is an address a metadata document must
// not be fetched from.
func internalAddr(a netip.Addr) bool {
	a = a.Unmap()
	if !a.IsValid() || a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() {
		return true
	}
	for _, p := range internalPrefixes {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// client returns the client of the document at id: from the cache, or
// fetched (when allowFetch says the caller may cause a fetch). Errors
// wrap errCIMD with a reason for the user, or are the context's.
func (f *cimdFetcher) client(ctx context.Context, id string, allowFetch func() bool, p *Proxy) (*client, error) {
	if err := checkClientIDURL(id); err != nil {
		return nil, fmt.Errorf("%w: %w", errCIMD, err)
	}
	f.mu.Lock()
	if el, ok := f.m[id]; ok {
		e := el.Value.(*cimdEntry)
		if f.now().Before(e.until) {
			f.ll.MoveToFront(el)
			f.mu.Unlock()
			return e.c, nil
		}
		f.ll.Remove(el)
		delete(f.m, id)
	}
	if fl, ok := f.flight[id]; ok {
		f.mu.Unlock()
		select {
		case <-fl.done:
			return fl.c, fl.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if !allowFetch() {
		f.mu.Unlock()
		return nil, fmt.Errorf("%w: too many metadata documents fetched for this address; try again later", errCIMD)
	}
	fl := &cimdFlight{done: make(chan struct{})}
	f.flight[id] = fl
	f.mu.Unlock()

	c, ttl, err := f.fetch(ctx, id, p)
	fl.c, fl.err = c, err
	f.mu.Lock()
	delete(f.flight, id)
	if err == nil { // errors and invalid documents are never cached
		f.m[id] = f.ll.PushFront(&cimdEntry{id: id, c: c, until: f.now().Add(ttl)})
		for f.ll.Len() > f.cfg.CacheSize {
			old := f.ll.Back()
			f.ll.Remove(old)
			delete(f.m, old.Value.(*cimdEntry).id)
		}
	}
	f.mu.Unlock()
	close(fl.done)
	return c, err
}

// fetch GETs and checks one document; it returns the client and how long
// to cache it. Waiting for one of the fetch slots counts against the
// Timeout too, so a request queued behind slow documents gets an answer
// in time rather than a hang. The fetch is not the first requester's to
// cancel: others may be waiting for the same document (client), so it
// runs to its end or its Timeout even if that requester goes away.
func (f *cimdFetcher) fetch(ctx context.Context, id string, p *Proxy) (*client, time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), f.cfg.Timeout)
	defer cancel()
	select {
	case f.slots <- struct{}{}:
		defer func() { <-f.slots }()
	case <-ctx.Done():
		return nil, 0, fmt.Errorf("%w: too many metadata documents are being fetched; try again later", errCIMD)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, id, nil)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: the client_id is not a URL", errCIMD)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := f.hc.Do(req)
	if err != nil {
		return nil, 0, f.requestError(ctx, id, err, p)
	}
	defer resp.Body.Close()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		// The answer and the deadline crossed: the server's handler
		// ended when the fetch was cancelled, so what arrived is not
		// the document.
		return nil, 0, fmt.Errorf("%w: the document did not arrive within %v", errCIMD, f.cfg.Timeout)
	}
	if err := f.checkResponse(resp); err != nil {
		return nil, 0, err
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, int64(f.cfg.MaxDocumentBytes)+1))
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, 0, fmt.Errorf("%w: the document did not arrive within %v", errCIMD, f.cfg.Timeout)
		}
		return nil, 0, fmt.Errorf("%w: the document could not be read", errCIMD)
	}
	if len(body) > f.cfg.MaxDocumentBytes {
		return nil, 0, fmt.Errorf("%w: the document is larger than %d bytes", errCIMD, f.cfg.MaxDocumentBytes)
	}
	c, err := p.decodeClientDocument(id, body)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %w", errCIMD, err)
	}
	return c, f.ttl(resp.Header.Values("Cache-Control")), nil
}

// requestError explains why the GET of document id failed: an internal
// address, the Timeout, or a connection or TLS failure.
func (f *cimdFetcher) requestError(ctx context.Context, id string, err error, p *Proxy) error {
	if errors.Is(err, errInternalAddress) {
		return fmt.Errorf("%w: %w", errCIMD, errInternalAddress)
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%w: the document did not arrive within %v", errCIMD, f.cfg.Timeout)
	}
	p.log.Info("client metadata document fetch failed", "client_id", id, "err", err)
	return fmt.Errorf("%w: the document could not be fetched (connection or TLS failure)", errCIMD)
}

// checkResponse checks a document's answer before its body is read: 200
// (redirects are not followed), a JSON media type, and a declared length
// within MaxDocumentBytes.
func (f *cimdFetcher) checkResponse(resp *http.Response) error {
	if resp.StatusCode != http.StatusOK {
		if resp.StatusCode >= 300 && resp.StatusCode < 400 {
			return fmt.Errorf("%w: the document URL answered a redirect (%d); redirects are not followed", errCIMD, resp.StatusCode)
		}
		return fmt.Errorf("%w: the document URL answered %d, not 200", errCIMD, resp.StatusCode)
	}
	mt, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if err != nil || (mt != "application/json" && !(strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"))) {
		return fmt.Errorf("%w: the document is not served as application/json", errCIMD)
	}
	if resp.ContentLength > int64(f.cfg.MaxDocumentBytes) {
		return fmt.Errorf("%w: the document is larger than %d bytes", errCIMD, f.cfg.MaxDocumentBytes)
	}
	return nil
}

// ttl is the document's max-age clamped to the configured bounds (1 h
// without one; the minimum with no-store or no-cache).
func (f *cimdFetcher) ttl(cc []string) time.Duration {
	d := time.Hour
	for _, h := range cc {
		for _, dir := range strings.Split(h, ",") {
			k, v, _ := strings.Cut(strings.TrimSpace(dir), "=")
			switch strings.ToLower(k) {
			case "no-store", "no-cache":
				return f.cfg.MinCacheTTL
			case "max-age":
				if n, err := strconv.ParseInt(strings.Trim(v, `"`), 10, 64); err == nil && n >= 0 {
					d = time.Duration(min(n, int64(365*24*3600))) * time.Second
				}
			}
		}
	}
	return max(f.cfg.MinCacheTTL, min(f.cfg.MaxCacheTTL, d))
}

// cimdReason is the user-facing part of an error wrapping errCIMD.
func cimdReason(err error) string {
	s := err.Error()
	if i := strings.LastIndex(s, errCIMD.Error()+": "); i >= 0 {
		return s[i+len(errCIMD.Error())+2:]
	}
	return "it could not be fetched"
}
