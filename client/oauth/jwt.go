package oauth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/asn1"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/big"
	"time"
)

// clientAssertionType is the client_assertion_type of private_key_jwt
// (RFC 7523 §2.2).
const clientAssertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

// clientAssertion is a JWT that authenticates clientID at the
// authorization server audience (its issuer, RFC 7523bis), signed with
// key: ES256 for an ECDSA P-256 key, RS256 for an RSA key.
func clientAssertion(key crypto.Signer, keyID, clientID, audience string, now time.Time) (string, error) {
	var alg string
	switch k := key.Public().(type) {
	case *ecdsa.PublicKey:
		if k.Curve != elliptic.P256() {
			return "", errors.New("an ECDSA client key must be on P-256 (ES256)")
		}
		alg = "ES256"
	case *rsa.PublicKey:
		alg = "RS256"
	default:
		return "", errors.New("the client key must be ECDSA P-256 or RSA")
	}
	header := map[string]string{"alg": alg, "typ": "JWT"}
	if keyID != "" {
		header["kid"] = keyID
	}
	jti := make([]byte, 16)
	_, _ = rand.Read(jti)
	claims := map[string]any{"iss": clientID, "sub": clientID, "aud": audience,
		"iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(), "jti": base64.RawURLEncoding.EncodeToString(jti)}
	h, _ := json.Marshal(header)
	c, _ := json.Marshal(claims)
	input := base64.RawURLEncoding.EncodeToString(h) + "." + base64.RawURLEncoding.EncodeToString(c)
	sum := sha256.Sum256([]byte(input))
	sig, err := key.Sign(rand.Reader, sum[:], crypto.SHA256)
	if err != nil {
		return "", err
	}
	if alg == "ES256" {
		// JWS wants r||s, 32 bytes each, not the ASN.1 of crypto.Signer.
		var rs struct{ R, S *big.Int }
		if rest, err := asn1.Unmarshal(sig, &rs); err != nil || len(rest) > 0 || rs.R == nil || rs.S == nil ||
			rs.R.BitLen() > 256 || rs.S.BitLen() > 256 {
			return "", errors.New("the key's signature is not an ECDSA P-256 one")
		}
		raw := make([]byte, 64)
		rs.R.FillBytes(raw[:32])
		rs.S.FillBytes(raw[32:])
		sig = raw
	}
	return input + "." + base64.RawURLEncoding.EncodeToString(sig), nil
}
