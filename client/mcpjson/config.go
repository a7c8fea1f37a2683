package mcpjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"

	"github.com/mcpchain/mcp/client"
)

// Transports a [Server] speaks: its entry's "type" (or "transport"), or
// for an entry without one, stdio when it has a command and Streamable
// HTTP when it has a URL.
const (
	// TypeStdio starts Command with Args and speaks MCP over its stdin
	// and stdout ([client.Command]).
	TypeStdio = "stdio"
	// TypeHTTP speaks Streamable HTTP to URL ([client.HTTP]); an entry's
	// "streamable-http" and "streamableHttp" mean it too.
	TypeHTTP = "http"
	// TypeSSE speaks the deprecated HTTP+SSE transport to URL
	// ([client.LegacySSE]).
	TypeSSE = "sse"
)

// maxFile bounds a configuration file Load reads.
const maxFile = 8 << 20

// Config is an mcp.json: the servers it configures.
type Config struct {
	// Servers are the configured servers ordered by name (the members of
	// "mcpServers" and of "servers" together).
	Servers []Server
}

// Server is one configured server.
type Server struct {
	// Name is the entry's name, the server's prefix in [Clients.ListTools]
	// and in a gateway: 1 to 64 ASCII letters, digits and hyphens.
	Name string
	// Type is TypeStdio, TypeHTTP or TypeSSE ("" in a Server built by
	// hand: stdio with a Command, else HTTP).
	Type string
	// Command, Args, Env and Cwd start a stdio server: Env is added to
	// this process's environment (an entry of the same name replaces
	// it), Cwd is its working directory ("": this process's).
	Command string
	Args    []string
	Env     map[string]string
	Cwd     string
	// URL and Headers reach an HTTP server: each header is sent with
	// every request (an Authorization header, say).
	URL     string
	Headers map[string]string
	// Disabled is the entry's "disabled": [Connect] skips the server.
	Disabled bool
}

// Lookup returns the server named name, or nil.
func (c *Config) Lookup(name string) *Server {
	i, ok := slices.BinarySearchFunc(c.Servers, name, func(s Server, n string) int { return strings.Compare(s.Name, n) })
	if !ok {
		return nil
	}
	return &c.Servers[i]
}

// Check reports what makes c unusable by [Connect] and
// proxy.NewConfigGateway, for a Config a program built itself: a nil
// Config, a server without a name, a name that cannot prefix a tool, a
// name given twice. What [Parse] returns passes it.
func (c *Config) Check() error {
	if c == nil {
		return errors.New("mcpjson: the Config is nil")
	}
	seen := map[string]bool{}
	for _, s := range c.Servers {
		if err := checkName(s.Name); err != nil {
			return fmt.Errorf("mcpjson: server %q: %w", s.Name, err)
		}
		if seen[s.Name] {
			return fmt.Errorf("mcpjson: server %q is configured twice", s.Name)
		}
		seen[s.Name] = true
	}
	return nil
}

