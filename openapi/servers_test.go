package openapi

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
)

// TestDocumentServerCannotBeMetadata: without
// Options.BaseURL the calls go to the document's first server; a
// hostile document naming a cloud metadata service (or another
// link-local, unspecified or multicast address) is refused at Register,
// naming Options.BaseURL, which, set by the operator, is trusted.
// Loopback and private servers stay allowed.
func TestDocumentServerCannotBeMetadata(t *testing.T) {
	t.Parallel()
	spec := func(server string) []byte {
		return []byte(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"servers":[{"url":"` + server + `"}],
"paths":{"/x":{"get":{"operationId":"x","responses":{"200":{"description":"ok"}}}}}}`)
	}
	for _, tc := range []struct {
		server  string
		refused bool
	}{
		{"http://169.254.169.254/latest/meta-data", true},
		{"http://169.254.169.254.", true},
		{"http://[::ffff:169.254.169.254]/", true},
		{"http://[fe80::1]/", true},
		{"http://[fd00:ec2::254]/latest", true},
		{"http://100.100.100.200/latest", true},
		{"http://metadata.google.internal/computeMetadata/v1", true},
		{"http://METADATA.GOOG./", true},
		{"http://metadata/", true},
		{"http://0.0.0.0:8080/", true},
		{"http://[::]:8080/", true},
		{"http://224.0.0.1/", true},
		{"http://{host}/", true}, // a variable whose default is the metadata address
		{"http://localhost:8080/api", false},
		{"http://127.0.0.1:8080/", false},
		{"http://10.0.0.5/api", false},
		{"https://api.example.com/v1", false},
	} {
		t.Run(tc.server, func(t *testing.T) {
			t.Parallel()
			doc := spec(tc.server)
			if tc.server == "http://{host}/" {
				doc = []byte(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"servers":[{"url":"http://{host}/","variables":{"host":{"default":"169.254.169.254"}}}],
"paths":{"/x":{"get":{"operationId":"x","responses":{"200":{"description":"ok"}}}}}}`)
			}
			srv := mcp.NewServer(mcp.Options{Name: "t", Version: "1.0.0"})
			err := Register(srv, doc, Options{})
			if !tc.refused {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), "Options.BaseURL")
			assert.Empty(t, srv.ListTools(t.Context(), nil), "nothing registered")
			require.NoError(t, Register(mcp.NewServer(mcp.Options{Name: "t", Version: "1.0.0"}), doc,
				Options{BaseURL: "http://169.254.169.254/"}), "the operator's BaseURL is trusted")
		})
	}
}

// TestDocumentClientRefusesMetadataAfterResolution: with the base URL
// from the document and no Options.Client, the default client checks the
// address it connects to, after DNS resolution (a name of the document
// may resolve to the metadata service).
func TestDocumentClientRefusesMetadataAfterResolution(t *testing.T) {
	t.Parallel()
	for addr, refused := range map[string]bool{
		"169.254.169.254:80": true, "[fd00:ec2::254]:80": true, "[fe80::1]:80": true, "0.0.0.0:80": true,
		"127.0.0.1:80": false, "10.1.2.3:443": false, "[2001:db8::1]:443": false,
	} {
		err := refuseForbidden("tcp", addr, nil)
		assert.Equal(t, refused, err != nil, addr)
	}
	_, err := documentClient().Get("http://169.254.169.254/latest/meta-data/")
	require.Error(t, err)
	assert.True(t, errors.Is(err, errForbiddenAddress), "%v", err)
}
