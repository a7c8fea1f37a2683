module github.com/mcpchain/mcp

go 1.26

require (
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/justinas/alice v1.2.0 // indirect
	github.com/lmittmann/tint v1.2.1 // indirect
	github.com/rs/cors v1.11.1 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	go.uber.org/goleak v1.3.0 // indirect
)
