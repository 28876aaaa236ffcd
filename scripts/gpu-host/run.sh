#!/usr/bin/env bash
# Runs on the GPU host from the repository root, with .bundle (./jkompute bundle) and .gputest
# (scripts/gpu-host/pack-tests.sh) carried; everything it keeps goes under $OUT.
#   run.sh suite    devices, every example, then the WHOLE JUnit suite of every module in ONE JVM (Python codelets in
#                   the host's python3, with its numpy, CuPy and PyTorch)
#   run.sh stop [N] N times each (3): SIGINT and SIGTERM during `jkompute bench` and during `jkompute run
#                   apps/gpu-pipeline.yaml` with 100,000 frames; each must exit 130/143 with no hs_err file
#   run.sh bench    the cuda and graph suites of `jkompute bench` (CuPy and PyTorch in the same run, from the host's
#                   python3) and NetBenchmark (raw Aeron UDP and IPC loops against jkompute's links), under 9 minutes
#   run.sh soaks [MGR] [CUDA] [ARRAY] [LINK]   the Manager soak (3,000 cycles), the GXF CUDA extension soak (5,000
#                   cycles), 1,000,000 Python ticks with CUDA device tensors, the GpuArray math soak (5,000 cycles) and
#                   the linked-graph soak (3,000 cycles), each in its own JVM
#   run.sh reduce-sweep   ReductionSweep (40 configurations of the reduction knobs, sum all and sum(-1) at 1 GiB),
#                   then the cuda suite of `jkompute bench` with the flags of its "BEST both" line (cuda-bench-best.md)
#   run.sh soak [CYCLES] [LISTS]   Manager create/tensor/eval/close cycles and listDevices() calls in one JVM
#   run.sh pipeline the GPU pipeline app and the CUDA virtual-thread burst in fresh JVMs
#   run.sh pipeline-bench [FRAMES]   the graph benchmark suite (ping; pipeline lock-step and 2 frames in flight
#                   against the transfer-bound limit) as graph-bench.{md,json,txt}, then PipelineLoop for FRAMES
#                   (1,000,000) frames with 2 and with 4 frames in flight (pipeline-loop.txt, pipeline-loop-4.txt):
#                   frames/s, heap after GC, committed heap and VmRSS at the start, at 10% and at the end (fixed
#                   512 MiB heap, so VmRSS shows native memory); under 10 minutes in all
#   run.sh gxf [DIR]  GXF's own Python codelet tests, CuPy and CUDA apps included (scripts/gxf-conformance.sh --device)
#                   from a GXF tree in DIR (.gxf): gxf-conformance.txt, gxf-logs.tar.gz
set -uo pipefail
source .bundle/env.sh
J="java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow --add-exports java.base/jdk.internal.misc=ALL-UNNAMED --add-opens java.base/sun.nio.ch=ALL-UNNAMED"
# NVRTC and cuBLAS where the host keeps them outside the loader path (e.g. inside pip's nvidia packages)
for v in nvrtc cublas; do
  f=$(ls /usr/local/cuda/lib64/lib$v.so.1[0-9]* 2>/dev/null | head -1)
  [ -n "$f" ] || f=$(find / -xdev -name "lib$v.so.1[0-9]*" 2>/dev/null | grep -v builtins | head -1)
  [ -n "$f" ] && J="$J -Djkompute.cuda.$v=$f"
