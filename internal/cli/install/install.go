// Package install writes an MCP server's entry into the configuration
// file of an MCP client (Claude Desktop, Claude Code, Cursor, VS Code, or
// a generic mcp.json): the file each client documents, merged so that
// every other key and server is kept, idempotent, with a .bak backup of
// the file it replaces.
package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
)

// Server is the stdio server to install.
type Server struct {
	Name    string
	Command string
	Args    []string
	Env     map[string]string
}

// Client describes one MCP client's configuration file.
type Client struct {
	// ID is the name on the command line.
	ID string
	// Key is the object of the file that maps server names to entries.
	Key string
	// Type, set, is written as the entry's "type" (VS Code requires
	// "stdio"; Claude Code writes it too).
	Type string
	// path returns the user-level file; project the project-level one
	// ("" when the client has none).
	path    func(e Env) (string, error)
	project string
}

// Env is what the paths depend on, so tests can set every OS.
type Env struct {
	GOOS   string
	Home   string
	Getenv func(string) string
	// Dir is the project directory (--project), normally the working one.
	Dir string
}

// OSEnv is the running system's Env.
func OSEnv() (Env, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return Env{}, err
	}
	dir, err := os.Getwd()
	if err != nil {
		return Env{}, err
	}
	return Env{GOOS: runtime.GOOS, Home: home, Getenv: os.Getenv, Dir: dir}, nil
}

func (e Env) env(k, def string) string {
	if e.Getenv != nil {
		if v := e.Getenv(k); v != "" {
			return v
		}
	}
	return def
}

// appData is %APPDATA% on Windows (default %USERPROFILE%\AppData\Roaming).
func (e Env) appData() string {
	return e.env("APPDATA", filepath.Join(e.Home, "AppData", "Roaming"))
}

// xdgConfig is $XDG_CONFIG_HOME (default ~/.config).
func (e Env) xdgConfig() string { return e.env("XDG_CONFIG_HOME", filepath.Join(e.Home, ".config")) }

// Clients are the clients install knows, by ID.
var Clients = map[string]*Client{
	// Claude Desktop: "claude_desktop_config.json", under "mcpServers",
	// entries {command, args, env}; macOS ~/Library/Application
	// Support/Claude/, Windows %APPDATA%\Claude\
	// (https://modelcontextprotocol.io/quickstart/user). Anthropic ships
	// no Linux build; community builds and installers use
	// $XDG_CONFIG_HOME/Claude/ (~/.config/Claude/).
	"claude-desktop": {ID: "claude-desktop", Key: "mcpServers", path: func(e Env) (string, error) {
		switch e.GOOS {
		case "darwin":
			return filepath.Join(e.Home, "Library", "Application Support", "Claude", "claude_desktop_config.json"), nil
		case "windows":
			return filepath.Join(e.appData(), "Claude", "claude_desktop_config.json"), nil
		}
		return filepath.Join(e.xdgConfig(), "Claude", "claude_desktop_config.json"), nil
	}},
	// Claude Code: user scope is "mcpServers" at the top of ~/.claude.json
	// (%USERPROFILE%\.claude.json on Windows), entries {type: "stdio",
	// command, args, env}, as `claude mcp add --scope user` writes them;
	// project scope is .mcp.json at the project root
	// (https://code.claude.com/docs/en/mcp, "MCP installation scopes").
	"claude-code": {ID: "claude-code", Key: "mcpServers", Type: "stdio", project: ".mcp.json", path: func(e Env) (string, error) {
		return filepath.Join(e.Home, ".claude.json"), nil
	}},
	// Cursor: ~/.cursor/mcp.json (global, every OS) or .cursor/mcp.json in
	// the project, under "mcpServers", entries {command, args, env}
	// (https://cursor.com/docs/mcp, "Configuration locations").
	"cursor": {ID: "cursor", Key: "mcpServers", project: filepath.Join(".cursor", "mcp.json"), path: func(e Env) (string, error) {
		return filepath.Join(e.Home, ".cursor", "mcp.json"), nil
	}},
	// VS Code: mcp.json in the user profile or .vscode/mcp.json in the
	// workspace, under "servers" (not "mcpServers"), stdio entries
	// {type: "stdio", command, args, env}
	// (https://code.visualstudio.com/docs/copilot/reference/mcp-configuration).
	// The default profile's folder is Code/User under the OS's
	// application-data directory: %APPDATA%, ~/Library/Application
	// Support, $XDG_CONFIG_HOME (~/.config).
	"vscode": {ID: "vscode", Key: "servers", Type: "stdio", project: filepath.Join(".vscode", "mcp.json"), path: func(e Env) (string, error) {
		switch e.GOOS {
		case "darwin":
			return filepath.Join(e.Home, "Library", "Application Support", "Code", "User", "mcp.json"), nil
		case "windows":
			return filepath.Join(e.appData(), "Code", "User", "mcp.json"), nil
		}
		return filepath.Join(e.xdgConfig(), "Code", "User", "mcp.json"), nil
	}},
	// mcp-json: the generic {"mcpServers": {name: {command, args, env}}}
	// most clients read; printed, or written to --file.
	"mcp-json": {ID: "mcp-json", Key: "mcpServers", project: "mcp.json"},
}

