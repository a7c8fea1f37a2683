package mcphttp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/discovery"
)

// ServerCardOptions configure the Server Card that [NewMux] serves at
// GET <endpoint>/server-card (/mcp/server-card by default): a JSON
// document (media type application/mcp-server-card+json) that tells a
// client which server this is and how to reach it before it connects.
//
// The card follows the draft of SEP-2127 ("MCP Server Cards") kept in
// github.com/modelcontextprotocol/experimental-ext-server-card at commit
// 8924e08 (2026-07-24), which SEP-2127's pull request tracks: the card
// names the server (name, version, description, title, icons, website,
// repository) and its remote endpoint with the protocol revisions it
// speaks. It lists no tools, resources or prompts: the draft leaves them
// to the protocol's list methods, so the card discloses no more of the
// surface than the server's identity. That draft reserves
// <streamable-http-url>/server-card and advises against a /.well-known
// path for a single server's card.
//
// The card is built from the server's options on every request, so it
// always says what initialize's serverInfo and server/discover say.
type ServerCardOptions struct {
	// Name is the card's name in reverse-DNS form with one slash, as the
	// MCP registry names servers ("io.github.owner/weather"). Default: the
	// server's Name (mcp.Options.Name) when it has that form. [New]
	// panics when neither has it.
	Name string
	// Description says what the server does, in 1 to 100 characters (the
	// limit of the card's and of the registry's schema). Required: [New]
	// panics without it.
	Description string
	// URL is the public URL of the Streamable HTTP endpoint, listed as
	// the card's remote with the protocol revisions the engine speaks.
	// Default: the resource URL of the server's OAuth protected-resource
	// metadata (Options.OAuth) when set; else the card lists no
	// remote (the request's Host is never echoed: a cached card must not
	// carry a name an attacker chose).
	URL string
	// Repository is the URL of the server's source code
	// ("https://github.com/owner/repo"); its host names the source
	// ("github", "gitlab", else the host).
	Repository string
	// Public serves the card to every caller on a server that
	// authenticates its requests (mcp.Options.Auth or Authenticate).
	// By default such a server's card is behind the same authentication as
	// its endpoint (a caller the server refuses gets the endpoint's 401),
	// and is marked private to the caller. A server without
	// authentication always serves its card publicly.
	Public bool
}

// serverCardSchema is the $schema of every card the draft allows.
const serverCardSchema = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json"

// serverCardType is the card's media type.
const serverCardType = "application/mcp-server-card+json"

// serverCardSuffix is appended to the endpoint's path.
const serverCardSuffix = "/server-card"

// registryName is the pattern of a card's (and the registry's) name.
var registryName = regexp.MustCompile(`^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`)

// serverCard is the card document, in the draft's member order.
type serverCard struct {
	Schema      string          `json:"$schema"`
	Name        string          `json:"name"`
	Version     string          `json:"version"`
	Description string          `json:"description"`
	Title       string          `json:"title,omitempty"`
	WebsiteURL  string          `json:"websiteUrl,omitempty"`
	Repository  *cardRepository `json:"repository,omitempty"`
	Icons       []mcp.Icon      `json:"icons,omitempty"`
	Remotes     []cardRemote    `json:"remotes,omitempty"`
}

type cardRepository struct {
	URL    string `json:"url"`
	Source string `json:"source"`
}

type cardRemote struct {
	Type                      string   `json:"type"`
	URL                       string   `json:"url"`
	SupportedProtocolVersions []string `json:"supportedProtocolVersions"`
}

// checkServerCard validates o against the server's options and returns
// the card's name; the error says which field is wrong and why.
func checkServerCard(o *ServerCardOptions, so mcp.Options) (string, error) {
	name := o.Name
	if name == "" {
		name = so.Name
	}
	if len(name) < 3 || len(name) > 200 || !registryName.MatchString(name) {
		if o.Name == "" {
			return "", fmt.Errorf("Options.ServerCard.Name is empty and the server's name %q is not in reverse-DNS form with one slash (io.github.owner/server); set Name", so.Name)
		}
		return "", fmt.Errorf("Options.ServerCard.Name %q must be in reverse-DNS form with one slash (io.github.owner/server), 3 to 200 characters", o.Name)
	}
	if n := utf8.RuneCountInString(o.Description); n < 1 || n > 100 {
		return "", fmt.Errorf("Options.ServerCard.Description must have 1 to 100 characters, not %d", n)
	}
	for field, v := range map[string]string{"URL": o.URL, "Repository": o.Repository} {
		if v == "" {
			continue
		}
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || strings.ContainsAny(v, " \t\r\n") {
			return "", fmt.Errorf("Options.ServerCard.%s %q must be an absolute http(s) URL", field, v)
		}
	}
	return name, nil
}

