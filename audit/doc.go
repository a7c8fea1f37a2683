// Package audit is an audit trail of an MCP server: one structured event
// per call of a tool, read of a resource and get of a prompt, saying who
// called (the identity key, or anonymous), what, with which arguments
// (under a redaction policy), with what outcome, how long it took and in
// which trace. Events go to slog and to the [Sink]s of [Options]; package
// middleware/telemetry's AuditLog sends them as OpenTelemetry log records,
// so a server that does not import telemetry links no OpenTelemetry.
//
// The redaction policy comes from the typed input of a tool (the In of
// mcp.AddTool), whose struct tags the trail reads:
//
//	type deployIn struct {
//		Service string `json:"service"`
//		Token   string `json:"token"`                   // redacted: its name looks like a secret's
//		Notes   string `json:"notes" audit:"redact"`    // redacted: tagged
//		Blob    []byte `json:"blob" audit:"omit"`       // left out
//		Keyword string `json:"keyword" audit:"keep"`    // shown, whatever its name
//	}
//
// Without a tag a field is redacted when [SecretName] says its name is a
// secret's; the same rule covers map keys, the members a type does not
// name, prompt arguments, raw tools' arguments and the query parameters
// of URLs; any string that looks like a credential (a bearer token, a JWT,
// a well-known API key prefix, a PEM private key) is redacted wherever it
// is, and long strings are cut. The arguments of a call that was never
// validated against a tool's input (an unknown tool, invalid arguments)
// are [Withheld]. Results, error messages, headers and tokens are never
// recorded.
//
// docs/audit.md has the schema of an event.
package audit
