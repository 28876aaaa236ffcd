#!/usr/bin/env bash
# CUDA device tensors by reference over a link, on the GPU host, from the repository root with .bundle and .gputest
# carried (scripts/gpu-host/pack-tests.sh; CP: the bundle's jars, or set CP to others first): jkompute-net's
# CudaIpcLinkGpuTest and DeviceReferenceWireTest and jkompute-graph-cuda's CudaIpcGpuTest in one JVM (two JVMs per
# test on one GPU), then NetBenchmark's "device 64 MiB, CUDA IPC" row (cuMemcpyDtoD of 64 MiB in the same run).
set -uo pipefail
keep_cp=${CP:-}
source .bundle/env.sh
[ -n "$keep_cp" ] && CP=$keep_cp
T=$PWD/.gputest
J="java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow --add-exports java.base/jdk.internal.misc=ALL-UNNAMED --add-opens java.base/sun.nio.ch=ALL-UNNAMED"
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; } > "$OUT/host.txt" 2>&1
cat "$OUT/host.txt"
timeout -s KILL 150 $J -cp "$CP:$T/junit.jar:$T/tests/jkompute-net-tests.jar:$T/tests/jkompute-graph-cuda-tests.jar" \
  org.junit.platform.console.ConsoleLauncher execute \
  --select-class io.jkompute.net.CudaIpcLinkGpuTest --select-class io.jkompute.net.DeviceReferenceWireTest \
  --select-class io.jkompute.graph.cuda.CudaIpcGpuTest \
  --details=tree --disable-banner --disable-ansi-colors > "$OUT/tests.txt" 2>&1
echo "junit exit: $?" | tee -a "$OUT/tests.txt"
grep -E 'tests (successful|failed|aborted|skipped)|containers failed|soak:' "$OUT/tests.txt"
grep -E '✘|✔' "$OUT/tests.txt" | head -30
timeout -s KILL 100 $J -cp "$CP" io.jkompute.net.bench.NetBenchmark --only device > "$OUT/netbench-device.txt" 2>&1
echo "netbench exit: $?" | tee -a "$OUT/netbench-device.txt"
tail -8 "$OUT/netbench-device.txt"
ls /dev/shm | grep -c jkompute-aeron | sed 's/^/aeron folders left: /'
