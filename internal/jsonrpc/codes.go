package jsonrpc

// The error codes of JSON-RPC 2.0 and those MCP defines, owned here so
// that the envelope, the engine and the client share them; package mcp
// re-exports as Code* those a handler returns or a client acts on.
const (
	CodeParseError             = -32700 // the message is not JSON
	CodeInvalidRequest         = -32600 // the JSON is not a valid JSON-RPC request
	CodeMethodNotFound         = -32601 // no such method
	CodeInvalidParams          = -32602 // bad params, unknown tool, prompt or resource
	CodeInternalError          = -32603 // the server failed
	CodeServerError            = -32000 // transport-level failure (bad header, bad session)
	CodeSessionNotFound        = -32001 // the Mcp-Session-Id is unknown or ended
	CodeURLElicitationRequired = -32042 // reserved by the 2025-11-25 revision

	// Codes of revision 2026-07-28 (its reserved range -32020 to -32099).
	CodeHeaderMismatch             = -32020 // a request header is missing or differs from the body
	CodeMissingClientCapability    = -32021 // the request needs a client capability it did not declare
	CodeUnsupportedProtocolVersion = -32022 // the protocol version is not one the server speaks
)
