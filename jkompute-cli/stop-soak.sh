#!/usr/bin/env bash
# Stops `jkompute bench` and a long `jkompute run apps/gpu-pipeline.yaml` with SIGINT and SIGTERM, N times each
# (default 10), and checks every stop: exit 130 / 143, no hs_err_pid*.log, no crash text.
#   jkompute-cli/stop-soak.sh [N]
# The delay before the signal varies (3-20 s), so stops land in start-up, in the suites and in the graph's ticks.
set -uo pipefail
set -m   # job control: background jobs keep SIGINT (a non-interactive shell would start them with it ignored)
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
n=${1:-10}
"$root/jkompute" build >/dev/null || exit 1
work=$(mktemp -d)
fail=0
for i in $(seq 1 "$n"); do
  for what in bench run; do
    for sig in INT TERM; do
      if [ "$what" = bench ]; then args=(bench); else
        # a million frames: long enough (minutes on lavapipe) that every delay lands inside the run
        args=(run "$root/apps/gpu-pipeline.yaml" --param source/count/count=1000000
              --param "verify/steps/codelet_params={expected_count: 1000000}"); fi
      delay=$(( 3 + (i * 7 + ${#what} + ${#sig}) % 18 ))
      (cd "$work" && exec "$root/jkompute" "${args[@]}") >"$work/log" 2>&1 &
      pid=$!
      sleep "$delay"
      kill -"$sig" "$pid" 2>/dev/null
      wait "$pid"; rc=$?
      want=$([ "$sig" = INT ] && echo 130 || echo 143)
      crash=$(ls "$work"/hs_err* 2>/dev/null; grep -l -E 'SIGSEGV|A fatal error|Exception in thread' "$work/log")
      if [ "$rc" != "$want" ] || [ -n "$crash" ]; then
        echo "FAIL $i $what SIG$sig after ${delay}s: exit $rc (want $want) $crash"; tail -20 "$work/log"; fail=1
        rm -f "$work"/hs_err*
      else
        echo "ok   $i $what SIG$sig after ${delay}s: exit $rc"
      fi
    done
  done
done
rm -rf "$work"
exit $fail