// IDs lists the client IDs, sorted.
func IDs() []string {
	var ids []string
	for id := range Clients {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// Path returns the file install writes for the client: the project file
// (in e.Dir) when project is set, else the user file.
func (c *Client) Path(e Env, project bool) (string, error) {
	if project || c.path == nil {
		if c.project == "" {
			return "", fmt.Errorf("%s has no project configuration file", c.ID)
		}
		return filepath.Join(e.Dir, c.project), nil
	}
	return c.path(e)
}

// Entry is a server's entry in a client's file, members in the order
// the clients' documentation shows them.
type Entry struct {
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env,omitempty"`
}

// Entry is the server's entry in the client's format.
func (c *Client) Entry(s Server) Entry {
	return Entry{Type: c.Type, Command: s.Command, Args: append([]string{}, s.Args...), Env: s.Env}
}

// Document is a whole file holding only the server's entry (what
// mcp-json prints).
func (c *Client) Document(s Server) ([]byte, error) {
	return c.Merge(nil, s)
}

// Merge returns file (a client's configuration, nil or empty for none)
// with the server's entry set under c.Key, keeping every other member
// and server, in their order. A file that is not a JSON object (VS Code
// allows comments, for one) is an error: it is not rewritten.
func (c *Client) Merge(file []byte, s Server) ([]byte, error) {
	top, err := members(file)
	if err != nil {
		return nil, err
	}
	entry, err := json.Marshal(c.Entry(s))
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(top, func(m member) bool { return m.key == c.Key })
	var servers []member
	if i >= 0 {
		if servers, err = members(top[i].value); err != nil {
			return nil, fmt.Errorf("%q: %w", c.Key, err)
		}
	}
	j := slices.IndexFunc(servers, func(m member) bool { return m.key == s.Name })
	if j >= 0 {
		servers[j].value = entry
	} else {
		servers = append(servers, member{s.Name, entry})
	}
	obj := encode(servers)
	if i >= 0 {
		top[i].value = obj
	} else {
		top = append(top, member{c.Key, obj})
	}
	var out bytes.Buffer
	if err := json.Indent(&out, encode(top), "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// Result says what Write did.
type Result struct {
	Path string
	// Changed is false when the file already held the same entry.
	Changed bool
	// Backup is the copy of the previous file ("" when there was none
	// or nothing changed).
	Backup string
	// Entry is the entry written, as JSON.
	Entry []byte
}

// Write merges the server into the file at path: nothing changes when
// the entry there is already the same; otherwise the previous file is
// copied to path+".bak" and the new one written (directories created).
func (c *Client) Write(path string, s Server) (*Result, error) {
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	entry, err := json.MarshalIndent(c.Entry(s), "", "  ")
	if err != nil {
		return nil, err
	}
	res := &Result{Path: path, Entry: entry}
	if c.has(old, s) {
		return res, nil
	}
	merged, err := c.Merge(old, s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	mode := os.FileMode(0o644)
	if old != nil {
		if fi, err := os.Stat(path); err == nil {
			mode = fi.Mode().Perm()
		}
		res.Backup = path + ".bak"
		if err := os.WriteFile(res.Backup, old, mode); err != nil {
			return nil, fmt.Errorf("backup: %w", err)
		}
	}
	tmp := path + ".mcpchain-tmp"
	if err := os.WriteFile(tmp, merged, mode); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, path); err != nil {
		return nil, err
	}
	res.Changed = true
	return res, nil
}

// has reports whether file already holds exactly the server's entry.
func (c *Client) has(file []byte, s Server) bool {
	var doc map[string]json.RawMessage
	var servers map[string]any
	if len(bytes.TrimSpace(file)) == 0 || json.Unmarshal(file, &doc) != nil || json.Unmarshal(doc[c.Key], &servers) != nil {
		return false
	}
	cur, ok := servers[s.Name]
	if !ok {
		return false
	}
	var want any
	b, _ := json.Marshal(c.Entry(s))
	_ = json.Unmarshal(b, &want)
	return reflect.DeepEqual(cur, want)
}

const unsupported = " (comments and trailing commas are not supported: fix or move the file; it was not changed)"

type member struct {
	key   string
	value json.RawMessage
}

// members reads a JSON object's members in order, values raw.
func members(b []byte) ([]member, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, nil
	}
	d := json.NewDecoder(bytes.NewReader(b))
	t, err := d.Token()
	if err != nil || t != json.Delim('{') {
		return nil, errors.New("not a JSON object" + unsupported)
	}
	var out []member
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return nil, fmt.Errorf("not valid JSON%s: %w", unsupported, err)
		}
		k, _ := t.(string)
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, fmt.Errorf("not valid JSON%s: %w", unsupported, err)
		}
		if i := slices.IndexFunc(out, func(m member) bool { return m.key == k }); i >= 0 {
			out[i].value = v // the last duplicate wins, as in JSON.parse
			continue
		}
		out = append(out, member{k, v})
	}
	if _, err := d.Token(); err != nil {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("not valid JSON: data after the object")
	}
	return out, nil
}

func encode(ms []member) json.RawMessage {
	var b strings.Builder
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.value)
	}
	b.WriteByte('}')
	return json.RawMessage(b.String())
}
