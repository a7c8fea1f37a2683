package mcp

import (
	"encoding/base64"
	"errors"
	"fmt"
	"mime"
	"net/url"
	"strconv"
	"strings"

	"github.com/mcpchain/mcp/internal/mimetype"
)

// Icon is an image a client may show next to the server, a tool, a
// resource, a template or a prompt (MCP revision 2025-11-25). Src is an
// https: URL or a data: URI holding the image in base64; package media's
// IconFromBytes and IconFromFS build the latter. Every icon is checked
// when it is registered (NewServer, AddTool, AddResource, …): only https:
// and data: URIs, only image MIME types (PNG, JPEG, SVG, WebP, GIF, AVIF,
// ICO), a data: URI of at most 64 KiB, sizes as "WxH" or "any", theme
// "light" or "dark". A bad icon fails registration like any other invalid
// definition.
type Icon struct {
	// Src is the image: an https: URL or a base64 data: URI.
	Src string `json:"src"`
	// MIMEType is the image's type, such as "image/png"; optional.
	MIMEType string `json:"mimeType,omitempty"`
	// Sizes lists the sizes the image suits, each "WxH" ("48x48") or
	// "any" (for SVG); none means any size.
	Sizes []string `json:"sizes,omitempty"`
	// Theme is "light" (made for a light background), "dark", or empty
	// (either).
	Theme string `json:"theme,omitempty"`
}

// checkIcons checks icons as registration does; the error names the
// field (owner, such as "Tool.", then "Icons[1].Src") and the rule it
// breaks.
func checkIcons(owner string, icons []Icon) error {
	for i, ic := range icons {
		if field, err := checkIcon(ic); err != nil {
			return fmt.Errorf("%sIcons[%d].%s: %w", owner, i, field, err)
		}
	}
	return nil
}

// checkIcon checks one icon; field names the member that breaks a rule.
func checkIcon(ic Icon) (field string, err error) {
	if ic.MIMEType != "" {
		mt, _, err := mime.ParseMediaType(ic.MIMEType)
		if err != nil || !mimetype.IconType(mt) {
			return "MIMEType", fmt.Errorf("%q is not an image type an icon may have (%s)", ic.MIMEType, mimetype.IconTypeList)
		}
	}
	scheme, rest, _ := strings.Cut(ic.Src, ":")
	switch strings.ToLower(scheme) {
	case "https":
		u, err := url.Parse(ic.Src)
		if err != nil || u.Host == "" || u.User != nil {
			return "Src", fmt.Errorf("%q is not an absolute https: URL with a host (and no user info)", iconClip(ic.Src))
		}
	case "data":
		if err := checkDataURI(rest); err != nil {
			return "Src", fmt.Errorf("data: URI: %v", err)
		}
	default:
		return "Src", fmt.Errorf("only https: and data: URIs are allowed, not %q", iconClip(ic.Src))
	}
	for _, s := range ic.Sizes {
		if !validIconSize(s) {
			return "Sizes", fmt.Errorf("%q is neither \"WxH\" (such as \"48x48\") nor \"any\"", iconClip(s))
		}
	}
	if ic.Theme != "" && ic.Theme != "light" && ic.Theme != "dark" {
		return "Theme", fmt.Errorf("%q is neither \"light\" nor \"dark\"", iconClip(ic.Theme))
	}
	return "", nil
}

// checkWebsiteURL checks Options.WebsiteURL: empty, or an absolute http
// or https URL with a host.
func checkWebsiteURL(s string) error {
	if s == "" {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("%q is not an absolute http or https URL", iconClip(s))
	}
	return nil
}

// checkDataURI checks the part of a data: URI after "data:": an image
// MIME type, base64, valid data, at most mimetype.MaxIconDataURI in all.
func checkDataURI(rest string) error {
	if len(rest)+len("data:") > mimetype.MaxIconDataURI {
		return fmt.Errorf("%d bytes, over the limit of %d (64 KiB): use a smaller image or an https: URL", len(rest)+len("data:"), mimetype.MaxIconDataURI)
	}
	header, payload, ok := strings.Cut(rest, ",")
	if !ok {
		return errors.New("no comma before the data")
	}
	mt, params, ok := strings.Cut(header, ";")
	if !mimetype.IconType(strings.ToLower(mt)) {
		return fmt.Errorf("MIME type %q is not an image type an icon may have (%s)", iconClip(mt), mimetype.IconTypeList)
	}
	if !ok || !strings.HasSuffix(params, "base64") {
		return errors.New("the data must be base64 (\";base64,\")")
	}
	if _, err := base64.StdEncoding.DecodeString(payload); err != nil || payload == "" {
		return errors.New("the data is not valid base64")
	}
	return nil
}

func validIconSize(s string) bool {
	if s == "any" {
		return true
	}
	w, h, ok := strings.Cut(s, "x")
	return ok && iconDimension(w) && iconDimension(h)
}

func iconDimension(s string) bool {
	n, err := strconv.Atoi(s)
	return err == nil && n > 0 && s[0] != '+'
}

// iconClip shortens a value quoted in an error (a data: URI may be long).
func iconClip(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}
