#!/usr/bin/env bash
# jkompute-net on a host with two GPUs, from the repository root with .bundle carried
# (./jkompute bundle; its lib/ is the launcher's build, with jkompute-net, Aeron and Agrona):
#   source .bundle/env.sh && bash scripts/gpu-host/two-gpu.sh
# No Maven, no network. Everything it keeps goes under $OUT:
#   devices.txt        nvidia-smi and `jkompute devices`
#   netbench.txt       NetBenchmark: raw Aeron against jkompute's UcxTransmitter/UcxReceiver across two JVMs
#                      (msg/s, ping p50/p99 per hop, GB/s for 4 KiB, 1 MiB, 64 MiB; every message checked)
#   split-source.txt   the GPU pipeline split over two processes: StreamGenerator on SOURCE_DEVICE (0) ...
#   split-gpu.txt      ... Vulkan kernel + VerifyEqual on GPU_DEVICE (1); FRAMES (20000) frames, each side's
#                      device and frames/s
#   fragments.txt      apps/distributed/fragments-gpu-pipeline.yaml through the driver (two worker JVMs; the
#                      'gpu' fragment is placed on Vulkan device 1 by the app file), FRAGMENT_FRAMES (5000) frames
# NETBENCH_ARGS=--quick for a short benchmark; FRAGMENT_FLAGS=--gpu-fallback on a host with one GPU.
set -uo pipefail
J="java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow --add-exports java.base/jdk.internal.misc=ALL-UNNAMED --add-opens java.base/sun.nio.ch=ALL-UNNAMED"
J="$J -Dorg.slf4j.simpleLogger.defaultLogLevel=warn"
: "${CP:?source .bundle/env.sh first}"
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
FRAMES=${FRAMES:-20000}
FRAGMENT_FRAMES=${FRAGMENT_FRAMES:-5000}
SOURCE_DEVICE=${SOURCE_DEVICE:-0}
GPU_DEVICE=${GPU_DEVICE:-1}
pids=()
trap 'for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done' EXIT

{ nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv
  nvidia-smi topo -m
  $J -cp "$CP" io.jkompute.cli.Main devices; } > "$OUT/devices.txt" 2>&1
grep -E '^\s*\[?[0-9]' "$OUT/devices.txt" | head -6

timeout -s KILL ${NETBENCH_TIMEOUT:-420} $J -cp "$CP" io.jkompute.net.bench.NetBenchmark ${NETBENCH_ARGS:-} > "$OUT/netbench.txt" 2>&1
rc=$?
sed -n '/^case /,$p' "$OUT/netbench.txt"
echo "netbench exit: $rc" | tee -a "$OUT/netbench.txt"

# the split pipeline: the GPU side listens, the source connects (either order works)
n=$FRAMES
timeout -s KILL 300 $J -cp "$CP" io.jkompute.net.RunGraph apps/distributed/gpu-pipeline-gpu.yaml \
    --param gpu/device/device_index=$GPU_DEVICE --param kernel/count/count=$n --param cpu/count/count=$n \
    --param verify/count/count=$n --param "verify/steps/codelet_params={expected_count: $n}" \
    > "$OUT/split-gpu.txt" 2>&1 &
gpu_pid=$!; pids+=($gpu_pid)
timeout -s KILL 300 $J -cp "$CP" io.jkompute.net.RunGraph apps/distributed/gpu-pipeline-source.yaml \
    --param gpu/device/device_index=$SOURCE_DEVICE --param source/count/count=$n > "$OUT/split-source.txt" 2>&1
echo "exit $?" >> "$OUT/split-source.txt"
wait $gpu_pid; echo "exit $?" >> "$OUT/split-gpu.txt"
for side in source gpu; do
  f="$OUT/split-$side.txt"
  ms=$(awk '/^TIME /{print $2}' "$f")
  fps=$(awk -v n=$n -v ms="${ms:-0}" 'BEGIN{ if (ms > 0) printf "%.0f", n * 1000 / ms; else print "-" }')
  echo "frames/s $fps ($n frames in ${ms:-?} ms)" >> "$f"
  echo "== split $side: $(grep -E '^(RESULT|FAILED)' "$f" | head -1); $(grep '^DEVICE' "$f"); frames/s $fps"
  grep '^LINK' "$f"
done

# the same pipeline as fragments under the driver; the app file places 'gpu' on device 1
m=$FRAGMENT_FRAMES
timeout -s KILL 300 $J -cp "$CP" io.jkompute.cli.Main run apps/distributed/fragments-gpu-pipeline.yaml \
    --driver 127.0.0.1:57777 --param source/count/count=$m --param kernel/count/count=$m \
    --param cpu/count/count=$m --param verify/count/count=$m \
    --param "verify/steps/codelet_params={expected_count: $m}" --stats "$OUT/fragments-stats.json" ${FRAGMENT_FLAGS:-} \
    > "$OUT/fragments.txt" 2>&1
echo "exit $?" | tee -a "$OUT/fragments.txt"
grep -E '^(fragment|app|error)|using device' "$OUT/fragments.txt"
grep -A3 '"links"' "$OUT/fragments-stats.json" 2>/dev/null
