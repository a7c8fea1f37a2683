// Package discovery serves the OAuth discovery documents of an MCP server:
// RFC 8414 authorization-server metadata and RFC 9728 protected-resource
// metadata, and builds the WWW-Authenticate challenge that points a client
// at the latter (MCP authorization, revision 2025-06-18 and later).
package discovery

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
)

// Well-known paths of the two documents.
const (
	AuthorizationServerPath = "/.well-known/oauth-authorization-server"
	ProtectedResourcePath   = "/.well-known/oauth-protected-resource"
)

// Handler serves doc as JSON to GET and HEAD, cacheable for an hour and
// readable from any origin (clients fetch it from browsers too).
func Handler(doc any) http.Handler {
	body, err := json.Marshal(doc)
	if err != nil {
		panic("discovery: the document does not encode as JSON: " + err.Error())
	}
	body = append(body, '\n')
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed: the metadata document is read with GET", http.StatusMethodNotAllowed)
			return
		}
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Cache-Control", "public, max-age=3600")
		h.Set("Access-Control-Allow-Origin", "*")
		if r.Method == http.MethodHead {
			return
		}
		_, _ = w.Write(body)
	})
}

// ResourceMetadataURL is where RFC 9728 puts the metadata of a resource:
// the well-known path inserted between the host and the resource's path
// ("https://h/mcp" → "https://h/.well-known/oauth-protected-resource/mcp").
func ResourceMetadataURL(resource string) (string, error) {
	u, err := url.Parse(resource)
	if err != nil {
		return "", err
	}
	u.Path = ProtectedResourcePath + strings.TrimSuffix(u.Path, "/")
	u.RawQuery, u.Fragment = "", ""
	return u.String(), nil
}

// Challenge builds a Bearer WWW-Authenticate value naming the resource
// metadata URL and, when non-empty, the scope the request needs.
func Challenge(resourceMetadataURL, scope string) string {
	v := `Bearer resource_metadata="` + quote(resourceMetadataURL) + `"`
	if scope != "" {
		v += `, scope="` + quote(scope) + `"`
	}
	return v
}

func quote(s string) string { return strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) }

// Mount registers the documents of o on mux. The authorization-server
// metadata goes at its well-known path with the issuer's path inserted
// after the host (RFC 8414 §3.1: issuer https://h/t → /.well-known/
// oauth-authorization-server/t), and at the bare well-known path for
// clients that only probe the root. The protected-resource metadata goes at
// the RFC 9728 path derived from the resource URL (/.well-known/
// oauth-protected-resource/mcp for https://h/mcp), and at the bare
// well-known path; when the resource has a path, the bare document names
// the origin as its resource, as RFC 9728 §3.3 requires of a document
// found at the root. A path already registered on mux is left alone, so
// an auth provider and the server may both mount the same documents. It
// does nothing when o is nil or not enabled.
func Mount(mux *http.ServeMux, o *Options) {
	if o == nil || !o.Enabled {
		return
	}
	if as := o.AuthorizationServer; as != nil {
		h := Handler(as)
		if u, err := url.Parse(as.Issuer); err == nil && strings.Trim(u.Path, "/") != "" {
			handleOnce(mux, AuthorizationServerPath+"/"+strings.Trim(u.Path, "/"), h)
		}
		handleOnce(mux, AuthorizationServerPath, h)
	}
	if pr := o.ProtectedResource; pr != nil {
		u, err := url.Parse(pr.Resource)
		if err == nil && strings.Trim(u.Path, "/") != "" {
			handleOnce(mux, ProtectedResourcePath+"/"+strings.Trim(u.Path, "/"), Handler(pr))
			root := *pr
			root.Resource = u.Scheme + "://" + u.Host
			handleOnce(mux, ProtectedResourcePath, Handler(&root))
		} else {
			handleOnce(mux, ProtectedResourcePath, Handler(pr))
		}
	}
}

// handleOnce registers h at path unless mux already routes exactly that
// path (ServeMux panics on a duplicate pattern).
func handleOnce(mux *http.ServeMux, path string, h http.Handler) {
	if _, pat := mux.Handler(&http.Request{Method: http.MethodGet, URL: &url.URL{Path: path}}); pat == path || pat == "GET "+path {
		return
	}
	mux.Handle(path, h)
}
