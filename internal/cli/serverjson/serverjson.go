// Package serverjson builds the MCP registry's server.json from what a
// running server says of itself (initialize's serverInfo) and what it
// cannot say (its registry name, description, packages and remote),
// following the registry's schema of 2025-12-11
// (https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json),
// which the tests validate every document against.
package serverjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcpchain/mcp"
)

// Schema is the $schema of every document Build writes.
const Schema = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"

// Options are what the server cannot tell about itself.
type Options struct {
	// Name is the registry name, reverse-DNS with one slash
	// ("io.github.owner/server"). Default: the server's name when in that
	// form.
	Name string
	// Description is 1 to 100 characters. Required.
	Description string
	// Repository is the source's URL; Subfolder the server's directory in
	// it.
	Repository, Subfolder string
	// Remote is the public URL of the server's Streamable HTTP endpoint.
	Remote string
	// PackageType is npm, pypi, nuget, oci or mcpb; Package its
	// identifier (a package name, an image reference, an mcpb URL);
	// PackageVersion its version (npm, pypi, nuget; default the server's
	// version); SHA256 the mcpb file's digest.
	PackageType, Package, PackageVersion, SHA256 string
}

// Document is a server.json, its members in the schema's order of
// importance.
type Document struct {
	Schema      string      `json:"$schema"`
	Name        string      `json:"name"`
	Description string      `json:"description"`
	Title       string      `json:"title,omitempty"`
	Version     string      `json:"version"`
	WebsiteURL  string      `json:"websiteUrl,omitempty"`
	Repository  *Repository `json:"repository,omitempty"`
	Icons       []mcp.Icon  `json:"icons,omitempty"`
	Packages    []Package   `json:"packages,omitempty"`
	Remotes     []Remote    `json:"remotes,omitempty"`
}

// Repository is server.json's repository.
type Repository struct {
	URL       string `json:"url"`
	Source    string `json:"source"`
	Subfolder string `json:"subfolder,omitempty"`
}

// Package is one entry of server.json's packages.
type Package struct {
	RegistryType string    `json:"registryType"`
	Identifier   string    `json:"identifier"`
	Version      string    `json:"version,omitempty"`
	FileSHA256   string    `json:"fileSha256,omitempty"`
	Transport    Transport `json:"transport"`
}

// Transport is a package's transport.
type Transport struct {
	Type string `json:"type"`
}

// Remote is one entry of server.json's remotes.
type Remote struct {
	Type string `json:"type"`
	URL  string `json:"url"`
}

var (
	registryName = regexp.MustCompile(`^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`)
	remoteURL    = regexp.MustCompile(`^https?://[^\s]+$`)
	iconSize     = regexp.MustCompile(`^(\d+x\d+|any)$`)
	sha256Hex    = regexp.MustCompile(`^[a-f0-9]{64}$`)
	// versionRange matches what the registry refuses as a version.
	versionRange = regexp.MustCompile(`[\^~<>=*\s|]|(^|\.)[xX](\.|$)`)
	iconTypes    = []string{"image/png", "image/jpeg", "image/jpg", "image/svg+xml", "image/webp"}
)

// Build returns the server.json of a server whose initialize answered
// info, with o. The notes say what of info was left out and why (icons
// the registry does not take); an error says which option is wrong.
func Build(info mcp.Implementation, o Options) (*Document, []string, error) {
	d := &Document{Schema: Schema, Name: o.Name, Description: o.Description, Title: info.Title, Version: info.Version}
	if err := d.checkIdentity(info); err != nil {
		return nil, nil, err
	}
	notes := d.addInfo(info)
	if err := d.addLocations(o); err != nil {
		return nil, nil, err
	}
	if len(d.Packages) == 0 && len(d.Remotes) == 0 {
		notes = append(notes, "no package and no remote: clients will not know how to run or reach the server (--package, --remote)")
	}
	return d, notes, nil
}

// checkIdentity fills in and checks what the registry requires: the
// name (the server's own when --name is not given), a description and
// one specific version.
func (d *Document) checkIdentity(info mcp.Implementation) error {
	if d.Name == "" {
		if !registryName.MatchString(info.Name) {
			return fmt.Errorf("the server's name %q is not a registry name (reverse-DNS with one slash, io.github.owner/server): pass --name", info.Name)
		}
		d.Name = info.Name
	}
	if len(d.Name) < 3 || len(d.Name) > 200 || !registryName.MatchString(d.Name) {
		return fmt.Errorf("--name %q must be reverse-DNS with one slash (io.github.owner/server), 3 to 200 characters", d.Name)
	}
	if n := utf8.RuneCountInString(d.Description); n < 1 || n > 100 {
		return fmt.Errorf("--description must have 1 to 100 characters, not %d", n)
	}
	if d.Version == "" || len(d.Version) > 255 || versionRange.MatchString(d.Version) || d.Version == "latest" {
		return fmt.Errorf("the server's version %q is not one specific version the registry takes", d.Version)
	}
	return nil
}

