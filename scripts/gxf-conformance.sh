#!/usr/bin/env bash
# GXF's own Python codelet tests, run unchanged with `jkompute run`: the conformance check of jkompute-python.
#
#   scripts/gxf-conformance.sh [--device] [--only REGEX] [--timeout S] [--logs DIR] GXF_CHECKOUT
#
# GXF_CHECKOUT is a GXF source tree (the repository's root, or its com_nvidia_gxf folder) or a bare git directory of
# it (exported with `git archive HEAD` to a temporary folder). Nothing of GXF is copied into this repository.
#
# The apps: every YAML under gxf/python/tests that uses nvidia::gxf::PyCodeletV0, and the DLPack apps as GXF's own
# generator writes them (gxf/python/tests/dlpack/generate_dlpack_apps.py, run with python3 into a temporary folder).
# Each runs with `jkompute run APP` in the GXF workspace folder, as GXF's tests run (its codelet_file paths, such as
# gxf/python/tests/PingTx.py, are relative to it). One line per app, then the totals:
#   PASS  the graph ran to its end (exit 0); GXF's StepCount/VerifyEqual codelets check the counts and values. For
#         GXF's three negative tests (test_py_codelet_invalid*.yaml, test_py_codelet_empty_path.yaml): refused at
#         load (exit 2) for the reason GXF's test_core.py expects
#   FAIL  with jkompute's error line
#   SKIP  with the reason: "C++ codelet TYPE" (a component of GXF's C++ extensions that jkompute has no component
#         for under that name), "needs CuPy" (a codelet imports cupy or torch and the interpreter has neither), "needs
#         CUDA" (GPUDevice, CudaStreamPool, device pools: without --device, or where no CUDA driver is found)
# Exit status: 0 when nothing failed, 1 otherwise, 2 for bad arguments.
#
# jkompute: $JKOMPUTE_CMD (a command line, word-split) or else this repository's ./jkompute launcher. Python codelets
# run in $JKOMPUTE_PYTHON or the python3 on PATH (see jkompute-python/README.md); CuPy is looked for there.
#
# On a CUDA machine with CuPy (the GPU host, whose bundle has no Maven: use the bundle's java and jars), with a GXF
# tree exported into the git-ignored .gxf/ folder and carried there:
#   source .bundle/env.sh && JKOMPUTE_CMD="java --enable-native-access=ALL-UNNAMED -cp $CP io.jkompute.cli.Main" \
#     bash scripts/gxf-conformance.sh --device .gxf
# (scripts/gpu-host/run.sh gxf does exactly this, with the CUDA library flags, logs under $OUT.)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
device=0 only="" timeout_s=120 logs="" src=""
usage() { sed -n '2,30p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --device) device=1 ;;
    --only) only=${2:?--only needs a regular expression}; shift ;;
    --timeout) timeout_s=${2:?--timeout needs seconds}; shift ;;
    --logs) logs=${2:?--logs needs a folder}; shift ;;
    -h|--help) usage ;;
    -*) echo "gxf-conformance: unknown option $1" >&2; usage ;;
    *) [ -z "$src" ] || usage; src=$1 ;;
  esac
  shift
