package openapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// ArgumentError is a tool argument that cannot make a valid request:
// Arg names the argument (a parameter's name, a flattened body property
// or the body key), Reason says what is wrong.
type ArgumentError struct {
	// Arg is the argument's name in the tool's input.
	Arg string
	// Reason says what is wrong with it.
	Reason string
}

// Error implements error.
func (e *ArgumentError) Error() string {
	return fmt.Sprintf("invalid argument %q: %s", e.Arg, e.Reason)
}

// decodeArgs decodes tool arguments, keeping numbers exact.
func decodeArgs(raw []byte) (map[string]any, error) {
	args := map[string]any{}
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return args, nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&args); err != nil {
		return nil, fmt.Errorf("arguments are not a JSON object: %w", err)
	}
	return args, nil
}

// buildRequest makes the HTTP request of operation o for the arguments,
// against base. It returns the request and the path parameters (for the
// validator).
func buildRequest(ctx context.Context, base *url.URL, o *operation, args map[string]any) (*http.Request, map[string]string, error) {
	r := requestParts{path: o.path, plainPath: o.path, pathParams: map[string]string{}, query: url.Values{}, header: http.Header{}}
	for _, p := range o.params {
		v, ok := args[p.arg]
		if !ok || v == nil {
			if p.p.In == openapi3.ParameterInPath {
				return nil, nil, &ArgumentError{p.arg, "required path parameter is missing"}
			}
			continue
		}
		if len(p.p.Content) > 0 { // a parameter with a media type: its JSON
			b, _ := json.Marshal(v)
			v = string(b)
		}
		if err := r.add(p, v); err != nil {
			return nil, nil, err
		}
	}
	payload, err := o.body.payload(args)
	if err != nil {
		return nil, nil, err
	}
	u := r.url(base)
	var req *http.Request
	if payload != nil {
		req, err = http.NewRequestWithContext(ctx, o.method, u.String(), bytes.NewReader(payload))
	} else {
		req, err = http.NewRequestWithContext(ctx, o.method, u.String(), nil)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("building the request: %w", err)
	}
	for k, vs := range r.header {
		req.Header[k] = vs
	}
	for _, c := range r.cookies {
		req.AddCookie(c)
	}
	if payload != nil {
		media, _, _ := strings.Cut(o.body.media, ";")
		if media == "*/*" {
			media = "application/json"
		}
		req.Header.Set("Content-Type", media)
	}
	req.Header.Set("Accept", "application/json, */*;q=0.5")
	return req, r.pathParams, nil
}

// url is base with the path and query the parameters made appended.
func (r *requestParts) url(base *url.URL) *url.URL {
	u := *base
	u.Path = strings.TrimSuffix(base.Path, "/") + r.plainPath
	u.RawPath = strings.TrimSuffix(base.EscapedPath(), "/") + r.path
	if u.RawPath == u.Path {
		u.RawPath = ""
	}
	parts := slices.Clone(r.queryParts)
	if enc := r.query.Encode(); enc != "" {
		parts = append([]string{enc}, parts...)
	}
	u.RawQuery = strings.Join(parts, "&")
	return &u
}

// requestParts collects what the parameters of an operation put in its
// request.
type requestParts struct {
	path, plainPath string // the path, escaped and not
	pathParams      map[string]string
	query           url.Values
	queryParts      []string // pre-encoded parts (deepObject, delimited)
	header          http.Header
	cookies         []*http.Cookie
}

// add puts the value v of parameter p where the parameter goes.
func (r *requestParts) add(p param, v any) error {
	switch p.p.In {
	case openapi3.ParameterInPath:
		s, err := simpleStyle(v, p.p.Explode != nil && *p.p.Explode)
		if err != nil {
			return &ArgumentError{p.arg, err.Error()}
		}
		if s == "." || s == ".." || s == "" {
			// A dot segment would climb out of the operation's path
			// (and past the base path) once a server normalizes it.
			return &ArgumentError{p.arg, "a path parameter cannot be empty, \".\" or \"..\""}
		}
		r.pathParams[p.p.Name] = s
		r.path = strings.ReplaceAll(r.path, "{"+p.p.Name+"}", url.PathEscape(s))
		r.plainPath = strings.ReplaceAll(r.plainPath, "{"+p.p.Name+"}", s)
	case openapi3.ParameterInQuery:
		return r.addQuery(p, v)
	case openapi3.ParameterInHeader:
		s, err := simpleStyle(v, p.p.Explode != nil && *p.p.Explode)
		if err != nil {
			return &ArgumentError{p.arg, err.Error()}
		}
		if strings.ContainsAny(s, "\r\n\x00") {
			return &ArgumentError{p.arg, "a header value cannot hold a line break or NUL"}
		}
		r.header.Set(p.p.Name, s)
	case openapi3.ParameterInCookie:
		s, err := simpleStyle(v, false)
		if err != nil {
			return &ArgumentError{p.arg, err.Error()}
		}
		r.cookies = append(r.cookies, &http.Cookie{Name: p.p.Name, Value: s, Quoted: strings.ContainsAny(s, " ,")})
	}
	return nil
}