// addInfo takes the server's title, website and icons, leaving out (with
// a note) what the registry would refuse.
func (d *Document) addInfo(info mcp.Implementation) (notes []string) {
	if n := utf8.RuneCountInString(d.Title); n > 100 {
		notes = append(notes, fmt.Sprintf("the server's title has %d characters, more than the registry's 100: left out", n))
		d.Title = ""
	}
	if info.WebsiteURL != "" {
		if absoluteURL(info.WebsiteURL) {
			d.WebsiteURL = info.WebsiteURL
		} else {
			notes = append(notes, "the server's websiteUrl is not an absolute http(s) URL: left out")
		}
	}
	for i, ic := range info.Icons {
		if why := iconProblem(ic); why != "" {
			notes = append(notes, fmt.Sprintf("icon %d left out: %s", i+1, why))
			continue
		}
		d.Icons = append(d.Icons, ic)
	}
	return notes
}

// addLocations adds the repository, the remote and the package the
// options name.
func (d *Document) addLocations(o Options) error {
	if o.Repository != "" {
		if !absoluteURL(o.Repository) {
			return fmt.Errorf("--repository %q must be an absolute http(s) URL", o.Repository)
		}
		d.Repository = &Repository{URL: o.Repository, Source: source(o.Repository), Subfolder: strings.Trim(o.Subfolder, "/")}
	} else if o.Subfolder != "" {
		return fmt.Errorf("--subfolder needs --repository")
	}
	if o.Remote != "" {
		if !remoteURL.MatchString(o.Remote) || !absoluteURL(o.Remote) {
			return fmt.Errorf("--remote %q must be an absolute http(s) URL", o.Remote)
		}
		d.Remotes = []Remote{{Type: "streamable-http", URL: o.Remote}}
	}
	if o.PackageType != "" || o.Package != "" {
		p, err := buildPackage(o, d.Version)
		if err != nil {
			return err
		}
		d.Packages = []Package{p}
	} else if o.PackageVersion != "" || o.SHA256 != "" {
		return fmt.Errorf("--package-version and --sha256 need --package")
	}
	return nil
}

func buildPackage(o Options, version string) (Package, error) {
	p := Package{RegistryType: o.PackageType, Identifier: o.Package, Transport: Transport{Type: "stdio"}}
	if p.Identifier == "" {
		return p, fmt.Errorf("--package-type needs --package (the package's identifier)")
	}
	switch p.RegistryType {
	case "npm", "pypi", "nuget":
		p.Version = o.PackageVersion
		if p.Version == "" {
			p.Version = version
		}
		if p.Version == "latest" || versionRange.MatchString(p.Version) {
			return p, fmt.Errorf("--package-version %q must be one specific version", p.Version)
		}
	case "oci":
		if o.PackageVersion != "" {
			return p, fmt.Errorf("an oci package's version is its image tag or digest in --package, not --package-version")
		}
	case "mcpb":
		if !absoluteURL(p.Identifier) {
			return p, fmt.Errorf("an mcpb --package must be the file's https URL")
		}
		if !sha256Hex.MatchString(o.SHA256) {
			return p, fmt.Errorf("an mcpb package needs --sha256, the file's SHA-256 in 64 lowercase hex digits")
		}
		p.FileSHA256, p.Version = o.SHA256, o.PackageVersion
	case "":
		return p, fmt.Errorf("--package needs --package-type (npm, pypi, nuget, oci or mcpb)")
	default:
		return p, fmt.Errorf("--package-type %q is not one of npm, pypi, nuget, oci, mcpb", p.RegistryType)
	}
	if o.SHA256 != "" && p.RegistryType != "mcpb" {
		if !sha256Hex.MatchString(o.SHA256) {
			return p, fmt.Errorf("--sha256 must be 64 lowercase hex digits")
		}
		p.FileSHA256 = o.SHA256
	}
	return p, nil
}

// iconProblem says why the registry would refuse ic, or "".
func iconProblem(ic mcp.Icon) string {
	if !strings.HasPrefix(ic.Src, "https://") || !absoluteURL(ic.Src) {
		return "the registry takes https: icons only, not data: URIs or other URLs"
	}
	if len(ic.Src) > 255 {
		return "its URL is longer than the registry's 255 characters"
	}
	if ic.MIMEType != "" && !slices.Contains(iconTypes, ic.MIMEType) {
		return fmt.Sprintf("the registry does not take the type %q", ic.MIMEType)
	}
	for _, s := range ic.Sizes {
		if !iconSize.MatchString(s) {
			return fmt.Sprintf("size %q is not WxH or any", s)
		}
	}
	if ic.Theme != "" && ic.Theme != "light" && ic.Theme != "dark" {
		return fmt.Sprintf("theme %q is not light or dark", ic.Theme)
	}
	return ""
}

func absoluteURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" && !strings.ContainsAny(s, " \t\r\n")
}

// source names a repository's forge as the registry does.
func source(raw string) string {
	u, _ := url.Parse(raw)
	switch h := strings.ToLower(u.Hostname()); h {
	case "github.com", "www.github.com":
		return "github"
	case "gitlab.com", "www.gitlab.com":
		return "gitlab"
	default:
		return h
	}
}

// JSON encodes d as the file is written: indented, a final newline, and
// no HTML escaping (URLs keep their & and <).
func (d *Document) JSON() ([]byte, error) {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	e.SetIndent("", "  ")
	if err := e.Encode(d); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
