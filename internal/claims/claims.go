// Package claims reads what mcpchain takes from the claims of a token
// beyond the registered ones: the roles a claim path names (roles and
// groups, whose claim differs from one identity provider to the next),
// and, before any verification, the issuer a JWT names, which decides
// which verifier of several judges it (package multiauth). Nothing here
// verifies a token: Peek is for routing only, and its answer is never
// trusted as a claim.
package claims

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Limits of a claim path.
const (
	maxPathLen      = 256
	maxPathSegments = 8
)

// Path names a member of a token's claims, one object member per
// segment: ["realm_access" "roles"] is claims.realm_access.roles.
type Path []string

// ParsePath reads a claim path: member names separated by dots
// (realm_access.roles), a name that holds a dot or a quote written in
// double quotes with \" and \\ as its only escapes
// ("https://example.com/roles", as Auth0's namespaced claims are). A
// name may be any other run of characters but '.', '"' and '\'. At most
// 8 names and 256 bytes; an empty name, an unterminated quote or a stray
// character after a quoted name is an error saying where.
func ParsePath(s string) (Path, error) {
	if s == "" {
		return nil, errors.New("claim path is empty")
	}
	if len(s) > maxPathLen {
		return nil, fmt.Errorf("claim path of %d bytes exceeds %d", len(s), maxPathLen)
	}
	var p Path
	for i := 0; ; {
		var seg string
		var err error
		if s[i] == '"' {
			seg, i, err = quotedName(s, i)
		} else {
			seg, i, err = plainName(s, i)
		}
		if err != nil {
			return nil, err
		}
		p = append(p, seg)
		if len(p) > maxPathSegments {
			return nil, fmt.Errorf("claim path %q has more than %d names", s, maxPathSegments)
		}
		if i == len(s) {
			return p, nil
		}
		if s[i] != '.' {
			return nil, fmt.Errorf("claim path %q: at byte %d, a quoted name must be followed by '.' or the end", s, i)
		}
		i++
		if i == len(s) {
			return nil, fmt.Errorf("claim path %q ends with '.'", s)
		}
	}
}

// quotedName reads the quoted name that starts at s[i] ('"'), with \"
// and \\ as its only escapes; it returns the name and the index after
// its closing quote.
func quotedName(s string, i int) (string, int, error) {
	var b strings.Builder
	j := i + 1
	for ; j < len(s) && s[j] != '"'; j++ {
		c := s[j]
		if c == '\\' {
			if j+1 == len(s) || (s[j+1] != '"' && s[j+1] != '\\') {
				return "", 0, fmt.Errorf("claim path %q: at byte %d, \\ escapes only \" and \\", s, j)
			}
			j++
			c = s[j]
		}
		b.WriteByte(c)
	}
	if j == len(s) {
		return "", 0, fmt.Errorf("claim path %q: the quoted name at byte %d has no closing quote", s, i)
	}
	if b.Len() == 0 {
		return "", 0, fmt.Errorf("claim path %q: an empty name at byte %d", s, j-1)
	}
	return b.String(), j + 1, nil
}

// plainName reads the unquoted name that starts at s[i], up to the next
// '.' or the end; it returns the name and the index after it.
func plainName(s string, i int) (string, int, error) {
	j := i
	for j < len(s) && s[j] != '.' {
		if s[j] == '"' || s[j] == '\\' {
			return "", 0, fmt.Errorf("claim path %q: at byte %d, a name holding %q must be quoted", s, j, s[j])
		}
		j++
	}
	if j == i {
		return "", 0, fmt.Errorf("claim path %q: an empty name at byte %d", s, i)
	}
	return s[i:j], j, nil
}

// ParsePaths parses each of ss; the error names the one that failed.
func ParsePaths(ss []string) ([]Path, error) {
	out := make([]Path, 0, len(ss))
	for _, s := range ss {
		p, err := ParsePath(s)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// String writes p back in the syntax of ParsePath, quoting a name only
// when it must be.
func (p Path) String() string {
	var b strings.Builder
	for i, seg := range p {
		if i > 0 {
			b.WriteByte('.')
		}
		if !strings.ContainsAny(seg, `."\`) {
			b.WriteString(seg)
			continue
		}
		b.WriteByte('"')
		for j := range len(seg) {
			if seg[j] == '"' || seg[j] == '\\' {
				b.WriteByte('\\')
			}
			b.WriteByte(seg[j])
		}
		b.WriteByte('"')
	}
	return b.String()
}

// Strings returns the strings p names in claims: a string is one value,
// a list gives its strings (members of another type are left out), and
// anything else (a number, an object, a missing member) gives none.
// A value is never split: "a b" is one role.
func (p Path) Strings(claims map[string]any) []string {
	var v any = claims
	for _, seg := range p {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		if v, ok = m[seg]; !ok {
			return nil
		}
	}
	switch v := v.(type) {
	case string:
		if v == "" {
			return nil
		}
		return []string{v}
	case []any:
		out := make([]string, 0, len(v))
		for _, e := range v {
			if s, ok := e.(string); ok && s != "" {
				out = append(out, s)
			}
		}
		return out
	case []string:
		return slices.DeleteFunc(slices.Clone(v), func(s string) bool { return s == "" })
	}
	return nil
}

// Roles gathers the strings every path names in claims, in order and
// without repeats; nil when there are none.
func Roles(claims map[string]any, paths []Path) []string {
	var out []string
	for _, p := range paths {
		for _, s := range p.Strings(claims) {
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// maxPeekLen bounds the token Peek reads.
const maxPeekLen = 16 << 10

// Peeked is what Peek reads of a JWT without verifying it.
type Peeked struct {
	Alg, Typ string // the header's alg and typ
	Iss      string // the payload's iss ("" when absent or not a string)
}

// Peek reports whether tok has the form of a signed JWT (three base64url
// segments without padding, a header that is a JSON object naming an alg,
// a payload that is a JSON object) and returns what its header and
// payload say, unverified: a router uses it to choose the verifier that
// will check the token, never as a claim.
func Peek(tok string) (Peeked, bool) {
	if len(tok) > maxPeekLen || strings.Count(tok, ".") != 2 {
		return Peeked{}, false
	}
	h, rest, _ := strings.Cut(tok, ".")
	payload, sig, _ := strings.Cut(rest, ".")
	if h == "" || payload == "" || sig == "" {
		return Peeked{}, false
	}
	var hdr struct {
		Alg string `json:"alg"`
		Typ string `json:"typ"`
	}
	if !decodeObject(h, &hdr) || hdr.Alg == "" {
		return Peeked{}, false
	}
	var body map[string]any
	if !decodeObject(payload, &body) {
		return Peeked{}, false
	}
	iss, _ := body["iss"].(string)
	return Peeked{Alg: hdr.Alg, Typ: hdr.Typ, Iss: iss}, true
}

// decodeObject decodes a base64url segment holding one JSON object.
func decodeObject(seg string, v any) bool {
	b, err := base64.RawURLEncoding.DecodeString(seg)
	if err != nil {
		return false
	}
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return false
	}
	return json.Unmarshal(b, v) == nil
}
