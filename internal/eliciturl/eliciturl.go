// Package eliciturl is the one check of a URL-mode elicitation's URL,
// applied wherever such a URL enters or leaves mcpchain: a server's
// elicitation/create (package elicit's Create and OpenURL, Context.Ask),
// URLRequired errors, the
// gateway's relay of an upstream's elicitation/create, and the client
// before it hands a URL to the application's "open this link" handler.
//
// A URL the user is asked to open must be an absolute https URL, or http
// to a loopback host (a local development server): never javascript:,
// data:, file: or any other scheme a browser or an OS handler would run or
// read locally, and never with user information ("https://bank@evil")
// that disguises the host.
package eliciturl

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// MaxLen bounds a URL's length: a page address, not a payload.
const MaxLen = 8192

// Check returns nil when raw is a URL a user may be asked to open, else an
// error that says what is wrong with it.
func Check(raw string) error {
	if len(raw) > MaxLen {
		return fmt.Errorf("elicitation URL is %d bytes long, more than %d", len(raw), MaxLen)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("elicitation URL %s does not parse: %v", strconv.Quote(raw), err)
	}
	if !u.IsAbs() || u.Host == "" || u.Opaque != "" {
		return fmt.Errorf("elicitation URL %s is not an absolute URL with a host", strconv.Quote(raw))
	}
	if u.User != nil {
		return fmt.Errorf("elicitation URL %s carries user information before its host", strconv.Quote(raw))
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return nil
	case "http":
		if Loopback(u.Hostname()) {
			return nil
		}
		return fmt.Errorf("elicitation URL %s uses http to a host that is not loopback; use https", strconv.Quote(raw))
	}
	return fmt.Errorf("elicitation URL %s has scheme %q; only https (or http to a loopback host) may be opened", strconv.Quote(raw), u.Scheme)
}

// CheckElicitation returns nil when a URL-mode elicitation may be sent:
// it has an ID (notifications/elicitation/complete names it) and a
// message, and its URL passes [Check]; else an error naming the field.
func CheckElicitation(id, message, u string) error {
	switch {
	case id == "":
		return errors.New("URL elicitation ID is empty: make one with crypto/rand.Text() (notifications/elicitation/complete names it)")
	case strings.TrimSpace(message) == "":
		return errors.New("URL elicitation message is empty: the user must be told why to open the URL")
	}
	return Check(u)
}

// Loopback reports whether host (without a port) names this machine:
// "localhost" or a name under ".localhost" (RFC 6761), or a loopback IP.
func Loopback(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(h, "[]"))
	return ip != nil && ip.IsLoopback()
}

// CheckRequired checks the URLs of the data of a URLElicitationRequired
// error (-32042): {"elicitations": [{"url": …}, …]}, each URL by [Check].
// Data that does not decode is refused too: whoever reads it next would
// find its URLs unchecked.
func CheckRequired(data json.RawMessage) error {
	var d struct {
		Elicitations []struct {
			URL string `json:"url"`
		} `json:"elicitations"`
	}
	if err := json.Unmarshal(data, &d); err != nil {
		return fmt.Errorf("its data does not decode: %v", err)
	}
	for _, el := range d.Elicitations {
		if err := Check(el.URL); err != nil {
			return err
		}
	}
	return nil
}
