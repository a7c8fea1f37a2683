#!/usr/bin/env bash
# pair.sh: CPU per call of two MCP servers over Streamable HTTP, paired.
# Both run at once on CPU 1; the load generator of ../shared/bench (built
# there by run.sh) runs on CPU 0 against one, then the other, the order
# alternating by pair, c=16 for $DUR each. The server's CPU time comes
# from /proc. Prints each pair's µs per call and the ratio A/B, then the
# median ratio: a harness run's ratio moves with which server the host
# slowed, a pair's much less (BENCHMARKS.md, "Paired against ac3a973").
# Usage: perf/pair.sh NAME_A 'CMD_A (with $PORT)' NAME_B 'CMD_B' [PAIRS]
set -euo pipefail
NA=$1 CA=$2 NB=$3 CB=$4 PAIRS=${5:-10} DUR=${DUR:-3s} LOAD=${LOAD:-$HOME/.cache/mcpchain-bench/bin/load}
start() { PORT=$1 taskset -c 1 sh -c "exec $2" >/dev/null 2>&1 & echo $!; }
PA=$(start 18181 "$(PORT=18181 eval echo "$CA")"); PB=$(start 18182 "$(PORT=18182 eval echo "$CB")")
trap 'kill $PA $PB 2>/dev/null' EXIT
sleep 1
cpu() { awk '{print $14+$15}' /proc/$1/stat; }
tick=$(getconf CLK_TCK)
turn() { # pid port -> µs per call
  local c0 c1 ops
  c0=$(cpu $1)
  ops=$(taskset -c 0 "$LOAD" http -url http://127.0.0.1:$2/mcp -c 16 -d "$DUR" | python3 -c 'import json,sys; print(json.load(sys.stdin)["ops"])')
  c1=$(cpu $1)
  python3 -c "print(($c1-$c0)/$tick*1e6/$ops)"
}
# warm up each once
turn $PA 18181 >/dev/null; turn $PB 18182 >/dev/null
ratios=()
for i in $(seq 1 "$PAIRS"); do
  if (( i % 2 )); then a=$(turn $PA 18181); b=$(turn $PB 18182); first=$NA; else b=$(turn $PB 18182); a=$(turn $PA 18181); first=$NB; fi
  r=$(python3 -c "print(round($a/$b,3))"); ratios+=("$r")
  printf '%2d first=%-10s %s=%.2f µs %s=%.2f µs ratio=%s\n' "$i" "$first" "$NA" "$a" "$NB" "$b" "$r"
done
python3 -c "import statistics,sys; r=[float(x) for x in sys.argv[1:]]; print('median %s/%s = %.3f (min %.3f, max %.3f, n=%d)' % ('$NA','$NB',statistics.median(r),min(r),max(r),len(r)))" "${ratios[@]}"
