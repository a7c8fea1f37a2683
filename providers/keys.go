package providers

import (
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
	"strings"
)

// randomToken returns n random bytes, base64url without padding.
func randomToken(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}

// hashKey is how codes, refresh tokens and client secrets are stored: only
// their SHA-256, so a dump of the storage holds no usable credential.
func hashKey(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// refreshMACInfo derives the key of refresh tokens' MACs from
// JWTSigningKey (and from each previous signing key, to check the
// refresh tokens they signed).
const refreshMACInfo = "mcpchain/oauth/refresh-mac/v1"

// newRefreshToken returns a refresh token of grant gid:
// {gid}.{random}.{mac}. The grant id lets a replay revoke its grant; the
// MAC lets the proxy tell a refresh token it issued and that was spent
// (its record is gone) from a string someone made up with a grant id
// they saw, without keeping a record of every spent token.
func (p *Proxy) newRefreshToken(gid string) string {
	body := gid + "." + randomToken(32)
	return body + "." + refreshMAC(p.rtMACs[0], body)
}

// issuedRefreshToken reports whether rt carries the MAC of a refresh
// token this proxy issued (with the current or a previous signing key).
func (p *Proxy) issuedRefreshToken(rt string) bool {
	i := strings.LastIndexByte(rt, '.')
	if i < 0 {
		return false
	}
	body, mac := rt[:i], rt[i+1:]
	for _, k := range p.rtMACs {
		if hmac.Equal([]byte(mac), []byte(refreshMAC(k, body))) {
			return true
		}
	}
	return false
}

func refreshMAC(key []byte, body string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("refresh-token\x00" + body))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:16])
}

func deriveKey(secret []byte, info string) []byte {
	k, err := hkdf.Key(sha256.New, secret, nil, info, 32)
	if err != nil {
		panic("providers: hkdf: " + err.Error()) // only on an impossible key length
	}
	return k
}

// sealer encrypts stored upstream tokens with AES-256-GCM, binding each
// ciphertext to its storage key (as additional data) so records cannot be
// swapped. A nil aead stores plaintext (encryption turned off).
type sealer struct{ aead cipher.AEAD }

const (
	sealPlain  = 0
	sealAESGCM = 1
)

func newSealer(key []byte) (sealer, error) {
	if key == nil {
		return sealer{}, nil
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return sealer{}, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return sealer{}, err
	}
	return sealer{aead: aead}, nil
}

func (s sealer) seal(storageKey string, plain []byte) []byte {
	if s.aead == nil {
		return append([]byte{sealPlain}, plain...)
	}
	nonce := make([]byte, s.aead.NonceSize())
	_, _ = rand.Read(nonce)
	out := append([]byte{sealAESGCM}, nonce...)
	return s.aead.Seal(out, nonce, plain, []byte(storageKey))
}

var errUnseal = errors.New("providers: stored record does not decrypt (wrong encryptionKey, or tampered)")

func (s sealer) open(storageKey string, data []byte) ([]byte, error) {
	if len(data) == 0 {
		return nil, errUnseal
	}
	switch data[0] {
	case sealPlain:
		if s.aead != nil {
			return nil, fmt.Errorf("%w: the record is not encrypted but encryption is on", errUnseal)
		}
		return data[1:], nil
	case sealAESGCM:
		if s.aead == nil {
			return nil, fmt.Errorf("%w: the record is encrypted but encryption is off", errUnseal)
		}
		n := s.aead.NonceSize()
		if len(data) < 1+n {
			return nil, errUnseal
		}
		plain, err := s.aead.Open(nil, data[1:1+n], data[1+n:], []byte(storageKey))
		if err != nil {
			return nil, errUnseal
		}
		return plain, nil
	}
	return nil, errUnseal
}