done
T=$PWD/.gputest
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
case "${1:-suite}" in
soak-start|soak-watch) ;;
suite)
  { nvidia-smi --query-gpu=name,driver_version --format=csv; $J -cp "$CP" io.jkompute.cli.Main devices 2>&1 | head -12
    for e in logistic-regression array-multiplication constants async-queues cuda-roundtrip; do
      echo "== example $e"; $J -cp "$CP" io.jkompute.cli.Main example $e 2>&1 | grep -v INFO
    done
  } > "$OUT/examples.txt" 2>&1
  echo "examples done"
  # SUITE_MODULES="cuda python" limits the run to those modules' tests (the examples still run)
  mods=${SUITE_MODULES:-.*}
  scan=$(ls "$T"/tests/*.jar | grep -E "jkompute-(${mods// /|})-tests.jar" | tr '\n' ':'); scan=${scan%:}
  # no nvcc compile check here: NVRTC compiles the same generated kernels for the GPU tests, and nvcc's check of
  # every swept variant takes three minutes on this host (CI and development machines run it)
  timeout -s KILL "${SUITE_TIMEOUT:-400}" $J -Djkompute.test.nvcc=none -cp "$CP:$T/junit.jar:$scan" org.junit.platform.console.ConsoleLauncher execute \
      --scan-class-path "$scan" --details=tree --disable-banner --disable-ansi-colors > "$OUT/tests.txt" 2>&1
  echo "junit exit: $?" | tee -a "$OUT/tests.txt"
  grep -E 'tests (successful|failed|aborted|skipped)|containers failed' "$OUT/tests.txt"
  grep -E '✘' "$OUT/tests.txt" | head -20 ;;
stop)
  n=${2:-3}; : > "$OUT/stop.txt"
  for i in $(seq 1 "$n"); do
    for sig in INT TERM; do
      for what in bench run; do
        d=$(mktemp -d)
        if [ $what = bench ]; then args=(bench); wait_s=8
        else args=(run "$PWD/apps/gpu-pipeline.yaml" --param source/count/count=100000 \
                   --param "verify/steps/codelet_params={expected_count: 100000}"); wait_s=3; fi
        (cd "$d" && exec env --default-signal=INT,TERM $J -cp "$CP" io.jkompute.cli.Main "${args[@]}" > out.txt 2>&1) &
        pid=$!; sleep $wait_s
        # the JVM is the subshell's exec'd process
        kill -s $sig $pid; rc=0; wait $pid || rc=$?
        want=$([ $sig = INT ] && echo 130 || echo 143)
        crash=$(ls "$d"/hs_err_pid*.log 2>/dev/null | wc -l); fatal=$(grep -c -E 'SIGSEGV|fatal error|A fatal' "$d/out.txt")
        verdict=$([ $rc = $want ] && [ $crash = 0 ] && [ $fatal = 0 ] && echo ok || echo FAILED)
        echo "$verdict: SIG$sig after ${wait_s}s during $what: exit $rc (want $want), hs_err files $crash, crash lines $fatal" | tee -a "$OUT/stop.txt"
        [ $verdict = ok ] || tail -20 "$d/out.txt" >> "$OUT/stop.txt"
        rm -rf "$d"
      done
    done
  done
  echo "stop: $(grep -c '^ok' "$OUT/stop.txt") ok, $(grep -c '^FAILED' "$OUT/stop.txt") failed" | tee -a "$OUT/stop.txt" ;;
reduce-sweep)
  export JKOMPUTE_PYTHON=${JKOMPUTE_PYTHON:-python3}
  timeout -s KILL "${SWEEP_TIMEOUT:-200}" $J -cp "$CP" io.jkompute.bench.cuda.ReductionSweep ${SWEEP_ARGS:-} > "$OUT/reduce-sweep.txt" 2>&1
  echo "reduce sweep exit: $?" | tee -a "$OUT/reduce-sweep.txt"
  grep -E '^(BEST|FAIL|SKIP|ReductionSweep)|WRONG|Exception' "$OUT/reduce-sweep.txt" | head -20
  best=$(awk '/^BEST both/ { for (i = 3; i <= NF; i++) if ($i ~ /^-D/) printf "%s ", $i }' "$OUT/reduce-sweep.txt")
  if [ -n "$best" ]; then
    echo "cuda suite with: $best"
    timeout -s KILL "${BENCH_TIMEOUT:-200}" $J $best -cp "$CP" io.jkompute.cli.Main bench --suite cuda \
        --markdown "$OUT/cuda-bench-best.md" > "$OUT/cuda-bench-best.txt" 2>&1
    echo "cuda bench exit: $?" | tee -a "$OUT/cuda-bench-best.txt"
    grep -hE 'sum|×' "$OUT/cuda-bench-best.md" | head -30
  fi ;;
bench)
  export JKOMPUTE_PYTHON=${JKOMPUTE_PYTHON:-python3}
  for suite in cuda graph; do
    timeout -s KILL "${BENCH_TIMEOUT:-200}" $J -cp "$CP" io.jkompute.cli.Main bench --suite $suite \
        --markdown "$OUT/$suite-bench.md" > "$OUT/$suite-bench.txt" 2>&1
    echo "$suite bench exit: $?" | tee -a "$OUT/$suite-bench.txt"
  done
  [ "${NETBENCH_TIMEOUT:-170}" = 0 ] || timeout -s KILL "${NETBENCH_TIMEOUT:-170}" $J -cp "$CP" io.jkompute.net.bench.NetBenchmark ${NETBENCH_ARGS:-} \
      > "$OUT/netbench.txt" 2>&1
  echo "netbench exit: $?" | tee -a "$OUT/netbench.txt"
  grep -hE '×|ratio|goal' "$OUT"/*-bench.md | head -40 ;;
soaks)
  { timeout -s KILL 150 $J -Xlog:disable -cp "$CP" io.jkompute.examples.ManagerSoak "${2:-3000}" 300; echo "manager soak exit: $?"
    timeout -s KILL 150 $J -Xlog:disable -cp "$CP" io.jkompute.examples.CudaGraphSoak "${3:-5000}"; echo "cuda graph soak exit: $?"
    timeout -s KILL 200 $J -Xlog:disable -Xmx2g -cp "$CP" io.jkompute.bench.cuda.PythonCudaSoak 1000000 10; echo "python cuda soak exit: $?"
    timeout -s KILL 150 $J -Xlog:disable -Xmx2g -cp "$CP" io.jkompute.bench.cuda.ArrayMathSoak "${4:-5000}"; echo "array math soak exit: $?"
    timeout -s KILL 300 $J -Xlog:disable -cp "$CP" io.jkompute.net.bench.LinkSoak "${5:-3000}"; echo "link soak exit: $?"
  } > "$OUT/soaks.txt" 2>&1
  grep -vE 'INFO|^\s' "$OUT/soaks.txt" | tail -40 ;;
soak)
  $J -Xlog:disable -cp "$CP" io.jkompute.examples.ManagerSoak "${2:-10000}" "${3:-1000}" > "$OUT/soak.txt" 2>&1
  echo "soak exit: $?" | tee -a "$OUT/soak.txt"; grep -vE 'INFO|^\s' "$OUT/soak.txt" | tail -25 ;;
pipeline)
  { timeout -s KILL 120 $J -cp "$CP" io.jkompute.cli.Main run apps/gpu-pipeline.yaml --param source/count/count=5000 \
      --param "verify/steps/codelet_params={expected_count: 5000}" --stats /tmp/pipeline-stats.json; echo "exit $?"
    cat /tmp/pipeline-stats.json; } > "$OUT/pipeline.txt" 2>&1
  { for i in $(seq 1 10); do timeout -s KILL 30 $J -cp "$CP:$T/junit.jar:$T/tests/jkompute-cuda-tests.jar" \
      io.jkompute.cuda.VirtualThreadBurstProbe 2>&1 | tail -1; done; } > "$OUT/burst.txt" 2>&1
  tail -3 "$OUT/pipeline.txt"; sort "$OUT/burst.txt" | uniq -c ;;
pipeline-bench)
  frames=${2:-1000000}
  timeout -s KILL 200 $J -cp "$CP" io.jkompute.cli.Main bench --suite graph --json "$OUT/graph-bench.json" \
      --markdown "$OUT/graph-bench.md" > "$OUT/graph-bench.txt" 2>&1
  echo "graph bench exit: $?" | tee -a "$OUT/graph-bench.txt"
  grep -E 'pipeline|limit' "$OUT/graph-bench.txt" | grep -v '^\[' | head -12
  for n in 2 4; do
    f=pipeline-loop.txt; [ $n = 2 ] || f=pipeline-loop-$n.txt
    # a fixed, pre-touched heap: otherwise the resident set grows with the young generation the collector widens
    timeout -s KILL 170 $J -Xlog:disable -Xms512m -Xmx512m -XX:+AlwaysPreTouch -cp "$CP" io.jkompute.bench.PipelineLoop \
        "$frames" $n > "$OUT/$f" 2>&1
    echo "exit: $?" >> "$OUT/$f"; grep -vE 'INFO' "$OUT/$f" | tail -7
  done ;;
gxf)
  # GXF's own Python codelet tests with the host's CuPy and CUDA (scripts/gxf-conformance.sh --device), from a GXF
  # tree carried in ${2:-.gxf}; one line per app in gxf-conformance.txt, each app's output in gxf-logs.tar.gz
  rm -rf /tmp/gxf-logs
  JKOMPUTE_CMD="$J -cp $CP io.jkompute.cli.Main" timeout -s KILL "${GXF_TIMEOUT:-330}" \
      bash scripts/gxf-conformance.sh --device --timeout 120 --logs /tmp/gxf-logs "${2:-.gxf}" > "$OUT/gxf-conformance.txt" 2>&1
  echo "gxf-conformance exit: $?" >> "$OUT/gxf-conformance.txt"
  tar -czf "$OUT/gxf-logs.tar.gz" -C /tmp gxf-logs 2>/dev/null
  cut -c1-220 "$OUT/gxf-conformance.txt" ;;
esac
# a soak longer than one call: started detached, then watched by later calls (the machine keeps /tmp while it is held)
case "${1:-}" in
soak-start)
  # its own copy of the jars: a later call may carry a new .bundle while it runs
  rm -rf /tmp/soak-lib && cp -r .bundle/lib /tmp/soak-lib
  setsid nohup bash -c "source .bundle/env.sh; $J -cp \"\$(ls /tmp/soak-lib/*.jar | tr '\\n' ':')\" io.jkompute.examples.ManagerSoak ${2:-10000} ${3:-1000} > /tmp/soak.txt 2>&1; echo \"soak exit: \$?\" >> /tmp/soak.txt" >/dev/null 2>&1 < /dev/null &
  sleep 5; echo started ;;
soak-watch)
  end=$((SECONDS + ${2:-560}))
  while [ $SECONDS -lt $end ] && ! grep -q 'soak exit' /tmp/soak.txt; do sleep 10; done
  cp /tmp/soak.txt "$OUT/soak.txt"; grep -vE 'INFO|^\s' /tmp/soak.txt | tail -14 ;;
esac
