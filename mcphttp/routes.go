package mcphttp

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/justinas/alice"

	"github.com/mcpchain/mcp"
)

// mountRoutes mounts the server's custom routes on mux: the ones known now
// at once (a pattern that conflicts with another panics here, as
// ServeMux.Handle does), and a catch-all that mounts the routes added to
// srv later when the first request the mux has no other pattern for
// arrives, then serves it again. So a route added with AddRoute after
// NewMux is served from its first request on, never silently dropped. A
// late route whose pattern conflicts with one already mounted is refused
// with an error in the log. (A route for "GET /" catches every GET the
// other patterns miss, so add routes before NewMux when you have one.)
func mountRoutes(mux *http.ServeMux, srv *mcp.Server, base, authed alice.Chain) *lateRoutes {
	l := &lateRoutes{mux: mux, srv: srv, ops: opsOf(srv), base: base, authed: authed}
	l.mountNew(true)
	mux.Handle("/", l)
	return l
}

// lateRoutes is the catch-all of a mux from NewMux.
type lateRoutes struct {
	mux          *http.ServeMux
	srv          *mcp.Server
	ops          serverOps
	base, authed alice.Chain

	mu sync.Mutex
	n  int // how many of srv.Routes() are mounted (or refused)
}

// mountNew mounts the routes added since the last call; it reports
// whether it mounted any. initial is the call from NewMux, where a
// conflict panics.
func (l *lateRoutes) mountNew(initial bool) bool {
	routes := l.ops.Routes() // append-only: the first l.n are done
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(routes) <= l.n {
		return false
	}
	mounted := false
	for _, rt := range routes[l.n:] {
		chain := l.authed
		if rt.Public {
			chain = l.base
		}
		pattern := rt.Method + " " + rt.Path
		var hd http.Handler = chain.Then(rt.Handler)
		if rt.AnyHost {
			hd = anyHost{hd}
		}
		if initial {
			l.mux.Handle(pattern, hd) // a conflict panics in NewMux
			mounted = true
			continue
		}
		if err := handle(l.mux, pattern, hd); err != nil {
			l.srv.Logger().Error("mcp: a custom route added after NewMux is not served", "route", pattern, "error", err)
			continue
		}
		mounted = true
	}
	l.n = len(routes)
	return mounted
}

// handle is mux.Handle returning its panic (a conflicting pattern) as an
// error.
func handle(mux *http.ServeMux, pattern string, h http.Handler) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("%v", v)
		}
	}()
	mux.Handle(pattern, h)
	return nil
}

// routeMethods are the methods a ServeMux pattern may name.
var routeMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut,
	http.MethodPatch, http.MethodDelete, http.MethodOptions}

// ServeHTTP mounts routes added since, and serves r again when there are
// any; otherwise it answers as the mux would without the catch-all: 405
// with Allow when another method's pattern matches the path, else 404.
func (l *lateRoutes) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if l.mountNew(false) {
		l.mux.ServeHTTP(w, r)
		return
	}
	var allow []string
	probe := new(http.Request)
	for _, m := range routeMethods {
		*probe = *r
		probe.Method = m
		if _, p := l.mux.Handler(probe); p != "" && p != "/" {
			allow = append(allow, m)
		}
	}
	if len(allow) == 0 {
		http.NotFound(w, r)
		return
	}
	slices.Sort(allow)
	w.Header().Set("Allow", strings.Join(allow, ", "))
	http.Error(w, http.StatusText(http.StatusMethodNotAllowed), http.StatusMethodNotAllowed)
}
