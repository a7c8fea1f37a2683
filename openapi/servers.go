package openapi

import (
	"errors"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"syscall"
	"time"
)

// A document names where its API is served (servers[0].url), and
// Register calls that address with what MCP callers send when
// Options.BaseURL is not set. A hostile document (a vendor's, a
// downloaded one) could name a cloud provider's metadata service, where
// the calls would fetch the machine's credentials for the caller. So a
// base URL that comes from the document may not be a link-local,
// unspecified or multicast address, a cloud metadata address or name;
// and with the default client the same is checked after DNS resolution,
// for each connection. Options.BaseURL, set by the operator, is trusted.
// Loopback and private addresses stay allowed: documents name
// http://localhost:8080 or an internal host all the time.

// metadataNames are host names of cloud metadata services.
var metadataNames = map[string]bool{
	"metadata.google.internal": true, "metadata.goog": true, "metadata": true,
	"instance-data": true, "instance-data.ec2.internal": true,
}

// metadataAddrs are metadata addresses outside the link-local ranges.
var metadataAddrs = []netip.Addr{
	netip.MustParseAddr("100.100.100.200"), // Alibaba Cloud
	netip.MustParseAddr("fd00:ec2::254"),   // AWS, over IPv6
}

// forbiddenAddr reports whether a document's server may not be at a.
func forbiddenAddr(a netip.Addr) bool {
	a = a.Unmap()
	return !a.IsValid() || a.IsUnspecified() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a == metadataAddrs[0] || a == metadataAddrs[1]
}

// forbiddenHost reports whether a document's server may not be host (a
// URL's Hostname: a name, or an address without brackets).
func forbiddenHost(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	if metadataNames[h] {
		return true
	}
	if i := strings.IndexByte(h, '%'); i >= 0 {
		h = h[:i] // a zone: the address is link-local anyway, or meaningless
	}
	if a, err := netip.ParseAddr(h); err == nil {
		return forbiddenAddr(a)
	}
	return false
}

// errForbiddenAddress is the dialer's refusal.
var errForbiddenAddress = errors.New("the document's server resolves to a link-local, multicast or cloud metadata address (set Options.BaseURL to call it)")

// refuseForbidden is the Control of the default client's dialer when the
// base URL came from the document: it runs for every address a
// connection tries, after DNS resolution.
func refuseForbidden(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil || forbiddenAddr(ap.Addr()) {
		return errForbiddenAddress
	}
	return nil
}

// documentClient is the default client when the base URL came from the
// document: net/http's default transport, whose dialer refuses what
// refuseForbidden refuses.
func documentClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second, Control: refuseForbidden}
	tr.DialContext = d.DialContext
	return &http.Client{Transport: tr}
}
