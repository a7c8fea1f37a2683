// Command conformance-client is the client the official MCP conformance
// suite's client scenarios drive (make conformance-client): the suite
// starts a scenario's server, runs this program with the server's URL as
// its last argument and the scenario's name in MCP_CONFORMANCE_SCENARIO,
// and checks what it sent. Each scenario does what a real client would
// with package client.
package main

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/client/oauth"
	"github.com/mcpchain/mcp/elicit"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: conformance-client URL (MCP_CONFORMANCE_SCENARIO names the scenario)")
		os.Exit(2)
	}
	url := os.Args[len(os.Args)-1]
	scenario := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	if err := run(ctx, scenario, url); err != nil {
		fmt.Fprintf(os.Stderr, "conformance-client: %s: %v\n", scenario, err)
		os.Exit(1)
	}
}

// scenarios are what the client does for each scenario it supports.
var scenarios = map[string]func(ctx context.Context, c *client.Client) error{
	"initialize": func(ctx context.Context, c *client.Client) error {
		_, err := c.ListTools(ctx)
		return err
	},
	"tools_call": func(ctx context.Context, c *client.Client) error {
		res, err := c.CallTool(ctx, "add_numbers", map[string]float64{"a": 5, "b": 3}, nil)
		if err != nil {
			return err
		}
		fmt.Println(res.Text())
		return nil
	},
	"elicitation-sep1034-client-defaults": func(ctx context.Context, c *client.Client) error {
		res, err := c.CallTool(ctx, "test_client_elicitation_defaults", nil, nil)
		if err != nil {
			return err
		}
		fmt.Println(res.Text())
		return nil
	},
	"sse-retry": func(ctx context.Context, c *client.Client) error {
		res, err := c.CallTool(ctx, "test_reconnection", nil, nil)
		if err != nil {
			return err
		}
		fmt.Println(res.Text())
		return nil
	},
	"request-metadata":              exerciseAll,
	"http-standard-headers":         exerciseAll,
	"http-custom-headers":           exerciseAll,
	"http-invalid-tool-headers":     exerciseAll,
	"json-schema-ref-no-deref":      exerciseAll,
	"sep-2322-client-request-state": exerciseAll,
	"json-schema-2020-12-preservation": func(ctx context.Context, c *client.Client) error {
		tools, err := c.ListTools(ctx)
		if err != nil {
			return err
		}
		for _, t := range tools {
			if t.Name == "json_schema_2020_12_tool" {
				_, err := c.CallTool(ctx, "json_schema_echo", map[string]any{"schema": t.InputSchema}, nil)
				return err
			}
		}
		return errors.New("the server lists no json_schema_2020_12_tool")
	},
	// The skills scenarios (SEP-2640): listing reads no file; loading a
	// skill verifies SKILL.md against its entry and, on a mismatch, the
	// skill is not used (nor any other file of it read).
	"sep-2640-client-no-prefetch": func(ctx context.Context, c *client.Client) error {
		skills, err := c.ListSkills(ctx)
		for _, sk := range skills {
			fmt.Printf("%s: %s\n", sk.Name, sk.Description)
		}
		return err
	},
	"sep-2640-client-verify-digest":      useSkills,
	"sep-2640-client-verify-size":        useSkills,
	"sep-2640-client-verify-frontmatter": useSkills,
}

// useSkills is a host that uses every skill of the server: it loads each
// (SKILL.md, verified) and then reads each of its files (verified). A
// skill that fails verification is reported and left unused; the
// scenarios serve one whose SKILL.md was tampered with.
func useSkills(ctx context.Context, c *client.Client) error {
	skills, err := c.ListSkills(ctx)
	if err != nil {
		return err
	}
	for _, sk := range skills {
		var ie *client.SkillIntegrityError
		loaded, err := c.LoadSkill(ctx, sk)
		if errors.As(err, &ie) {
			fmt.Fprintf(os.Stderr, "conformance-client: skill %s not used: %v\n", sk.URI, err)
			continue
		}
		if err != nil {
			return err
		}
		for _, f := range sk.Resources {
			if f.URI == sk.URI {
				continue
			}
			if _, err := loaded.ReadFile(ctx, f.URI); errors.As(err, &ie) {
				fmt.Fprintf(os.Stderr, "conformance-client: skill %s: %v\n", sk.URI, err)
			} else if err != nil {
				return err
			}
		}
	}
	return nil
}