// addQuery adds a query parameter in its style: deepObject,
// spaceDelimited, pipeDelimited or form (the default).
func (r *requestParts) addQuery(p param, v any) error {
	switch p.p.Style {
	case "deepObject":
		obj, ok := v.(map[string]any)
		if !ok {
			return &ArgumentError{p.arg, "a deepObject parameter must be an object"}
		}
		for _, k := range sortedKeys(obj) {
			s, err := scalar(obj[k])
			if err != nil {
				return &ArgumentError{p.arg + "." + k, err.Error()}
			}
			r.queryParts = append(r.queryParts, url.QueryEscape(p.p.Name+"["+k+"]")+"="+url.QueryEscape(s))
		}
	case "spaceDelimited", "pipeDelimited":
		list, ok := v.([]any)
		if !ok {
			list = []any{v}
		}
		sep := map[string]string{"spaceDelimited": "%20", "pipeDelimited": "|"}[p.p.Style]
		items, err := scalars(p.arg, list)
		if err != nil {
			return err
		}
		for i, s := range items {
			items[i] = url.QueryEscape(s)
		}
		r.queryParts = append(r.queryParts, url.QueryEscape(p.p.Name)+"="+strings.Join(items, sep))
	default:
		return r.addForm(p, v)
	}
	return nil
}

// addForm adds a query parameter of style form: a list as repeated
// parameters (explode, the default) or comma-separated, an object as its
// members or as name,value pairs, anything else as one value.
func (r *requestParts) addForm(p param, v any) error {
	explode := p.p.Explode == nil || *p.p.Explode
	switch x := v.(type) {
	case []any:
		items, err := scalars(p.arg, x)
		if err != nil {
			return err
		}
		if explode {
			r.query[p.p.Name] = append(r.query[p.p.Name], items...)
		} else {
			r.query.Add(p.p.Name, strings.Join(items, ","))
		}
	case map[string]any:
		var pairs []string
		for _, k := range sortedKeys(x) {
			s, err := scalar(x[k])
			if err != nil {
				return &ArgumentError{p.arg + "." + k, err.Error()}
			}
			if explode {
				r.query.Add(k, s)
			} else {
				pairs = append(pairs, k, s)
			}
		}
		if !explode {
			r.query.Add(p.p.Name, strings.Join(pairs, ","))
		}
	default:
		s, err := scalar(v)
		if err != nil {
			return &ArgumentError{p.arg, err.Error()}
		}
		r.query.Add(p.p.Name, s)
	}
	return nil
}

// scalars formats the members of a list argument, each a scalar.
func scalars(arg string, list []any) ([]string, error) {
	items := make([]string, 0, len(list))
	for _, it := range list {
		s, err := scalar(it)
		if err != nil {
			return nil, &ArgumentError{arg, err.Error()}
		}
		items = append(items, s)
	}
	return items, nil
}

// payload is the request body from the arguments: the string argument
// of a raw body, else the JSON of the body argument or of the flattened
// body's arguments; nil when the operation has no body or none was given.
func (b *body) payload(args map[string]any) ([]byte, error) {
	if b == nil {
		return nil, nil
	}
	var v any
	present := false
	if b.key != "" {
		v, present = args[b.key]
	} else {
		obj := map[string]any{}
		for _, name := range b.flat {
			if x, ok := args[name]; ok {
				obj[name] = x
				present = true
			}
		}
		v = obj
		present = present || b.required
	}
	if !present {
		return nil, nil
	}
	if b.raw {
		str, ok := v.(string)
		if !ok {
			return nil, &ArgumentError{b.argName(), "must be a string (the body as " + b.media + ")"}
		}
		return []byte(str), nil
	}
	payload, err := json.Marshal(v)
	if err != nil {
		return nil, &ArgumentError{b.argName(), err.Error()}
	}
	return payload, nil
}

// argName is the argument that carries the body (or "body" when flat).
func (b *body) argName() string {
	if b.key != "" {
		return b.key
	}
	return "body"
}

// scalar writes a JSON scalar as a parameter value.
func scalar(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case json.Number:
		return x.String(), nil
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), nil
	case int:
		return strconv.Itoa(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case bool:
		return strconv.FormatBool(x), nil
	case nil:
		return "", nil
	}
	return "", errors.New("must be a string, number or boolean here")
}

// simpleStyle writes a value in the simple style of RFC 6570 (path and
// header parameters): a list comma-joined, an object as k,v,… (or k=v,…
// exploded).
func simpleStyle(v any, explode bool) (string, error) {
	switch x := v.(type) {
	case []any:
		items := make([]string, 0, len(x))
		for _, it := range x {
			s, err := scalar(it)
			if err != nil {
				return "", err
			}
			items = append(items, s)
		}
		return strings.Join(items, ","), nil
	case map[string]any:
		var items []string
		for _, k := range sortedKeys(x) {
			s, err := scalar(x[k])
			if err != nil {
				return "", err
			}
			if explode {
				items = append(items, k+"="+s)
			} else {
				items = append(items, k, s)
			}
		}
		return strings.Join(items, ","), nil
	}
	return scalar(v)
}
