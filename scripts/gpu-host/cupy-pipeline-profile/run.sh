#!/usr/bin/env bash
# Where the CuPy codelet pipeline's time goes, on a GPU host, from the repository root with .bundle (./jkompute bundle)
# and this folder's Probe.class (javac -cp "$CP" -d scripts/gpu-host/cupy-pipeline-profile Probe.java, on a machine
# with a JDK):
#   1. CuPy's launch paths in plain python3 (launchbench.py): RawKernel's call, Function's, driver.launchKernel on a
#      pre-packed buffer, ctypes cuLaunchKernel;
#   2. Probe over apps/cuda-pipeline.yaml (Java CUDA codelet), apps/python-cuda-pipeline.yaml (CuPy codelet),
#      -profile (CupyScaleProfile.py: each part of the tick timed with perf_counter_ns, the launch paths again inside
#      the JVM on the pool's stream), -arrays (CupyScaleArrays.py: as_cupy and RawKernel's own call) and the two
#      pipelines under a MultiThreadScheduler with 4 workers (-mt).
# Output under $OUT (default /tmp/out): env.txt, launch-python.txt, probe.txt.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source .bundle/env.sh
J="java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow"
for v in nvrtc cublas; do
  f=$(ls /usr/local/cuda/lib64/lib$v.so.1[0-9]* 2>/dev/null | head -1)
  [ -n "$f" ] || f=$(find / -xdev -name "lib$v.so.1[0-9]*" 2>/dev/null | grep -v builtins | head -1)
  [ -n "$f" ] && J="$J -Djkompute.cuda.$v=$f"
done
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
work=$(mktemp -d); cp -r apps "$work/apps"; a=$work/apps
cp "$here/CupyScaleProfile.py" "$here/CupyScaleArrays.py" "$a/python/cuda/"
for v in Profile Arrays; do
  sed -e "s#codelet_name: CupyScale\$#codelet_name: CupyScale$v#" -e "s#python/cuda/CupyScale.py#python/cuda/CupyScale$v.py#" \
      "$a/python-cuda-pipeline.yaml" > "$a/python-cuda-pipeline-${v,,}.yaml"
done
for p in cuda-pipeline python-cuda-pipeline; do
  sed -e 's#type: nvidia::gxf::GreedyScheduler#type: nvidia::gxf::MultiThreadScheduler#' \
      -e 's#parameters: { clock: clock, max_duration_ms: 120000 }#parameters: { clock: clock, worker_thread_number: 4, max_duration_ms: 120000, stop_on_deadlock: true }#' \
      "$a/$p.yaml" > "$a/$p-mt.yaml"
done
export JKOMPUTE_PYTHON=${JKOMPUTE_PYTHON:-python3} LAUNCHBENCH=$here/launchbench.py PYTHONUNBUFFERED=1
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nproc
  python3 -c 'import sys, cupy, numpy; print(sys.version, cupy.__version__, numpy.__version__)'; } > "$OUT/env.txt" 2>&1
timeout 60 python3 "$here/launchbench.py" > "$OUT/launch-python.txt" 2>&1
timeout -s KILL "${PROBE_TIMEOUT:-150}" $J -cp "$CP:$here" Probe "$a" "${FRAMES:-5000}" "${RUNS:-5}" cuda-pipeline.yaml \
    python-cuda-pipeline.yaml python-cuda-pipeline-profile.yaml python-cuda-pipeline-arrays.yaml cuda-pipeline-mt.yaml \
    python-cuda-pipeline-mt.yaml > "$OUT/probe.txt" 2>&1
echo "probe exit $?" >> "$OUT/probe.txt"
grep -E 'RATE|TICKPARTS (total|launch)|LAUNCH|FAILED|probe exit' "$OUT/probe.txt"
rm -rf "$work"