// exerciseAll is what a client does with a server it knows nothing of:
// list the tools and call each with arguments made from its schema, list
// and read the resources, list and get the prompts. The scenarios of
// revision 2026-07-28 that watch what every request carries (_meta, the
// routing headers, input-required rounds) use it.
func exerciseAll(ctx context.Context, c *client.Client) error {
	tools, err := c.ListTools(ctx)
	if err != nil {
		return err
	}
	for _, t := range tools {
		args := map[string]any{}
		if t.InputSchema != nil {
			for _, name := range t.InputSchema.Required {
				args[name] = sample(t.InputSchema.Properties[name])
			}
			// An optional string argument mirrored into a header gets a
			// value too, one that needs the header's Base64 form; other
			// optional arguments are left out (their header with them).
			for name, p := range t.InputSchema.Properties {
				if _, ok := args[name]; ok || p == nil || p.Extra["x-mcp-header"] == nil || p.Type != "string" {
					continue
				}
				args[name] = " café "
			}
		}
		if _, err := c.CallTool(ctx, t.Name, args, nil); err != nil {
			fmt.Fprintf(os.Stderr, "conformance-client: %s: %v\n", t.Name, err)
		}
	}
	if rs, err := c.ListResources(ctx); err == nil {
		for _, r := range rs {
			_, _ = c.ReadResource(ctx, r.URI)
		}
	}
	if ps, err := c.ListPrompts(ctx); err == nil {
		for _, p := range ps {
			args := map[string]string{}
			for _, a := range p.Arguments {
				if a.Required {
					args[a.Name] = "x"
				}
			}
			_, _ = c.GetPrompt(ctx, p.Name, args)
		}
	}
	return nil
}

// sample is a value of the type a property schema names.
func sample(s *jsonschema.Schema) any {
	if s == nil {
		return "x"
	}
	if len(s.Enum) > 0 {
		return s.Enum[0]
	}
	switch s.Type {
	case "integer":
		return 1
	case "number":
		return 1.5
	case "boolean":
		return true
	case "object":
		return map[string]any{}
	case "array":
		return []any{}
	}
	return "x"
}

func run(ctx context.Context, scenario, url string) error {
	do, ok := scenarios[scenario]
	var auth client.Authorizer
	if strings.HasPrefix(scenario, "auth/") {
		// Every authorization scenario: the client lists the tools and
		// calls one, authorizing as the server asks.
		do, ok = authorized, true
		h, err := authHandler(scenario)
		if err != nil {
			return err
		}
		auth = h
	}
	if !ok {
		return fmt.Errorf("scenario %q is not supported", scenario)
	}
	opts := &client.Options{
		// The suite names the revision to speak when it is not the
		// client's default.
		ProtocolVersion: mcp.Version(os.Getenv("MCP_CONFORMANCE_PROTOCOL_VERSION")),
		Info:            mcp.Implementation{Name: "mcpchain-conformance-client", Version: "1.0.0"},
		Logger:          slog.New(slog.NewTextHandler(os.Stderr, nil)),
		// Accept every elicitation with the defaults of its schema: what
		// a form shows before the user changes anything.
		Elicit: func(_ context.Context, p *elicit.Params) (*elicit.Result, error) {
			return &elicit.Result{Action: "accept", Content: client.ElicitDefaults(p)}, nil
		},
	}
	if strings.HasPrefix(scenario, "sep-2640-") {
		opts.Extensions = map[string]any{mcp.SkillsExtension: nil}
	}
	c, err := client.Connect(ctx, client.HTTP(url, &client.HTTPOptions{Auth: auth}), opts)
	if err != nil {
		return err
	}
	defer c.Close()
	return do(ctx, c)
}

// authorized is what the authorization scenarios watch: a client that
// lists the tools and calls one, with a token for each request.
func authorized(ctx context.Context, c *client.Client) error {
	tools, err := c.ListTools(ctx)
	if err != nil {
		return err
	}
	if len(tools) == 0 {
		return errors.New("the server lists no tools")
	}
	_, err = c.CallTool(ctx, tools[0].Name, map[string]any{}, nil)
	return err
}