// serverCardURL is the remote the card lists: URL, else the OAuth
// protected resource.
func serverCardURL(o *ServerCardOptions, oa *discovery.Options) string {
	if o.URL != "" {
		return o.URL
	}
	if oa != nil && oa.Enabled && oa.ProtectedResource != nil {
		return oa.ProtectedResource.Resource
	}
	return ""
}

// repositorySource names the forge of a repository URL as the registry
// does ("github", "gitlab"), else by its host.
func repositorySource(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	h := strings.ToLower(u.Hostname())
	switch h {
	case "github.com", "www.github.com":
		return "github"
	case "gitlab.com", "www.gitlab.com":
		return "gitlab"
	}
	return h
}

// buildServerCard encodes the card of srv as the handler serves it.
func (h *Handler) buildServerCard() ([]byte, error) {
	o, so := h.opts.ServerCard, h.ops.Options()
	card := serverCard{
		Schema:      serverCardSchema,
		Name:        h.cardName,
		Version:     so.Version,
		Description: o.Description,
		Title:       so.Title,
		WebsiteURL:  so.WebsiteURL,
		Icons:       so.Icons,
	}
	if o.Repository != "" {
		card.Repository = &cardRepository{URL: o.Repository, Source: repositorySource(o.Repository)}
	}
	if u := serverCardURL(o, h.oauth); u != "" {
		card.Remotes = []cardRemote{{Type: "streamable-http", URL: u, SupportedProtocolVersions: cardVersions()}}
	}
	b, err := json.MarshalIndent(card, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// cardVersions are the revisions a client may speak to the endpoint:
// every one the engine serves, newest first.
func cardVersions() []string {
	out := make([]string, len(allVersions))
	copy(out, allVersions)
	return out
}

// cardPath is the card's path for the endpoint ep.
func cardPath(ep string) string {
	return strings.TrimSuffix(ep, "/") + serverCardSuffix
}

// serveServerCard answers GET and HEAD of the card. Its headers follow the
// draft: the card's media type, a strong ETag honoured by If-None-Match,
// and Cache-Control; a public card also carries the CORS headers the
// draft requires so that browser clients can read it.
func (h *Handler) serveServerCard(public bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		if public {
			setCardCORS(hd)
			hd.Set("Cache-Control", "public, max-age=3600")
		} else {
			// The card answered a caller the server let in: no shared
			// cache may give it to another.
			hd.Set("Cache-Control", "private, max-age=3600")
			hd.Add("Vary", "Authorization")
		}
		b, err := h.buildServerCard()
		if err != nil {
			h.log.Error("mcp: encoding the server card failed", "error", err)
			http.Error(w, "the server card could not be encoded", http.StatusInternalServerError)
			return
		}
		sum := sha256.Sum256(b)
		etag := `"` + hex.EncodeToString(sum[:16]) + `"`
		hd.Set("ETag", etag)
		if etagMatch(r.Header.Values("If-None-Match"), etag) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		hd.Set("Content-Type", serverCardType)
		hd.Set("X-Content-Type-Options", "nosniff")
		w.WriteHeader(http.StatusOK)
		if r.Method != http.MethodHead {
			_, _ = w.Write(b)
		}
	})
}

// serveServerCardPreflight answers a browser's CORS preflight of a public
// card (If-None-Match is not a safelisted header, so revalidation from a
// page preflights).
func serveServerCardPreflight(w http.ResponseWriter, _ *http.Request) {
	setCardCORS(w.Header())
	w.Header().Set("Access-Control-Max-Age", "86400")
	w.WriteHeader(http.StatusNoContent)
}

func setCardCORS(hd http.Header) {
	hd.Set("Access-Control-Allow-Origin", "*")
	hd.Set("Access-Control-Allow-Methods", "GET")
	hd.Set("Access-Control-Allow-Headers", "Content-Type, If-None-Match")
	hd.Set("Access-Control-Expose-Headers", "ETag")
}

// etagMatch reports whether the If-None-Match field values name etag
// (RFC 9110 §13.1.2: "*", or a list of entity tags compared weakly, so
// W/"x" matches "x"). A field line is read up to its first element that
// does not parse, the rest of that line ignored: the card is then sent
// whole, which is always safe.
func etagMatch(values []string, etag string) bool {
	for _, v := range values {
		if lineMatches(v, etag) {
			return true
		}
	}
	return false
}

func lineMatches(v, etag string) bool {
	for {
		v = strings.TrimLeft(v, " \t,")
		if v == "" {
			return false
		}
		if v[0] == '*' {
			return true
		}
		v = strings.TrimPrefix(v, "W/")
		if v == "" || v[0] != '"' {
			return false
		}
		end := strings.IndexByte(v[1:], '"')
		if end < 0 {
			return false
		}
		if v[:end+2] == etag {
			return true
		}
		v = v[end+2:]
	}
}
