// Package exchange is the requester's side of OAuth 2.0 Token Exchange
// (RFC 8693) and of the grants shaped like it (Microsoft Entra's
// on-behalf-of, an RFC 7523 JWT-bearer grant): one token request to an
// identity provider's token endpoint and the decoding of its answer.
// package client/oauth uses it for the ID-JAG of enterprise-managed
// authorization, package tokenexchange for a tool's downstream calls.
//
// No token ever appears in an error: an error names the endpoint and the
// provider's error code and description.
package exchange

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Identifiers of RFC 8693 and the drafts built on it.
const (
	GrantTokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
	GrantJWTBearer     = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	TypeAccessToken    = "urn:ietf:params:oauth:token-type:access_token"
	TypeIDToken        = "urn:ietf:params:oauth:token-type:id_token"
	TypeJWT            = "urn:ietf:params:oauth:token-type:jwt"
	TypeIDJAG          = "urn:ietf:params:oauth:token-type:id-jag"
)

// Request is one token request.
type Request struct {
	// TokenURL is the token endpoint.
	TokenURL string
	// ClientID and ClientSecret authenticate the requester; AuthMethod is
	// client_secret_basic (default with a secret), client_secret_post,
	// or none (the client_id alone in the form).
	ClientID, ClientSecret, AuthMethod string
	// Form holds the grant's parameters (grant_type, subject_token, …).
	Form url.Values
}

// Result is a token endpoint's successful answer (RFC 8693 §2.2.1).
type Result struct {
	AccessToken     string
	IssuedTokenType string
	TokenType       string
	RefreshToken    string
	Scope           string
	// Expiry is when the token expires; zero when the answer does not say.
	Expiry time.Time
}

// maxAnswer bounds a token endpoint's answer.
const maxAnswer = 64 << 10

// Do sends r with hc and decodes the answer. now dates the expiry.
func Do(ctx context.Context, hc *http.Client, r Request, now func() time.Time) (*Result, error) {
	form := url.Values{}
	for k, v := range r.Form {
		form[k] = v
	}
	basic := false
	switch r.AuthMethod {
	case "", "client_secret_basic":
		if r.ClientSecret != "" {
			basic = true
		} else if r.ClientID != "" {
			form.Set("client_id", r.ClientID)
		}
	case "client_secret_post":
		form.Set("client_id", r.ClientID)
		form.Set("client_secret", r.ClientSecret)
	case "none":
		form.Set("client_id", r.ClientID)
	default:
		return nil, fmt.Errorf("token endpoint %s: client authentication %q is not supported", r.TokenURL, r.AuthMethod)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.TokenURL, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, fmt.Errorf("token endpoint %s: %w", r.TokenURL, err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if basic {
		req.SetBasicAuth(url.QueryEscape(r.ClientID), url.QueryEscape(r.ClientSecret))
	}
	// A redirect is not followed: it would send the subject token and the
	// client's credentials on to wherever it points.
	noRedirect := *hc
	noRedirect.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := noRedirect.Do(req)
	if err != nil {
		return nil, fmt.Errorf("token endpoint %s: %w", r.TokenURL, redact(err))
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return nil, fmt.Errorf("token endpoint %s: reading the answer: %w", r.TokenURL, err)
	}
	if len(b) > maxAnswer {
		return nil, fmt.Errorf("token endpoint %s: the answer is larger than %d bytes", r.TokenURL, maxAnswer)
	}
	res, err := Parse(resp.StatusCode, b, now())
	if err != nil {
		return nil, fmt.Errorf("token endpoint %s: %w", r.TokenURL, err)
	}
	return res, nil
}

// redact drops the URL of a transport error's *url.Error: a token
// endpoint's URL holds no secret, but the form is never in it either.
func redact(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// Error is a token endpoint's error answer (RFC 6749 §5.2).
type Error struct {
	// Status is the HTTP status.
	Status int
	// Code is the error member ("invalid_grant"); "" when the answer had
	// none.
	Code string
	// Description is error_description, bounded and printable.
	Description string
}

func (e *Error) Error() string {
	switch {
	case e.Code == "":
		return fmt.Sprintf("HTTP %d without an OAuth error", e.Status)
	case e.Description == "":
		return fmt.Sprintf("%s (HTTP %d)", e.Code, e.Status)
	}
	return fmt.Sprintf("%s: %s (HTTP %d)", e.Code, e.Description, e.Status)
}

// Parse decodes a token endpoint's answer of HTTP status status: a
// success (RFC 6749 §5.1, RFC 8693 §2.2.1) with an access_token, or an
// *Error. Members of the wrong type, or an answer that is not a JSON
// object, are errors; expires_in may be a number or a string of one (some
// providers send that), and outside 1 s to 10 years it is ignored. The
// token itself is never part of an error.
func Parse(status int, body []byte, now time.Time) (*Result, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil || m == nil {
		if status != http.StatusOK {
			return nil, &Error{Status: status}
		}
		return nil, errors.New("the answer is not a JSON object")
	}
	str := func(name string) (string, error) { return stringMember(m, name) }
	if status != http.StatusOK {
		code, _ := str("error")
		desc, _ := str("error_description")
		return nil, &Error{Status: status, Code: printable(code, 64), Description: printable(desc, 300)}
	}
	var r Result
	var err error
	for _, f := range []struct {
		name string
		dst  *string
	}{{"access_token", &r.AccessToken}, {"issued_token_type", &r.IssuedTokenType}, {"token_type", &r.TokenType},
		{"refresh_token", &r.RefreshToken}, {"scope", &r.Scope}} {
		if *f.dst, err = str(f.name); err != nil {
			return nil, err
		}
	}
	if code, _ := str("error"); code != "" {
		desc, _ := str("error_description")
		return nil, &Error{Status: status, Code: printable(code, 64), Description: printable(desc, 300)}
	}
	if r.AccessToken == "" {
		return nil, errors.New("the answer has no access_token")
	}
	if raw, ok := m["expires_in"]; ok {
		r.Expiry = expiry(raw, now)
	}
	return &r, nil
}

// stringMember is the string member name of m, "" when it is absent or
// null.
func stringMember(m map[string]json.RawMessage, name string) (string, error) {
	raw, ok := m[name]
	if !ok || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("%s is not a string", name)
	}
	return s, nil
}

// expiry is the time a token expires_in raw seconds (a number, or a
// string of one) after now; zero when raw is not one or is outside 1 s
// to 10 years.
func expiry(raw json.RawMessage, now time.Time) time.Time {
	n, err := strconv.ParseInt(strings.Trim(string(raw), `"`), 10, 64)
	if err != nil || n <= 0 || n >= 10*365*24*3600 {
		return time.Time{}
	}
	return now.Add(time.Duration(n) * time.Second)
}

// printable keeps the printable ASCII of s, at most n bytes: what an
// identity provider says goes into errors and logs.
func printable(s string, n int) string {
	if len(s) > n {
		s = s[:n]
	}
	b := []byte(s)
	for i, c := range b {
		if c < 0x20 || c > 0x7e {
			b[i] = '?'
		}
	}
	return string(b)
}
