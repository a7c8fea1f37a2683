// Package redact takes the secrets out of a URL before it is logged or
// put in an error: a token in its query string (?api_key=…) or in its
// user information (https://user:token@host) would otherwise land in log
// files, in a desktop client's logs, or in an error a gateway relays to
// its callers.
package redact

import (
	"errors"
	"net/url"
	"strings"
)

// Mask replaces what URL takes out.
const Mask = "REDACTED"

// URL returns raw with its user information and the value of each query
// parameter replaced by [Mask] and its fragment left out; the scheme,
// host, path and the names of the query parameters stay, so the URL still
// says where a request went. A part of the query without "=" is masked
// whole: it may be a bare token (?sk-…). A URL that does not parse is "(a URL that
// does not parse)": its text might be anything.
func URL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(a URL that does not parse)"
	}
	if u.User != nil {
		u.User = url.User(Mask)
	}
	if u.Opaque != "" {
		u.Opaque = Mask // "https:user:token@host" parses as all opaque
	}
	u.Fragment, u.RawFragment = "", ""
	if u.RawQuery != "" {
		parts := strings.Split(u.RawQuery, "&")
		for i, p := range parts {
			if name, _, ok := strings.Cut(p, "="); ok {
				parts[i] = name + "=" + Mask
			} else if p != "" {
				parts[i] = Mask
			}
		}
		u.RawQuery = strings.Join(parts, "&")
	}
	return u.String()
}

// Error returns err with the URL of a *url.Error (what http.Client.Do
// fails with: `Post "https://…?token=…": dial tcp …`) redacted; any other
// error as it is. The result wraps the same cause.
func Error(err error) error {
	var ue *url.Error
	if err == nil || !errors.As(err, &ue) || ue != err {
		return err
	}
	return &url.Error{Op: ue.Op, URL: URL(ue.URL), Err: ue.Err}
}