// Load reads the configuration file at path (see [Parse]).
func Load(path string) (*Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("mcpjson: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFile+1))
	if err != nil {
		return nil, fmt.Errorf("mcpjson: %s: %w", path, err)
	}
	if len(data) > maxFile {
		return nil, fmt.Errorf("mcpjson: %s: larger than %d bytes", path, maxFile)
	}
	cfg, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}

// Parse reads a configuration: a JSON object whose "mcpServers" (Claude,
// Cursor, Gemini CLI, the generic mcp.json) or "servers" (VS Code)
// object maps names to entries. Members it does not know, at the top
// and in an entry, are ignored.
func Parse(data []byte) (*Config, error) {
	top, err := members(data)
	if err != nil {
		return nil, fmt.Errorf("mcpjson: the file is not a JSON object: %w", err)
	}
	cfg := &Config{}
	found := false
	seen := map[string]string{}
	for _, m := range top {
		if m.key != "mcpServers" && m.key != "servers" {
			continue
		}
		found = true
		entries, err := members(m.value)
		if err != nil {
			return nil, fmt.Errorf("mcpjson: %q is not an object of servers: %w", m.key, err)
		}
		for _, e := range entries {
			if prev, ok := seen[e.key]; ok {
				return nil, fmt.Errorf("mcpjson: server %q is configured twice (in %q and %q)", e.key, prev, m.key)
			}
			seen[e.key] = m.key
			s, err := parseServer(e.key, e.value)
			if err != nil {
				return nil, fmt.Errorf("mcpjson: server %q: %w", e.key, err)
			}
			cfg.Servers = append(cfg.Servers, s)
		}
	}
	if !found {
		return nil, errors.New(`mcpjson: the file has neither "mcpServers" nor "servers"`)
	}
	slices.SortFunc(cfg.Servers, func(a, b Server) int { return strings.Compare(a.Name, b.Name) })
	return cfg, nil
}

// entry is a server's entry as the clients write it.
type entry struct {
	Type      *string            `json:"type"`
	Transport *string            `json:"transport"`
	Command   *string            `json:"command"`
	Args      []string           `json:"args"`
	Env       map[string]*string `json:"env"`
	Cwd       string             `json:"cwd"`
	URL       *string            `json:"url"`
	HTTPURL   *string            `json:"httpUrl"`
	Headers   map[string]*string `json:"headers"`
	Disabled  bool               `json:"disabled"`
}

func parseServer(name string, raw json.RawMessage) (Server, error) {
	if err := checkName(name); err != nil {
		return Server{}, err
	}
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return Server{}, errors.New("the entry is null")
	}
	var e entry
	if err := json.Unmarshal(raw, &e); err != nil {
		return Server{}, fmt.Errorf("the entry is not valid: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	s := Server{Name: name, Args: e.Args, Cwd: e.Cwd, Disabled: e.Disabled}
	kind, err := either(e.Type, e.Transport, "type", "transport")
	if err != nil {
		return Server{}, err
	}
	u, err := either(e.URL, e.HTTPURL, "url", "httpUrl")
	if err != nil {
		return Server{}, err
	}
	if e.Command != nil && u != nil {
		return Server{}, errors.New(`the entry has both a command and a URL: a server is started or reached, not both`)
	}
	s.Command, s.URL = deref(e.Command), deref(u)
	if s.Env, err = strings2(e.Env, "env"); err != nil {
		return Server{}, err
	}
	if s.Headers, err = strings2(e.Headers, "headers"); err != nil {
		return Server{}, err
	}
	if s.Type, err = transportOf(kind, e.Command != nil, u != nil); err != nil {
		return Server{}, err
	}
	if s.Type == TypeStdio {
		return s, s.checkStdio()
	}
	return s, s.checkHTTP()
}

// either is the one of two members that mean the same that is set; both
// set is an error, unless they agree.
func either(a, b *string, aName, bName string) (*string, error) {
	switch {
	case a == nil:
		return b, nil
	case b != nil && *a != *b:
		return nil, fmt.Errorf("the entry has both %q and %q", aName, bName)
	}
	return a, nil
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// strings2 copies a map of strings, a null value refused.
func strings2(m map[string]*string, what string) (map[string]string, error) {
	if m == nil {
		return nil, nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		if v == nil {
			return nil, fmt.Errorf("%s %q is null", what, k)
		}
		out[k] = *v
	}
	return out, nil
}

// transportOf is the transport an entry names, or the one its command
// or URL implies.
func transportOf(kind *string, hasCommand, hasURL bool) (string, error) {
	if kind == nil {
		switch {
		case hasCommand:
			return TypeStdio, nil
		case hasURL:
			return TypeHTTP, nil
		}
		return "", errors.New(`the entry has neither "command" nor "url"`)
	}
	switch *kind {
	case "stdio":
		return TypeStdio, nil
	case "http", "streamable-http", "streamableHttp":
		return TypeHTTP, nil
	case "sse":
		return TypeSSE, nil
	}
	return "", fmt.Errorf("unknown transport %q (known: stdio, http, streamable-http, sse)", *kind)
}

// checkStdio is what a stdio server needs of its entry.
func (s *Server) checkStdio() error {
	switch {
	case s.URL != "":
		return errors.New("a stdio server has no URL")
	case s.Command == "":
		return errors.New(`a stdio server needs a "command"`)
	case len(s.Headers) > 0:
		return errors.New("a stdio server has no headers")
	}
	return nil
}

// checkHTTP is what an HTTP or SSE server needs of its entry.
func (s *Server) checkHTTP() error {
	if s.Command != "" || len(s.Args) > 0 || len(s.Env) > 0 || s.Cwd != "" {
		return fmt.Errorf("an %s server has no command, args, env or cwd: it is reached at its URL", s.Type)
	}
	if s.URL == "" {
		return fmt.Errorf(`an %s server needs a "url"`, s.Type)
	}
	u, err := url.Parse(s.URL)
	if err != nil {
		return fmt.Errorf("url: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("url %q is not an http or https URL", s.URL)
	}
	for k, v := range s.Headers {
		if !validHeaderName(k) {
			return fmt.Errorf("header name %q is not valid", k)
		}
		if strings.ContainsAny(v, "\r\n\x00") {
			return fmt.Errorf("header %q holds a line break or NUL", k)
		}
	}
	return nil
}

// validHeaderName reports whether k is an HTTP token.
func validHeaderName(k string) bool {
	if k == "" {
		return false
	}
	for i := range len(k) {
		c := k[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// checkName is the rule of an mcp.Server.Mount prefix: the name
// prefixes the server's tools (name_tool), so it holds no underscore.
func checkName(name string) error {
	if name == "" {
		return errors.New("a server's name is empty")
	}
	if len(name) > 64 {
		return errors.New("the name is longer than 64 characters")
	}
	for i := range len(name) {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
			return fmt.Errorf("the name prefixes the server's tools (name%stool), so it is ASCII letters, digits and hyphens only: rename it (%q is not one)", Separator, c)
		}
	}
	return nil
}

// Transport returns a new transport to the server: each call a new one,
// since a stdio transport starts a process of its own when it connects
// (its stderr goes to this process's).
func (s *Server) Transport() client.Transport {
	switch {
	case s.Type == TypeStdio || s.Type == "" && s.Command != "":
		cmd := exec.Command(s.Command, s.Args...)
		cmd.Dir = s.Cwd
		if len(s.Env) > 0 {
			cmd.Env = os.Environ()
			keys := make([]string, 0, len(s.Env))
			for k := range s.Env {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				cmd.Env = append(cmd.Env, k+"="+s.Env[k])
			}
		}
		return client.Command(cmd)
	case s.Type == TypeSSE:
		return client.LegacySSE(s.URL, s.httpOptions())
	}
	return client.HTTP(s.URL, s.httpOptions())
}

func (s *Server) httpOptions() *client.HTTPOptions {
	if len(s.Headers) == 0 {
		return nil
	}
	h := http.Header{}
	for k, v := range s.Headers {
		h.Set(k, v)
	}
	return &client.HTTPOptions{Header: h}
}

// member is one member of a JSON object, in the file's order.
type member struct {
	key   string
	value json.RawMessage
}

// members splits a JSON object into its members, a duplicate key
// refused (encoding/json would keep the last silently).
func members(data []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, jsonErr(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("found %s", describe(tok))
	}
	var out []member
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, jsonErr(err)
		}
		key := tok.(string)
		if seen[key] {
			return nil, fmt.Errorf("key %q appears twice", key)
		}
		seen[key] = true
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, jsonErr(err)
		}
		out = append(out, member{key, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, jsonErr(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("something follows the object")
	}
	return out, nil
}

func jsonErr(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return errors.New(strings.TrimPrefix(err.Error(), "json: "))
}

func describe(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		if v == '[' {
			return "an array"
		}
	case string:
		return "a string"
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number, float64:
		return "a number"
	}
	return fmt.Sprint(tok)
}
