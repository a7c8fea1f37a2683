package openapi

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// RouteKind is what a [Route] makes of the operations it matches.
type RouteKind int

const (
	// RouteTool makes the operation a tool (the default of an operation
	// no route matches).
	RouteTool RouteKind = iota
	// RouteResource makes a GET operation without path parameters a
	// resource whose URI is [Options.URIPrefix] followed by the path
	// ("openapi://pets"); reading it calls the operation with no
	// arguments.
	RouteResource
	// RouteResourceTemplate makes a GET operation with path parameters a
	// resource template: the path with its parameters as RFC 6570
	// variables, and its query parameters as a {?…} form query
	// ("openapi://pets/{id}{?fields}").
	RouteResourceTemplate
	// RouteExclude leaves the operation out.
	RouteExclude
)

// String names the kind.
func (k RouteKind) String() string {
	switch k {
	case RouteTool:
		return "tool"
	case RouteResource:
		return "resource"
	case RouteResourceTemplate:
		return "resource template"
	case RouteExclude:
		return "exclude"
	}
	return fmt.Sprintf("RouteKind(%d)", int(k))
}

// Route maps the operations it matches to a [RouteKind]. The routes of
// [Options.Routes] are tried in order and the first that matches decides,
// as in FastMCP's route maps; an operation no route matches is a tool. A
// route matches an operation when each of its set fields does.
type Route struct {
	// Methods lists the HTTP methods matched (any case); empty: all.
	Methods []string
	// Path is a regular expression (Go syntax, unanchored: anchor it
	// with ^ and $) matched against the operation's path template as
	// written in the document ("/pets/{id}"); empty: all.
	Path string
	// Tags lists tags the operation must all have; empty: no condition.
	Tags []string
	// Kind is what the matched operations become.
	Kind RouteKind
}

// compiledRoute is a Route with its Path compiled.
type compiledRoute struct {
	Route
	path *regexp.Regexp
}

// compileRoutes checks and compiles routes, naming the bad one.
func compileRoutes(routes []Route) ([]compiledRoute, error) {
	out := make([]compiledRoute, 0, len(routes))
	for i, r := range routes {
		c := compiledRoute{Route: r}
		if r.Kind < RouteTool || r.Kind > RouteExclude {
			return nil, fmt.Errorf("openapi: route %d: unknown kind %d", i, int(r.Kind))
		}
		if r.Path != "" {
			re, err := regexp.Compile(r.Path)
			if err != nil {
				return nil, fmt.Errorf("openapi: route %d: path pattern: %w", i, err)
			}
			c.path = re
		}
		for j, m := range r.Methods {
			if !slices.Contains(methods, strings.ToUpper(m)) {
				return nil, fmt.Errorf("openapi: route %d: method %d: %q is not an HTTP method of OpenAPI", i, j, m)
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// match reports whether r matches the operation.
func (r compiledRoute) match(o *operation) bool {
	if len(r.Methods) > 0 && !slices.ContainsFunc(r.Methods, func(m string) bool { return strings.EqualFold(m, o.method) }) {
		return false
	}
	if r.path != nil && !r.path.MatchString(o.path) {
		return false
	}
	for _, t := range r.Tags {
		if !slices.Contains(o.op.Tags, t) {
			return false
		}
	}
	return true
}

// route decides the kind of o by the first matching route, and refuses a
// resource route that cannot apply to it.
func route(routes []compiledRoute, o *operation) (RouteKind, error) {
	for i, r := range routes {
		if !r.match(o) {
			continue
		}
		switch hasPath := o.hasPathParams(); {
		case (r.Kind == RouteResource || r.Kind == RouteResourceTemplate) && o.method != "GET":
			return 0, fmt.Errorf("openapi: route %d maps %s %s to a %s: only GET operations can be read as resources", i, o.method, o.path, r.Kind)
		case r.Kind == RouteResource && hasPath:
			return 0, fmt.Errorf("openapi: route %d maps %s %s to a resource, but it has path parameters: use RouteResourceTemplate", i, o.method, o.path)
		case r.Kind == RouteResourceTemplate && !hasPath:
			return 0, fmt.Errorf("openapi: route %d maps %s %s to a resource template, but it has no path parameters: use RouteResource", i, o.method, o.path)
		}
		return r.Kind, nil
	}
	return RouteTool, nil
}

func (o *operation) hasPathParams() bool {
	return slices.ContainsFunc(o.params, func(p param) bool { return p.p.In == "path" })
}