// clientMetadataURL is the client ID metadata document the suite expects
// a client to use where the authorization server supports them.
const clientMetadataURL = "https://conformance-test.local/client-metadata.json"

// authHandler is the oauth.Handler of an authorization scenario: the
// client the suite registered beforehand where it names one (in
// MCP_CONFORMANCE_CONTEXT), client credentials where the scenario is
// about them, and a browser step that follows the authorization
// endpoint's redirect as a user who approves at once would.
func authHandler(scenario string) (*oauth.Handler, error) {
	var sc struct {
		ClientID      string `json:"client_id"`
		ClientSecret  string `json:"client_secret"`
		PrivateKeyPEM string `json:"private_key_pem"`
		// The enterprise IdP of enterprise-managed authorization: the
		// user's ID token and where to exchange it for an ID-JAG.
		IdPIDToken       string `json:"idp_id_token"`
		IdPTokenEndpoint string `json:"idp_token_endpoint"`
		IdPClientID      string `json:"idp_client_id"`
		// The workload's identity token (workload identity federation).
		WorkloadJWT string `json:"valid_jwt"`
	}
	if s := os.Getenv("MCP_CONFORMANCE_CONTEXT"); s != "" {
		if err := json.Unmarshal([]byte(s), &sc); err != nil {
			return nil, fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %w", err)
		}
	}
	var key crypto.Signer
	if sc.PrivateKeyPEM != "" {
		block, _ := pem.Decode([]byte(sc.PrivateKeyPEM))
		if block == nil {
			return nil, errors.New("MCP_CONFORMANCE_CONTEXT: private_key_pem is not PEM")
		}
		k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("MCP_CONFORMANCE_CONTEXT: private_key_pem: %w", err)
		}
		var ok bool
		if key, ok = k.(crypto.Signer); !ok {
			return nil, errors.New("MCP_CONFORMANCE_CONTEXT: private_key_pem is not a signing key")
		}
	}
	var dpopKey *ecdsa.PrivateKey
	if scenario == "auth/dpop" || scenario == "auth/dpop-nonce" {
		// DPoP-bound tokens (SEP-1932), with a key of this run.
		var err error
		if dpopKey, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
			return nil, err
		}
	}
	var assertion oauth.AssertionFunc
	var enterprise *oauth.EnterpriseIdP
	switch scenario {
	case "auth/cross-app-access-complete-flow", "auth/enterprise-managed-authorization":
		// The user signed in at the enterprise IdP (the suite gives its
		// ID token); each token request gets an ID-JAG from the IdP.
		enterprise = &oauth.EnterpriseIdP{TokenURL: sc.IdPTokenEndpoint, ClientID: sc.IdPClientID,
			IDToken: func(context.Context) (string, error) { return sc.IdPIDToken, nil }}
	case "auth/wif-jwt-bearer":
		assertion = func(context.Context, oauth.AssertionRequest) (string, error) { return sc.WorkloadJWT, nil }
	}
	return oauth.New(oauth.Config{
		Assertion:         assertion,
		EnterpriseIdP:     enterprise,
		DPoPKey:           dpopKey,
		ClientID:          sc.ClientID,
		ClientSecret:      sc.ClientSecret,
		PrivateKey:        key,
		ClientMetadataURL: clientMetadataURL,
		ClientName:        "mcpchain-conformance-client",
		RedirectURL:       "http://127.0.0.1:3000/callback",
		Authorize:         approve,
		ClientCredentials: scenario == "auth/client-credentials-basic" || scenario == "auth/client-credentials-jwt",
	}), nil
}

// approve fetches the authorization URL without following its redirect,
// and returns the query of the redirect: what the browser would bring to
// the redirect URL.
func approve(ctx context.Context, authURL string) (url.Values, error) {
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return nil, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	loc, err := resp.Location()
	if err != nil {
		return nil, fmt.Errorf("the authorization endpoint answered %d without a redirect", resp.StatusCode)
	}
	return loc.Query(), nil
}
