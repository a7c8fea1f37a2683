package audit

import (
	"bytes"
	"encoding/json"
	"net/url"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// The values that stand for what the trail does not show.
const (
	// Redacted replaces a value the policy hides.
	Redacted = "[REDACTED]"
	// Withheld replaces every value of a call whose arguments were never
	// validated against a tool's input (an unknown tool, invalid
	// arguments, a call refused before it was found): the trail shows
	// which arguments were sent, not what they held, since no policy
	// could be applied to them.
	Withheld = "[WITHHELD]"
)

// secretParts make a name a secret's wherever they appear in it,
// lower-cased without separators ("refresh_token", "X-Api-Key",
// "userPassword").
var secretParts = []string{"password", "passwd", "passphrase", "secret", "token", "apikey", "accesskey",
	"privatekey", "signingkey", "encryptionkey", "credential", "authorization", "bearer", "cookie"}

// secretWordSet are the words (split at separators and lower-to-upper
// case changes) that make a name a secret's: "auth_header", "sessionId",
// "otp", but not "author" or "shipping".
var secretWordSet = map[string]bool{"auth": true, "pwd": true, "pass": true, "session": true, "sessionid": true,
	"signature": true, "sig": true, "jwt": true, "otp": true, "totp": true, "mfa": true, "pin": true, "cvv": true,
	"cvc": true, "ssn": true, "iban": true, "salt": true, "nonce": true, "code": true}

// SecretName reports whether a field, map key or query parameter named
// name holds a secret by the default policy: its name, lower-cased and
// without separators, contains password, passwd, passphrase, secret,
// token, apikey, accesskey, privatekey, signingkey, encryptionkey,
// credential, authorization, bearer or cookie; or one of its words (split
// at "_", "-", ".", spaces and lower-to-upper case changes) is auth, pwd,
// pass, session, sessionid, signature, sig, jwt, otp, totp, mfa, pin,
// cvv, cvc, ssn, iban, salt, nonce or code; or it is "key" alone. It errs
// on the side of hiding ("zip_code" is hidden); tag such a field
// `audit:"keep"`.
func SecretName(name string) bool {
	words, j := nameWords(name)
	if j == "key" {
		return true
	}
	for _, part := range secretParts {
		if strings.Contains(j, part) {
			return true
		}
	}
	for _, w := range words {
		if secretWordSet[w] {
			return true
		}
	}
	return false
}

// nameWords splits a field name into its words, lower case (at "_",
// "-", ".", " ", "/", ":" and lower-to-upper case changes), and returns
// them with the whole name lower case without the separators.
func nameWords(name string) (words []string, joined string) {
	var all, cur strings.Builder
	prevLower := false
	flush := func() {
		if cur.Len() > 0 {
			words = append(words, cur.String())
			cur.Reset()
		}
	}
	for _, r := range name {
		switch {
		case r == '_' || r == '-' || r == '.' || r == ' ' || r == '/' || r == ':':
			flush()
			prevLower = false
			continue
		case unicode.IsUpper(r) && prevLower:
			flush()
		}
		prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
		lr := unicode.ToLower(r)
		cur.WriteRune(lr)
		all.WriteRune(lr)
	}
	flush()
	return words, all.String()
}

// secretValue matches strings that are credentials whatever their field:
// an Authorization header's value, a JWT, the prefixes of well-known API
// keys and tokens, a PEM private key.
var secretValue = regexp.MustCompile(`(?i)^\s*(bearer|basic|dpop|token)\s+\S` +
	`|^eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.` +
	`|\b(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}|\bgithub_pat_[A-Za-z0-9_]{20,}|\bglpat-[A-Za-z0-9_-]{16,}` +
	`|\b(sk|rk|pk)[-_](live|test|proj|ant)?[-_]?[A-Za-z0-9_-]{16,}|\bxox[abposr]-[A-Za-z0-9-]{10,}` +
	`|\bAKIA[0-9A-Z]{16}\b|\bAIza[0-9A-Za-z_-]{30,}|\bmcpk_[A-Za-z0-9_-]{16,}` +
	`|-----BEGIN [A-Z ]*PRIVATE KEY-----`)

// tagPolicy is what an `audit` struct tag says of its field.
type tagPolicy uint8

const (
	byName tagPolicy = iota // no tag: the default policy (SecretName)
	redact                  // audit:"redact"
	omit                    // audit:"omit"
	keep                    // audit:"keep"
)

// field is one JSON member of a struct: its policy and its Go type.
type field struct {
	policy tagPolicy
	typ    reflect.Type
}

// fieldsCache maps a struct type to its JSON members (map[string]field).
var fieldsCache sync.Map

// fieldsOf returns the JSON members of struct type t by encoding/json's
// names (the json tag's name, or the field's; embedded structs' members
// promoted), each with its audit tag.
func fieldsOf(t reflect.Type) map[string]field {
	if f, ok := fieldsCache.Load(t); ok {
		return f.(map[string]field)
	}
	out := map[string]field{}
	collect(t, out, 0)
	fieldsCache.Store(t, out)
	return out
}

func collect(t reflect.Type, out map[string]field, depth int) {
	if depth > 8 {
		return
	}
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		ft := sf.Type
		if sf.Anonymous && name == "" {
			et := ft
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				collect(et, out, depth+1)
				continue
			}
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		p := byName
		switch sf.Tag.Get("audit") {
		case "redact":
			p = redact
		case "omit":
			p = omit
		case "keep":
			p = keep
		}
		if _, dup := out[name]; !dup || depth == 0 {
			out[name] = field{policy: p, typ: ft}
		}
	}
}

