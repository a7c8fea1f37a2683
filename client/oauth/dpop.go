package oauth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// proof is a DPoP proof JWT (RFC 9449 §4.2) for a request of method to
// u, signed with Config.DPoPKey: typ dpop+jwt, the public key as jwk,
// htm, htu (u without query and fragment), iat, a random jti, ath (the
// hash of accessToken) when there is one, and the latest nonce of u's
// origin.
func (h *Handler) proof(method string, u *url.URL, accessToken string) (string, error) {
	opts := (&jose.SignerOptions{EmbedJWK: true}).WithType("dpop+jwt")
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: h.cfg.DPoPKey}, opts)
	if err != nil {
		return "", err
	}
	jti := make([]byte, 16)
	_, _ = rand.Read(jti)
	claims := map[string]any{"jti": base64.RawURLEncoding.EncodeToString(jti), "htm": method,
		"htu": htu(u), "iat": time.Now().Unix()}
	if accessToken != "" {
		sum := sha256.Sum256([]byte(accessToken))
		claims["ath"] = base64.RawURLEncoding.EncodeToString(sum[:])
	}
	if n := h.nonce(u); n != "" {
		claims["nonce"] = n
	}
	payload, _ := json.Marshal(claims)
	jws, err := signer.Sign(payload)
	if err != nil {
		return "", err
	}
	return jws.CompactSerialize()
}

// htu is the htu claim of a request to u: its URL without query and
// fragment, scheme and host in lower case.
func htu(u *url.URL) string {
	v := url.URL{Scheme: strings.ToLower(u.Scheme), Host: strings.ToLower(u.Host), Path: u.Path, RawPath: u.RawPath}
	return v.String()
}

// nonce is the latest DPoP-Nonce of u's origin.
func (h *Handler) nonce(u *url.URL) string {
	h.nonceMu.Lock()
	defer h.nonceMu.Unlock()
	return h.nonces[origin(u)]
}

// keepNonce remembers the DPoP-Nonce of an answer from u's origin, and
// reports whether the answer had one.
func (h *Handler) keepNonce(u *url.URL, hdr http.Header) bool {
	n := hdr.Get("DPoP-Nonce")
	if n == "" || len(n) > 1<<10 {
		return false
	}
	h.nonceMu.Lock()
	defer h.nonceMu.Unlock()
	h.nonces[origin(u)] = n
	return true
}

// isNonceChallenge: a resource server's 401 asks for a proof with its
// nonce (WWW-Authenticate DPoP error="use_dpop_nonce", and DPoP-Nonce).
func isNonceChallenge(hdr http.Header) bool {
	if hdr.Get("DPoP-Nonce") == "" {
		return false
	}
	ch, _ := parseChallenge(hdr.Values("WWW-Authenticate"))
	return ch.Error == "use_dpop_nonce"
}

// isNonceError: a token endpoint's error answer is use_dpop_nonce.
func isNonceError(b []byte) bool {
	var r struct {
		Error string `json:"error"`
	}
	return json.Unmarshal(b, &r) == nil && r.Error == "use_dpop_nonce"
}
