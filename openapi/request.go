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
	path, plainPath := o.path, o.path
	pathParams := map[string]string{}
	query := url.Values{}
	var queryParts []string // pre-encoded parts (deepObject, delimited)
	header := http.Header{}
	var cookies []*http.Cookie
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
		switch p.p.In {
		case openapi3.ParameterInPath:
			s, err := simpleStyle(v, p.p.Explode != nil && *p.p.Explode)
			if err != nil {
				return nil, nil, &ArgumentError{p.arg, err.Error()}
			}
			if s == "." || s == ".." || s == "" {
				// A dot segment would climb out of the operation's path
				// (and past the base path) once a server normalizes it.
				return nil, nil, &ArgumentError{p.arg, "a path parameter cannot be empty, \".\" or \"..\""}
			}
			pathParams[p.p.Name] = s
			path = strings.ReplaceAll(path, "{"+p.p.Name+"}", url.PathEscape(s))
			plainPath = strings.ReplaceAll(plainPath, "{"+p.p.Name+"}", s)
		case openapi3.ParameterInQuery:
			explode := p.p.Explode == nil || *p.p.Explode
			switch p.p.Style {
			case "deepObject":
				obj, ok := v.(map[string]any)
				if !ok {
					return nil, nil, &ArgumentError{p.arg, "a deepObject parameter must be an object"}
				}
				for _, k := range sortedKeys(obj) {
					s, err := scalar(obj[k])
					if err != nil {
						return nil, nil, &ArgumentError{p.arg + "." + k, err.Error()}
					}
					queryParts = append(queryParts, url.QueryEscape(p.p.Name+"["+k+"]")+"="+url.QueryEscape(s))
				}
			case "spaceDelimited", "pipeDelimited":
				list, ok := v.([]any)
				if !ok {
					list = []any{v}
				}
				sep := map[string]string{"spaceDelimited": "%20", "pipeDelimited": "|"}[p.p.Style]
				var items []string
				for _, it := range list {
					s, err := scalar(it)
					if err != nil {
						return nil, nil, &ArgumentError{p.arg, err.Error()}
					}
					items = append(items, url.QueryEscape(s))
				}
				queryParts = append(queryParts, url.QueryEscape(p.p.Name)+"="+strings.Join(items, sep))
			default: // form
				switch x := v.(type) {
				case []any:
					var items []string
					for _, it := range x {
						s, err := scalar(it)
						if err != nil {
							return nil, nil, &ArgumentError{p.arg, err.Error()}
						}
						items = append(items, s)
					}
					if explode {
						query[p.p.Name] = append(query[p.p.Name], items...)
					} else {
						query.Add(p.p.Name, strings.Join(items, ","))
					}
				case map[string]any:
					var pairs []string
					for _, k := range sortedKeys(x) {
						s, err := scalar(x[k])
						if err != nil {
							return nil, nil, &ArgumentError{p.arg + "." + k, err.Error()}
						}
						if explode {
							query.Add(k, s)
						} else {
							pairs = append(pairs, k, s)
						}
					}
					if !explode {
						query.Add(p.p.Name, strings.Join(pairs, ","))
					}
				default:
					s, err := scalar(v)
					if err != nil {
						return nil, nil, &ArgumentError{p.arg, err.Error()}
					}
					query.Add(p.p.Name, s)
				}
			}
		case openapi3.ParameterInHeader:
			s, err := simpleStyle(v, p.p.Explode != nil && *p.p.Explode)
			if err != nil {
				return nil, nil, &ArgumentError{p.arg, err.Error()}
			}
			if strings.ContainsAny(s, "\r\n\x00") {
				return nil, nil, &ArgumentError{p.arg, "a header value cannot hold a line break or NUL"}
			}
			header.Set(p.p.Name, s)
		case openapi3.ParameterInCookie:
			s, err := simpleStyle(v, false)
			if err != nil {
				return nil, nil, &ArgumentError{p.arg, err.Error()}
			}
			cookies = append(cookies, &http.Cookie{Name: p.p.Name, Value: s, Quoted: strings.ContainsAny(s, " ,")})
		}
	}
	var payload []byte
	if b := o.body; b != nil {
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
		if str, ok := v.(string); ok && b.raw && present {
			payload = []byte(str)
		} else if present && b.raw {
			return nil, nil, &ArgumentError{b.argName(), "must be a string (the body as " + b.media + ")"}
		} else if present {
			var err error
			if payload, err = json.Marshal(v); err != nil {
				return nil, nil, &ArgumentError{b.argName(), err.Error()}
			}
		}
	}
	u := *base
	u.Path = strings.TrimSuffix(base.Path, "/") + plainPath
	u.RawPath = strings.TrimSuffix(base.EscapedPath(), "/") + path
	if u.RawPath == u.Path {
		u.RawPath = ""
	}
	parts := slices.Clone(queryParts)
	if enc := query.Encode(); enc != "" {
		parts = append([]string{enc}, parts...)
	}
	u.RawQuery = strings.Join(parts, "&")
	var rd *bytes.Reader
	if payload != nil {
		rd = bytes.NewReader(payload)
	}
	var req *http.Request
	var err error
	if rd != nil {
		req, err = http.NewRequestWithContext(ctx, o.method, u.String(), rd)
	} else {
		req, err = http.NewRequestWithContext(ctx, o.method, u.String(), nil)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("building the request: %w", err)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	for _, c := range cookies {
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
	return req, pathParams, nil
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
