module github.com/mcpchain/mcp/cmd/mcpchain

go 1.26.0

toolchain go1.26.11

replace github.com/mcpchain/mcp/openapi => ../../openapi

replace github.com/mcpchain/mcp => ../..

replace github.com/mcpchain/mcp/internal/cli => ../../internal/cli

require github.com/mcpchain/mcp v0.0.0-00010101000000-000000000000

require github.com/mcpchain/mcp/internal/cli v0.0.0-00010101000000-000000000000

require github.com/mcpchain/mcp/openapi v0.0.0-00010101000000-000000000000

require (
	github.com/coreos/go-oidc/v3 v3.21.0
	github.com/spf13/cobra v1.10.2
	github.com/spf13/pflag v1.0.9
	github.com/stretchr/testify v1.12.1
	golang.org/x/oauth2 v0.37.0
	golang.org/x/term v0.46.0
)

require (
	github.com/fsnotify/fsnotify v1.10.1 // indirect
	github.com/getkin/kin-openapi v0.153.0 // indirect
	github.com/go-jose/go-jose/v4 v4.1.8 // indirect
	github.com/go-openapi/jsonpointer v1.0.0 // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/gorilla/securecookie v1.1.2 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/justinas/alice v1.2.0 // indirect
	github.com/lmittmann/tint v1.2.1 // indirect
	github.com/rs/cors v1.11.1 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	go.starlark.net v0.0.0-20260908191801-89a6a09411d5 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	go.yaml.in/yaml/v4 v4.0.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
	golang.org/x/text v0.42.0 // indirect
	golang.org/x/time v0.16.0 // indirect
)
