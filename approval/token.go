package approval

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/mcpchain/mcp/internal/pages"
)

// decision is what the user decided on the approval page, signed: the
// request it answers, the user (the SHA-256 of the identity key), the
// tool and the SHA-256 of the call's canonical arguments, and when it
// stops counting. It is stored under appr:{binding} until the call
// takes it (once).
type decision struct {
	ID       string `json:"id"`
	Sub      string `json:"sub"`
	Tool     string `json:"tool"`
	Args     string `json:"args"`
	Approved bool   `json:"ok"`
	IssuedAt int64  `json:"iat"`
	Expires  int64  `json:"exp"`
}

// tokenPrefix starts every decision token; the version lets a later
// format be told apart.
const tokenPrefix = "mcpa1."

// maxToken bounds a decision token: its fields are hashes and a tool name.
const maxToken = 2048

// sign returns d as a token: mcpa1.{payload}.{mac}, the payload base64url
// JSON, the MAC an HMAC-SHA256 under key of the version and payload.
func sign(key []byte, d decision) string {
	b, _ := json.Marshal(d)
	p := base64.RawURLEncoding.EncodeToString(b)
	return tokenPrefix + p + "." + pages.MAC(key, "decision", tokenPrefix+p)
}

var (
	errToken   = errors.New("approval: not a decision token of this server")
	errExpired = errors.New("approval: the decision has expired")
)

// parseToken verifies a decision token: its form, its MAC (in constant
// time, before anything is decoded), its fields, and that it has not
// expired at now.
func parseToken(key []byte, s string, now time.Time) (*decision, error) {
	if len(s) > maxToken || !strings.HasPrefix(s, tokenPrefix) {
		return nil, errToken
	}
	body, mac, ok := strings.Cut(s[len(tokenPrefix):], ".")
	if !ok || strings.Contains(mac, ".") || !pages.Equal(mac, pages.MAC(key, "decision", tokenPrefix+body)) {
		return nil, errToken
	}
	raw, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return nil, errToken
	}
	var d decision
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil || dec.More() {
		return nil, errToken
	}
	if d.ID == "" || len(d.Sub) != 64 || len(d.Args) != 64 || d.Tool == "" || d.Expires <= d.IssuedAt {
		return nil, errToken
	}
	if !now.Before(time.Unix(d.Expires, 0)) {
		return nil, errExpired
	}
	return &d, nil
}

// argsHash is the SHA-256 of a call's arguments in a canonical form (the
// JSON value re-encoded: object members sorted, no insignificant space,
// numbers as written), so that the same arguments, however a client
// spaced or ordered them, are one call, and any other arguments another.
func argsHash(args json.RawMessage) (string, error) {
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:]), nil
}
