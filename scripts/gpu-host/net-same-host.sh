#!/usr/bin/env bash
# Same-host transport figures on the GPU host, from the repository root with .bundle carried (CP: the bundle's jars,
# or set CP to others first): NetBenchmark's same-host rows (jkompute's shared slots against a raw Aeron IPC loop),
# the 64 MiB row again with every message copied out (sharedSlots=1: the two-copy path) and with 8 and 1 copy
# threads, the split GPU pipeline against the same pipeline in one process (shipped queues of 2, then 16 and 64),
# and the CUDA IPC anchor (a 64 MiB device-to-device copy from another process's buffer against one inside a
# process, CuPy). Everything under $OUT.
set -uo pipefail
keep_cp=${CP:-}
source .bundle/env.sh
[ -n "$keep_cp" ] && CP=$keep_cp
J="java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow --add-exports java.base/jdk.internal.misc=ALL-UNNAMED --add-opens java.base/sun.nio.ch=ALL-UNNAMED"
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
{ date -u; nproc; nvidia-smi --query-gpu=name,driver_version --format=csv; lscpu | grep -E "Model name|Socket|NUMA node\(s\)"; } > "$OUT/host.txt" 2>&1
B=io.jkompute.net.bench.NetBenchmark
timeout -s KILL 120 $J -cp "$CP" $B --only "same host" > "$OUT/same.txt" 2>&1; echo "exit $?" >> "$OUT/same.txt"
{ echo "== sharedSlots=1 (every message copied out: two copies)"; timeout -s KILL 60 $J -Djkompute.net.sharedSlots=1 -cp "$CP" $B --only "same host 64" 2>&1 | tail -3
  echo "== copyThreads=8"; timeout -s KILL 60 $J -Djkompute.net.copyThreads=8 -cp "$CP" $B --only "same host 64" 2>&1 | tail -3
  echo "== copyThreads=1"; timeout -s KILL 60 $J -Djkompute.net.copyThreads=1 -cp "$CP" $B --only "same host 64" 2>&1 | tail -3
  echo "== same host again"; timeout -s KILL 60 $J -cp "$CP" $B --only "same host" 2>&1 | tail -4; } > "$OUT/same-variants.txt" 2>&1
tail -4 "$OUT/same.txt"; cat "$OUT/same-variants.txt"
timeout -s KILL 100 $J -cp "$CP" $B --only "GPU pipeline" > "$OUT/split.txt" 2>&1; echo "exit $?" >> "$OUT/split.txt"
{ for c in 16 64; do echo "== splitCapacity=$c"; timeout -s KILL 100 $J -Djkompute.net.bench.splitCapacity=$c -cp "$CP" $B --only "GPU pipeline" 2>&1 | tail -6; done; } > "$OUT/split-capacity.txt" 2>&1
tail -3 "$OUT/split.txt"; cat "$OUT/split-capacity.txt"
timeout -s KILL 60 python3 scripts/gpu-host/cuda-ipc-anchor.py > "$OUT/cudaipc.txt" 2>&1; echo "exit $?" >> "$OUT/cudaipc.txt"
cat "$OUT/cudaipc.txt"