// policy applies the redaction policy to decoded JSON values.
type policy struct {
	maxValue int
	extra    func(name string) bool
}

func (p *policy) secretName(name string) bool {
	return SecretName(name) || p.extra != nil && p.extra(name)
}

// arguments decodes a call's arguments and applies the policy of the
// typed input t (nil: the default policy alone), reading each argument
// under its name in t (names, a transform's renames: see
// mcp.GuardedCall.InputNames); withheld replaces every value by Withheld.
// It returns nil for arguments that are not an object.
func (p *policy) arguments(raw json.RawMessage, t reflect.Type, names map[string]string, withheld bool) map[string]any {
	if len(raw) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if dec.Decode(&m) != nil || m == nil {
		return nil
	}
	if withheld {
		for k := range m {
			m[k] = Withheld
		}
		return m
	}
	return p.object(m, t, names, 0)
}

const maxDepth = 16

// object applies the policy to the members of a JSON object whose Go
// type is t (a struct, a map, or nil: unknown). names maps a member's
// name to its name in t where they differ (a transform's renames, at the
// top level only): the field's tag under that name decides, and an
// untagged field is redacted when either name is a secret's.
func (p *policy) object(m map[string]any, t reflect.Type, names map[string]string, depth int) map[string]any {
	t = deref(t)
	var fields map[string]field
	var elem reflect.Type
	if t != nil {
		switch t.Kind() {
		case reflect.Struct:
			fields = fieldsOf(t)
		case reflect.Map:
			elem = t.Elem()
		}
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		name, renamed := names[k]
		if !renamed {
			name = k
		}
		f, known := fields[name]
		if !known {
			// A member the type does not name (or a map's key), under
			// the default policy.
			f = field{typ: elem}
		}
		switch {
		case f.policy == omit:
			continue
		case f.policy == redact, f.policy == byName && (p.secretName(k) || renamed && p.secretName(name)):
			out[k] = Redacted
		default:
			out[k] = p.value(v, f.typ, depth+1)
		}
	}
	return out
}

func deref(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// value applies the policy to one JSON value of Go type t (nil: unknown).
func (p *policy) value(v any, t reflect.Type, depth int) any {
	if depth > maxDepth {
		return Redacted
	}
	switch x := v.(type) {
	case map[string]any:
		return p.object(x, t, nil, depth)
	case []any:
		var et reflect.Type
		if t = deref(t); t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			et = t.Elem()
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = p.value(e, et, depth+1)
		}
		return out
	case string:
		return p.text(x)
	}
	return v // numbers, booleans, null
}

// text is a string value as the trail shows it: redacted when it looks
// like a credential, with the secrets of a URL (its password, the values
// of query parameters named like secrets) redacted, cut at maxValue.
func (p *policy) text(s string) string {
	if secretValue.MatchString(s) {
		return Redacted
	}
	if strings.Contains(s, "://") || strings.HasPrefix(s, "/") && strings.Contains(s, "?") {
		s = p.url(s)
	}
	if p.maxValue > 0 && len(s) > p.maxValue {
		cut := p.maxValue
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// url redacts a URL's password and the values of its query parameters
// (and fragment parameters) named like secrets.
func (p *policy) url(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	changed := false
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "REDACTED")
			changed = true
		}
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			if p.secretName(k) {
				q[k] = []string{"REDACTED"}
				changed = true
			}
		}
		if changed {
			u.RawQuery = q.Encode()
		}
	}
	if !changed {
		return s
	}
	return u.String()
}

// uri is a resource URI as the trail shows it.
func (p *policy) uri(s string) string {
	if secretValue.MatchString(s) {
		return Redacted
	}
	return p.url(s)
}
