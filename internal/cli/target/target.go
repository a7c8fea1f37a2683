// Package target turns the TARGET of an mcpchain command (an http(s) URL
// or a command line to spawn) into a connected MCP client.
package target

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/internal/redact"
)

// Spec is where a command finds its server: URL for Streamable HTTP, or
// Command (argv) to spawn and speak stdio to.
type Spec struct {
	URL     string
	Command []string
	// Header is sent with every HTTP request (-H flags).
	Header http.Header
	// Stderr receives a spawned server's stderr (default os.Stderr).
	Stderr io.Writer
	// HTTPClient, when set, sends the HTTP requests.
	HTTPClient *http.Client
	// Auth, when set, authorizes the HTTP requests (--oauth puts an
	// oauth.Handler here: it logs in on a 401 and adds the token).
	Auth client.Authorizer
}

// Split separates a command's own arguments from its target. args are the
// positional arguments, dashAt the index of "--" in them (-1 when absent,
// as cobra's ArgsLenAtDash reports). With "--", everything after it is
// the command line to spawn and everything before it is returned as rest.
// Without it, args[0] is the target: an http(s) URL, or a command line
// split on spaces ("go run ./server").
func Split(args []string, dashAt int) (Spec, []string, error) {
	if dashAt >= 0 {
		if dashAt == len(args) {
			return Spec{}, nil, errors.New("nothing after --: give the command that starts the server")
		}
		return Spec{Command: args[dashAt:]}, args[:dashAt], nil
	}
	if len(args) == 0 {
		return Spec{}, nil, errors.New("missing TARGET: an http(s) URL, or -- followed by the command that starts the server")
	}
	s, err := Parse(args[0])
	return s, args[1:], err
}

// Parse reads one TARGET string: an http(s) URL, or a command line split
// on whitespace.
func Parse(s string) (Spec, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://") {
		return Spec{URL: s}, nil
	}
	f := strings.Fields(s)
	if len(f) == 0 {
		return Spec{}, errors.New("empty TARGET")
	}
	return Spec{Command: f}, nil
}

// ParseHeaders reads -H values ("Name: value") into a header.
func ParseHeaders(hs []string) (http.Header, error) {
	h := http.Header{}
	for _, v := range hs {
		name, value, ok := strings.Cut(v, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			return nil, fmt.Errorf("header %q: want \"Name: value\"", v)
		}
		h.Add(name, strings.TrimSpace(value))
	}
	return h, nil
}

// String names the target for messages: a URL without its user
// information and query values (where tokens travel).
func (s Spec) String() string {
	if s.URL != "" {
		return redact.URL(s.URL)
	}
	return strings.Join(s.Command, " ")
}

// Transport returns the client transport that reaches the target.
func (s Spec) Transport() client.Transport {
	if s.URL != "" {
		return client.HTTP(s.URL, &client.HTTPOptions{Header: s.Header, Client: s.HTTPClient, Auth: s.Auth, NoListen: true})
	}
	cmd := exec.Command(s.Command[0], s.Command[1:]...)
	cmd.Stderr = s.Stderr
	if cmd.Stderr == nil {
		cmd.Stderr = os.Stderr
	}
	return client.Command(cmd)
}

// Connect connects to the target and initializes the session as the
// mcpchain CLI.
func (s Spec) Connect(ctx context.Context, opts *client.Options) (*client.Client, error) {
	if opts == nil {
		opts = &client.Options{}
	}
	if opts.Info.Name == "" {
		opts.Info = mcp.Implementation{Name: "mcpchain-cli", Version: "0.1.0"}
	}
	c, err := client.Connect(ctx, s.Transport(), opts)
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", s, err)
	}
	return c, nil
}