done
[ -n "$src" ] || usage
[ -e "$src" ] || { echo "gxf-conformance: $src does not exist" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/gxf-conformance.XXXXXX")
trap 'rm -rf "$work"' EXIT
src=$(cd "$src" && pwd)
if [ -f "$src/HEAD" ] && [ -d "$src/objects" ]; then
  # a bare repository: only the folder GXF's Python codelet tests live in (their codelets import jkompute's gxf)
  mkdir -p "$work/tree"
  prefix=com_nvidia_gxf/gxf/python/tests
  git --git-dir="$src" cat-file -e "HEAD:$prefix" 2>/dev/null || prefix=gxf/python/tests
  git --git-dir="$src" archive HEAD "$prefix" | tar -x -C "$work/tree"
  src="$work/tree"
fi
if [ -d "$src/com_nvidia_gxf/gxf/python/tests" ]; then ws="$src/com_nvidia_gxf"
elif [ -d "$src/gxf/python/tests" ]; then ws="$src"
else echo "gxf-conformance: no gxf/python/tests under $src (a GXF checkout?)" >&2; exit 2; fi

if [ -n "${JKOMPUTE_CMD:-}" ]; then read -r -a jk <<< "$JKOMPUTE_CMD"; else jk=("$root/jkompute"); fi
py=${JKOMPUTE_PYTHON:-python3}
[ -n "$logs" ] || logs="$work/logs"
mkdir -p "$logs"
logs=$(cd "$logs" && pwd)

# the launcher builds on first use: do that now, not inside the first app's time limit; from the GXF folder, where
# the apps run (a relative class path in JKOMPUTE_CMD fails here, not 29 times later)
(cd "$ws" && "${jk[@]}" --version) > "$logs/version.txt" 2>&1 </dev/null || {
  echo "gxf-conformance: '${jk[*]} --version' failed in $ws (JKOMPUTE_CMD needs absolute paths):" >&2
  tail -5 "$logs/version.txt" >&2; exit 1; }
# the component types jkompute knows: its load error for an unknown type lists them
printf 'name: probe\ncomponents:\n- type: nvidia::gxf::NoSuchComponentType\n' > "$work/probe.yaml"
known=$(cd "$ws" && "${jk[@]}" run "$work/probe.yaml" 2>&1 </dev/null | sed -n 's/.*known types: //p' | head -1 || true)
[ -n "$known" ] || { echo "gxf-conformance: could not list jkompute's component types" >&2; exit 1; }
has_cupy=0; "$py" -c 'import cupy' >/dev/null 2>&1 && has_cupy=1
has_cuda=0
if [ $device = 1 ]; then
  # no `ldconfig -p | grep -q`: under pipefail grep's early exit fails the pipeline with SIGPIPE
  [[ "$(ldconfig -p 2>/dev/null)" == *libcuda.so.1* ]] && has_cuda=1
  for f in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/local/nvidia/lib64 /usr/lib/wsl/lib; do
    [ -e "$f/libcuda.so.1" ] && has_cuda=1
  done
fi

# DLPack apps: GXF's generator writes YAML only (it imports sys alone); its codelet paths are workspace-relative
gen="$ws/gxf/python/tests/dlpack/generate_dlpack_apps.py"
mkdir -p "$work/dlpack"
if [ -f "$gen" ]; then
  "$py" "$gen" "$work/dlpack" > "$logs/generate_dlpack_apps.txt" 2>&1 \
    || echo "gxf-conformance: $gen failed (see $logs/generate_dlpack_apps.txt)" >&2
fi

export GXFC_WS="$ws" GXFC_KNOWN="$known" GXFC_CUPY=$has_cupy GXFC_CUDA=$has_cuda GXFC_DEVICE=$device \
  GXFC_ONLY="$only" GXFC_TIMEOUT=$timeout_s GXFC_LOGS="$logs" GXFC_DLPACK="$work/dlpack"
"$py" - "${jk[@]}" <<'PY'
import os, re, subprocess, sys, time

jk = sys.argv[1:]
ws, logs = os.environ["GXFC_WS"], os.environ["GXFC_LOGS"]
known = {t.strip() for t in os.environ["GXFC_KNOWN"].split(",") if t.strip()}
has_cupy, has_cuda, device = (os.environ[k] == "1" for k in ("GXFC_CUPY", "GXFC_CUDA", "GXFC_DEVICE"))
only = re.compile(os.environ["GXFC_ONLY"]) if os.environ["GXFC_ONLY"] else None
timeout = int(os.environ["GXFC_TIMEOUT"])
PREFIX = "nvidia::gxf::"
# GXF's CUDA extension and device memory: these apps need a CUDA GPU (jkompute runs them on CUDA)
CUDA_TYPES = {"GPUDevice", "CudaStreamPool", "CudaStreamSync", "CudaEvent", "CudaStreamId"}
# GXF's negative tests (test_core.py expects graph_load_file to raise the GXF code named): PASS when jkompute
# refuses the app at load (exit 2) with the matching reason
EXPECTED_LOAD_ERRORS = {
    "test_py_codelet_invalid.yaml": ("GXF_FAILURE", r"codelet_file '[^']*' not found"),
    "test_py_codelet_invalid_connection.yaml": ("GXF_ENTITY_COMPONENT_NOT_FOUND", r"has no component"),
    "test_py_codelet_empty_path.yaml": ("GXF_ENTITY_NOT_FOUND", r"no entity"),
}


def apps():
    tests = os.path.join(ws, "gxf", "python", "tests")
    found = []
    for d, _, files in os.walk(tests):
        for f in sorted(files):
            p = os.path.join(d, f)
            if f.endswith(".yaml") and "PyCodeletV0" in open(p, encoding="utf-8", errors="replace").read():
                found.append((os.path.relpath(p, ws), p))
    found.sort()
    gen = os.environ["GXFC_DLPACK"]
    for f in sorted(os.listdir(gen)):
        if f.endswith(".yaml"):
            found.append(("dlpack-generated/" + f, os.path.join(gen, f)))
    return found


def classify(path):
    text = open(path, encoding="utf-8", errors="replace").read()
    types = re.findall(r"^\s*-?\s*type:\s*['\"]?([\w:]+)", text, re.M)
    missing = []
    for t in types:
        short = t[len(PREFIX):] if t.startswith(PREFIX) else t
        if short not in known and t not in missing:
            missing.append(t)
    cuda = any((t[len(PREFIX):] if t.startswith(PREFIX) else t) in CUDA_TYPES for t in types) \
        or re.search(r"^\s*storage_type:\s*1\b", text, re.M) is not None
    cupy = False
    for f in re.findall(r"^\s*codelet_file:\s*['\"]?([^'\"\s#]+)", text, re.M):
        for base in (ws, os.path.dirname(path)):
            p = os.path.join(base, f)
            if os.path.isfile(p):
                src = open(p, encoding="utf-8", errors="replace").read()
                if re.search(r"^\s*(import|from)\s+(cupy|torch)\b", src, re.M):
                    cupy = True
                break
    return missing, cuda, cupy


def first_error(out):
    """jkompute's one error line, paths shown relative to the GXF workspace."""
    found = [l[len("error:"):] for l in out.splitlines() if l.startswith("error:")]
    if not found:
        found = [l for l in out.splitlines() if l.strip()][-1:] or ["no output"]
    return found[0].strip().replace(ws + os.sep, "")


counts = {"PASS": 0, "FAIL": 0, "SKIP": 0}
rows = []
for name, path in apps():
    if only and not only.search(name):
        continue
    missing, cuda, cupy = classify(path)
    reason = None
    if missing:
        reason = "C++ codelet " + ", ".join(missing)
    elif cupy and not has_cupy:
        reason = "needs CuPy (a codelet imports cupy or torch; this python3 has neither)"
    elif cuda and not device:
        reason = "needs CUDA (GPUDevice/CudaStreamPool/device memory; run with --device on a CUDA machine)"
    elif cuda and not has_cuda:
        reason = "needs CUDA (no libcuda.so.1 on this machine)"
    if reason:
        status, detail, secs = "SKIP", reason, 0.0
    else:
        log = os.path.join(logs, name.replace("/", "__") + ".log")
        t0 = time.monotonic()
        try:
            r = subprocess.run(jk + ["run", path], cwd=ws, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=timeout, text=True, errors="replace")
            out, rc = r.stdout, r.returncode
        except subprocess.TimeoutExpired as e:
            out = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
            out += "\nerror: timed out after %d s" % timeout
            rc = 124
        secs = time.monotonic() - t0
        with open(log, "w") as f:
            f.write(out)
        expected = EXPECTED_LOAD_ERRORS.get(os.path.basename(path))
        if expected:
            ok = rc == 2 and re.search(expected[1], first_error(out)) is not None
            status = "PASS" if ok else "FAIL"
            detail = ("refused at load as GXF's test expects (%s): " % expected[0] if ok
                      else "expected a load error like GXF's %s, got exit %d: " % (expected[0], rc)) \
                + first_error(out)
        else:
            status = "PASS" if rc == 0 else "FAIL"
            detail = "" if rc == 0 else "exit %d: %s" % (rc, first_error(out))
    counts[status] += 1
    line = "%-4s  %-62s %s" % (status, name, ("%6.1f s  " % secs if status != "SKIP" else "") + detail)
    print(line.rstrip(), flush=True)
    rows.append(line)

total = sum(counts.values())
print("total %d: %d passed, %d failed, %d skipped (python3 %s CuPy, %s)" % (
    total, counts["PASS"], counts["FAIL"], counts["SKIP"], "with" if has_cupy else "without",
    "device apps run" if device and has_cuda else "host apps only"))
sys.exit(1 if counts["FAIL"] else 0)
PY
