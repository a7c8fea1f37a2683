package pages

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/gorilla/securecookie"

	"github.com/mcpchain/mcp/internal/identity"
)

// Token returns n random bytes as base64url without padding.
func Token(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}

// Derive derives a 32-byte key for purpose info from secret (HKDF-SHA256).
func Derive(secret []byte, info string) []byte {
	k, err := hkdf.Key(sha256.New, secret, nil, info, 32)
	if err != nil {
		panic("pages: hkdf: " + err.Error()) // only on an impossible key length
	}
	return k
}

// MAC is the HMAC-SHA256 of parts under key, base64url: each part is
// length-prefixed, so no two lists of parts have the same input.
func MAC(key []byte, parts ...string) string {
	m := hmac.New(sha256.New, key)
	for _, p := range parts {
		fmt.Fprintf(m, "%d:", len(p))
		m.Write([]byte(p))
	}
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// Equal compares two secrets in constant time; an empty one equals nothing.
func Equal(a, b string) bool { return a != "" && hmac.Equal([]byte(a), []byte(b)) }

// Hash is the hex SHA-256 of s, for storage keys that must not show what
// they name (a user's identity key).
func Hash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// Secret returns the configured key v (at least 32 bytes), or, when the
// storage is this process's memory (shared false), a random one with a
// warning: a key generated per process cannot open what another process
// wrote, so shared storage needs it set.
func Secret(pkg, name, v string, shared bool, log *slog.Logger) ([]byte, error) {
	if v != "" {
		if len(v) < 32 {
			return nil, fmt.Errorf("%s: %s must be at least 32 bytes (it is %d); generate one with: openssl rand -base64 32", pkg, name, len(v))
		}
		return []byte(v), nil
	}
	if shared {
		return nil, fmt.Errorf("%s: %s must be set when the storage is shared: a generated key differs per process, "+
			"so records written by one instance could not be read by another", pkg, name)
	}
	log.Warn(pkg + ": no " + name + " configured; using a random one: what it protects does not survive a restart")
	k := make([]byte, 32)
	_, _ = rand.Read(k)
	return k, nil
}

// Sealer encrypts records with AES-256-GCM, binding each to its storage
// key (additional data), so that a record cannot be read without the key
// nor moved to another key.
type Sealer struct{ aead cipher.AEAD }

// NewSealer returns the sealer of a 32-byte key.
func NewSealer(key []byte) (Sealer, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return Sealer{}, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return Sealer{}, err
	}
	return Sealer{aead: aead}, nil
}

// Seal encrypts plain for storage key k.
func (s Sealer) Seal(k string, plain []byte) []byte {
	nonce := make([]byte, s.aead.NonceSize())
	_, _ = rand.Read(nonce)
	return s.aead.Seal(nonce, nonce, plain, []byte(k))
}

// ErrUnseal is what Open returns for a record that does not decrypt.
var ErrUnseal = errors.New("a stored record does not decrypt (another key, or tampered with)")

// Open decrypts a record sealed for storage key k.
func (s Sealer) Open(k string, data []byte) ([]byte, error) {
	n := s.aead.NonceSize()
	if len(data) < n {
		return nil, ErrUnseal
	}
	plain, err := s.aead.Open(nil, data[:n], data[n:], []byte(k))
	if err != nil {
		return nil, ErrUnseal
	}
	return plain, nil
}

// Base is a server's base URL, parsed: the origin the pages are served
// from and the path they live under.
type Base struct {
	URL    string // without a trailing slash
	Origin string // scheme://host
	Path   string // the base's path without a trailing slash ("" at the root)
	Secure bool   // https: cookies are Secure and __Host-
}

// ParseBase checks a BaseURL: absolute http(s) without query or fragment,
// https unless the host is loopback (or allowInsecure).
func ParseBase(pkg, raw string, allowInsecure bool) (Base, error) {
	u, err := url.Parse(strings.TrimSuffix(raw, "/"))
	switch {
	case raw == "":
		return Base{}, fmt.Errorf("%s: BaseURL is required (where the server's pages are reachable, https://mcp.example.com)", pkg)
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil:
		return Base{}, fmt.Errorf("%s: BaseURL %q must be an absolute http(s) URL without query, fragment or user information", pkg, raw)
	case u.Scheme == "http" && !loopback(u.Hostname()) && !allowInsecure:
		return Base{}, fmt.Errorf("%s: BaseURL %q is http on a host other than loopback: serve https, or set AllowInsecureHTTP for a development setup", pkg, raw)
	}
	return Base{URL: u.String(), Origin: u.Scheme + "://" + u.Host, Path: strings.TrimSuffix(u.Path, "/"), Secure: u.Scheme == "https"}, nil
}

// CheckEndpoint checks the URL of an endpoint the server calls with
// secrets (a token endpoint): absolute https, or http to a loopback host,
// without user information or fragment.
func CheckEndpoint(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil || u.Host == "" || u.User != nil || u.Fragment != "":
		return fmt.Errorf("%q is not an absolute URL with a host (and no user information or fragment)", raw)
	case u.Scheme == "https", u.Scheme == "http" && loopback(u.Hostname()):
		return nil
	}
	return fmt.Errorf("%q must be https (http only to a loopback host)", raw)
}

