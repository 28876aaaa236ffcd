#!/usr/bin/env bash
# runs on the GPU host from the repository root; everything it keeps goes under $OUT
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
source .bundle/env.sh
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
J="java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow"
T=$PWD/.gputest
{ nvidia-smi --query-gpu=name,driver_version --format=csv; $J -cp "$CP" io.jkompute.cli.Main devices 2>&1 | head -12
  for e in logistic-regression array-multiplication constants async-queues cuda-roundtrip; do
    echo "== example $e"; $J -cp "$CP" io.jkompute.cli.Main example $e 2>&1 | grep -v INFO
  done
  echo "== dispatch loop"; $J -cp "$CP" io.jkompute.bench.DispatchLoop 10 10 10000 102400 2>&1 | grep -v INFO
} > $OUT/examples.txt 2>&1
echo examples done
run_tests() { # dir, class dirs...
  local dir=$1; shift; local cp="$CP:$T/junit.jar"; local scan=""
  for c in "$@"; do cp="$cp:$T/$c"; scan="$scan${scan:+:}$T/$c"; done
  (cd $dir && timeout -s KILL 280 $J -cp "$cp" org.junit.platform.console.ConsoleLauncher execute --scan-class-path "$scan" \
     --details=tree --disable-banner --disable-ansi-colors; echo "junit exit: $?")
}
{ run_tests . core-tests examples-tests cuda-tests; echo "===== graph (from its module directory)"; run_tests jkompute-graph graph-tests; } > $OUT/tests.txt 2>&1
echo tests done
{ timeout -s KILL 120 $J -cp "$CP" io.jkompute.cli.Main run apps/gpu-pipeline.yaml --param source/count/count=5000 \
    --param "verify/steps/codelet_params={expected_count: 5000}" --stats /tmp/pipeline-stats.json; echo "exit $?"; cat /tmp/pipeline-stats.json; } > $OUT/pipeline.txt 2>&1
echo pipeline done
# the virtual-thread burst in fresh JVMs (the case of the CUDA context fix)
{ for i in $(seq 1 10); do timeout -s KILL 30 $J -cp "$CP:$T/junit.jar:$T/cuda-tests" io.jkompute.cuda.VirtualThreadBurstProbe 2>&1 | tail -1; done; } > $OUT/burst.txt 2>&1
echo burst done
