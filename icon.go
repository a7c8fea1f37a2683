package mcp

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
)

// Icon is an image a client may show next to the server, a tool, a
// resource, a template or a prompt (MCP revision 2025-11-25). Src is an
// https: URL or a data: URI holding the image in base64; [IconFromBytes]
// and [IconFromFS] build the latter. Every icon is checked when it is
// registered (NewServer, AddTool, AddResource, …): only https: and data:
// URIs, only image MIME types (PNG, JPEG, SVG, WebP, GIF, AVIF, ICO), a
// data: URI of at most 64 KiB, sizes as "WxH" or "any", theme "light" or
// "dark". A bad icon fails registration like any other invalid definition.
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

// maxIconDataURI bounds the length of an icon's data: URI. Icons travel
// in every list result (and initialize): a large image there would cost
// every client on every listing.
const maxIconDataURI = 64 << 10

// iconMIMETypes are the image types an icon may have: those clients must
// or should render (PNG, JPEG, SVG, WebP) and the other common ones.
var iconMIMETypes = map[string]bool{
	"image/png": true, "image/jpeg": true, "image/jpg": true, "image/svg+xml": true, "image/webp": true,
	"image/gif": true, "image/avif": true, "image/x-icon": true, "image/vnd.microsoft.icon": true,
}

// IconFromBytes returns an icon whose Src is a data: URI holding data in
// base64. mimeType names the image's type; when empty it is detected from
// the bytes (PNG, JPEG, GIF, WebP, ICO, and SVG that starts with <svg or
// an XML declaration). It fails when the type is not an image type an
// icon may have, or the URI would exceed 64 KiB (about 48 KiB of image).
func IconFromBytes(data []byte, mimeType string) (Icon, error) {
	if len(data) == 0 {
		return Icon{}, errors.New("mcp: icon: no image data")
	}
	if mimeType == "" {
		mimeType = sniffIcon(data)
	}
	mt, _, err := mime.ParseMediaType(mimeType)
	if err != nil || !iconMIMETypes[mt] {
		return Icon{}, fmt.Errorf("mcp: icon: MIME type %q is not an image type an icon may have (%s)", mimeType, iconTypeList)
	}
	prefix := "data:" + mt + ";base64,"
	if n := len(prefix) + base64.StdEncoding.EncodedLen(len(data)); n > maxIconDataURI {
		return Icon{}, fmt.Errorf("mcp: icon: the data: URI would be %d bytes, over the limit of %d (64 KiB): use a smaller image or an https: URL", n, maxIconDataURI)
	}
	return Icon{Src: prefix + base64.StdEncoding.EncodeToString(data), MIMEType: mt}, nil
}

// IconFromFS is [IconFromBytes] for the file name of fsys (an embed.FS
// compiled into the program, say). The MIME type comes from the file's
// extension (".png", ".svg", ".webp", …), else from its bytes.
func IconFromFS(fsys fs.FS, name string) (Icon, error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return Icon{}, fmt.Errorf("mcp: icon: %w", err)
	}
	if len(data) > maxIconDataURI {
		return Icon{}, fmt.Errorf("mcp: icon: %s is %d bytes, over the limit of a data: URI (64 KiB): use a smaller image or an https: URL", name, len(data))
	}
	ic, err := IconFromBytes(data, typeByExtension(path.Ext(name), false))
	if err != nil {
		return Icon{}, fmt.Errorf("%w (file %s)", err, name)
	}
	return ic, nil
}

// sniffIcon is http.DetectContentType, which also knows SVG when the
// document starts with its root element or an XML declaration before it.
func sniffIcon(data []byte) string {
	t := http.DetectContentType(data)
	if strings.HasPrefix(t, "text/") {
		head := bytes.TrimSpace(data[:min(len(data), 512)])
		if bytes.HasPrefix(head, []byte("<svg")) || (bytes.HasPrefix(head, []byte("<?xml")) && bytes.Contains(head, []byte("<svg"))) {
			return "image/svg+xml"
		}
	}
	return t
}

var iconTypeList = "image/png, image/jpeg, image/svg+xml, image/webp, image/gif, image/avif, image/x-icon"

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
		if err != nil || !iconMIMETypes[mt] {
			return "MIMEType", fmt.Errorf("%q is not an image type an icon may have (%s)", ic.MIMEType, iconTypeList)
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
// MIME type, base64, valid data, at most maxIconDataURI in all.
func checkDataURI(rest string) error {
	if len(rest)+len("data:") > maxIconDataURI {
		return fmt.Errorf("%d bytes, over the limit of %d (64 KiB): use a smaller image or an https: URL", len(rest)+len("data:"), maxIconDataURI)
	}
	header, payload, ok := strings.Cut(rest, ",")
	if !ok {
		return errors.New("no comma before the data")
	}
	mt, params, ok := strings.Cut(header, ";")
	if !iconMIMETypes[strings.ToLower(mt)] {
		return fmt.Errorf("MIME type %q is not an image type an icon may have (%s)", iconClip(mt), iconTypeList)
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
