package install

import (
	"encoding/json"
	"errors"
	"io/fs"
)

// Configured is a server found in a client's configuration file.
type Configured struct {
	Name   string `json:"name"`
	Client string `json:"client"`
	// Command and Args start a stdio server; URL is a remote one's.
	Command string   `json:"command,omitempty"`
	Args    []string `json:"args,omitempty"`
	URL     string   `json:"url,omitempty"`
	// Path is the configuration file; Project says it is a project's.
	Path    string `json:"path"`
	Project bool   `json:"project,omitempty"`
}

// FileError is a configuration file Discover could not read.
type FileError struct {
	Client, Path string
	Err          error
}

func (e FileError) Error() string { return e.Path + ": " + e.Err.Error() }

// Discover lists the servers of every client's user file and of its
// project file in e.Dir, in the order of IDs, then the file's. A file that
// does not exist is skipped; one that cannot be read or parsed is in errs.
// Files are read with Write's rules (no links below a project directory).
func Discover(e Env) (found []Configured, errs []FileError) {
	for _, id := range IDs() {
		c := Clients[id]
		if c.path == nil {
			continue // mcp-json: no file of its own
		}
		for _, project := range []bool{false, true} {
			if project && c.project == "" {
				continue
			}
			t, err := c.Target(e, project)
			if err != nil {
				errs = append(errs, FileError{id, "", err})
				continue
			}
			file, err := read(t)
			if errors.Is(err, fs.ErrNotExist) || (err == nil && file == nil) {
				continue
			}
			if err == nil {
				var servers []member
				if servers, err = c.servers(file); err == nil {
					for _, m := range servers {
						s := describeEntry(m.value)
						s.Name, s.Client, s.Path, s.Project = m.key, id, t.Path(), project
						found = append(found, s)
					}
					continue
				}
			}
			errs = append(errs, FileError{id, t.Path(), err})
		}
	}
	return found, errs
}

// describeEntry reads the command or URL of an entry in any client's shape:
// command (cmd in Goose) and args; url, httpUrl (Gemini CLI), serverUrl
// (Windsurf) or uri (Goose).
func describeEntry(raw json.RawMessage) Configured {
	var e struct {
		Command   any      `json:"command"`
		Cmd       string   `json:"cmd"`
		Args      []string `json:"args"`
		URL       string   `json:"url"`
		HTTPURL   string   `json:"httpUrl"`
		ServerURL string   `json:"serverUrl"`
		URI       string   `json:"uri"`
	}
	_ = json.Unmarshal(raw, &e)
	var s Configured
	switch cmd := e.Command.(type) {
	case string:
		s.Command = cmd
	case []any: // a command line as one array
		for i, a := range cmd {
			if str, ok := a.(string); ok && i == 0 {
				s.Command = str
			} else if ok {
				s.Args = append(s.Args, str)
			}
		}
	}
	if s.Command == "" {
		s.Command = e.Cmd
	}
	s.Args = append(s.Args, e.Args...)
	for _, u := range []string{e.URL, e.HTTPURL, e.ServerURL, e.URI} {
		if u != "" && s.URL == "" {
			s.URL = u
		}
	}
	return s
}

// CommandOf is the command and arguments of an entry (JSON) in any
// client's shape.
func CommandOf(raw json.RawMessage) (string, []string) {
	s := describeEntry(raw)
	return s.Command, s.Args
}