var (
	cspScheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*$`)
	cspHost   = regexp.MustCompile(`^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*(:[0-9]{1,5})?$`)
)

// CSPSource is the CSP source expression of an http(s) URL's origin
// (scheme://host[:port]), or "" when the URL has none a source expression
// can spell: nothing from the URL reaches the header unless it matches
// these patterns, and a target left out is blocked by the browser, never
// allowed.
func CSPSource(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Host == "" || !cspScheme.MatchString(u.Scheme) {
		return ""
	}
	scheme := strings.ToLower(u.Scheme)
	if (scheme == "http" || scheme == "https") && cspHost.MatchString(u.Host) {
		return scheme + "://" + strings.ToLower(u.Host)
	}
	return ""
}

func loopback(host string) bool {
	h := strings.ToLower(host)
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// Cookies are the sealed, HttpOnly, SameSite=Lax cookies of the pages:
// __Host- and Secure when served over https.
type Cookies struct {
	sc     *securecookie.SecureCookie
	secure bool
}

// NewCookies returns cookies sealed with keys derived from secret, valid
// for maxAge.
func NewCookies(secret []byte, purpose string, secure bool, maxAge time.Duration) Cookies {
	sc := securecookie.New(Derive(secret, purpose+"/cookie-hash"), Derive(secret, purpose+"/cookie-block"))
	sc.MaxAge(int(maxAge / time.Second))
	return Cookies{sc: sc, secure: secure}
}

func (c Cookies) name(n string) string {
	if c.secure {
		return "__Host-" + n
	}
	return n
}

// Set writes cookie n holding v for maxAge.
func (c Cookies) Set(w http.ResponseWriter, n string, v any, maxAge time.Duration) error {
	enc, err := c.sc.Encode(n, v)
	if err != nil {
		return err
	}
	http.SetCookie(w, &http.Cookie{Name: c.name(n), Value: enc, Path: "/", HttpOnly: true, Secure: c.secure,
		SameSite: http.SameSiteLaxMode, MaxAge: int(maxAge / time.Second)})
	return nil
}

// Read decodes cookie n into v; false when it is absent, forged or stale.
func (c Cookies) Read(r *http.Request, n string, v any) bool {
	ck, err := r.Cookie(c.name(n))
	return err == nil && c.sc.Decode(n, ck.Value, v) == nil
}

// Clear deletes cookie n.
func (c Cookies) Clear(w http.ResponseWriter, n string) {
	http.SetCookie(w, &http.Cookie{Name: c.name(n), Value: "", Path: "/", HttpOnly: true, Secure: c.secure,
		SameSite: http.SameSiteLaxMode, MaxAge: -1})
}

// Headers wraps a page: no caching, no referrer to another origin (URLs
// carry identifiers), no framing, no sniffing, and a CSP that allows
// nothing (Render replaces it for an HTML page). The referrer policy is
// same-origin, not no-referrer: with no-referrer a browser posts a page's
// form with "Origin: null", which the DNS-rebinding check of
// mcphttp.NewMux refuses (and which would tell a same-origin post from a
// cross-site one no more).
func Headers(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Cache-Control", "no-store")
		hd.Set("Referrer-Policy", "same-origin")
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Content-Security-Policy", "default-src 'none'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'")
		h.ServeHTTP(w, r)
	})
}

// Render writes an HTML page of tmpl (opened by Head, closed by Foot),
// rendered into a buffer first, under a CSP that allows the page's own
// style (by a nonce fresh for each response), forms posting to
// formAction ('none' when empty), nothing else, and no framing. data gets
// Nonce and, unless set, Sub.
func Render(w http.ResponseWriter, status int, tmpl *template.Template, data map[string]any, formAction []string, log *slog.Logger) {
	data["Nonce"] = Token(18)
	if _, ok := data["Sub"]; !ok {
		data["Sub"] = ""
	}
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, data); err != nil {
		log.Error("rendering page", "page", tmpl.Name(), "err", err)
		http.Error(w, "internal error: the page could not be rendered", http.StatusInternalServerError)
		return
	}
	if len(formAction) == 0 {
		formAction = []string{"'none'"}
	}
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'nonce-"+data["Nonce"].(string)+"'; "+
		"form-action "+strings.Join(formAction, " ")+"; frame-ancestors 'none'; base-uri 'none'")
	h.Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// ErrorTmpl is a page with a title and a message.
var ErrorTmpl = template.Must(template.New("error").Parse(Head + `<h1 id="title">{{.Title}}</h1>
<p class="msg" id="message">{{.Message}}</p>
` + Foot))

// CrossSite reports whether a form post did not come from a page of
// origin: a cross-site Sec-Fetch-Site, or an Origin header naming another
// origin. A browser sends at least one of them with every form post.
func CrossSite(r *http.Request, origin string) bool {
	if s := r.Header.Get("Sec-Fetch-Site"); s != "" && s != "same-origin" && s != "none" {
		return true
	}
	o := r.Header.Get("Origin")
	return o != "" && o != "null" && o != origin
}

// SameUser reports whether two callers' auth data name one user that has
// an identity key (package internal/identity): the rule by which a page
// opened in a browser is bound to the MCP caller it was made for.
func SameUser(key string, auth any) bool {
	k, ok := identity.Key(auth)
	return ok && key != "" && Equal(k, key)
}

// MaxForm bounds a page's form body.
const MaxForm = 16 << 10
