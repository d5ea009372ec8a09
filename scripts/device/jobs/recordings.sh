#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Everything the recorder must show on a GPU machine, in one go (made for the lent H200, where
# nothing is built: scripts/device.sh stage recordings prepares build/gpu/device here first):
#   - environment facts: GPU, torch, how torch calls NVTX, which libcupti files a PyTorch
#     process maps (the cause of torch NVTX ranges missing under CUPTI's own NVTX support);
#   - sessions: (a) the GEMM+ReLU example, (b) the PyTorch NVTX program, (c) CUDA graphs,
#     (d) 20,000 empty kernels (and a 2,000-kernel one small enough for a fixture), capture
#     ranges, child processes, a target that segfaults and one that is SIGKILLed;
#   - scripts/device/compare-and-overhead.py --tune: what each CUPTI setting costs per launch; the
#     cheapest (written to best.env) is used for everything after it;
#   - scripts/device/compare-and-overhead.py: torch.profiler agreement, overhead, stress runs.
# Results land in $OUT/sessions.tgz (sessions, raw files, logs, summary.txt) and $OUT/compare/
# (compare.txt with the table, compare.json, the torch.profiler trace).
# Usage: scripts/device.sh run recordings (this script gets OUTDIR; RECORD_QUICK=1 for 2 repetitions)
set -u
cd "$(dirname "$0")/../../.."
ROOT=$(pwd)
D=$(realpath -m "${WS_DEVICE_BIN:-$ROOT/build/gpu/bin}/..")
CLI=$D/bin/warpscope-cli
OUT=${1:-${OUT:-/tmp/ws-out}}
R=$OUT/res
mkdir -p "$R/raw"
export PYTHONUNBUFFERED=1
REPS=5
[ -n "${RECORD_QUICK:-}" ] && REPS=2

step() { echo; echo "== $* ($(date +%T))"; }
# record NAME [record options] -- program args: session $R/NAME.wscope, log $R/NAME.log
record() {
    local name=$1; shift
    timeout 60 "$CLI" record -o "$R/$name.wscope" "$@" >"$R/$name.log" 2>&1
    echo "rc=$?" >>"$R/$name.log"
    tail -n 4 "$R/$name.log"
}
# keep the raw files of the last recording of NAME as fixtures under raw/NAME
keepraw() {
    local name=$1
    mkdir -p "$R/raw/$name"
    cp "$R/$name.wscope".raw-*/ws-*.raw "$R/raw/$name/" 2>/dev/null
    rm -rf "$R/$name.wscope".raw-*
}

step "environment"
{
    "$CLI" --version
    ldd "$CLI" "$D/lib/libwarpscope-inject.so" "$D/bin/ws-example-gemm-relu" | grep -E "not found|cupti|cublas|sqlite|Qt" || true
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,persistence_mode --format=csv
    python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda)"
    TL=$(python3 -c "import torch, os; print(os.path.join(os.path.dirname(torch.__file__), 'lib'))")
    echo "torch lib dir: $TL"
    for f in "$TL"/libtorch_python.so "$TL"/libtorch_cuda.so "$TL"/libtorch_cpu.so; do
        echo "-- $f: nvtx symbols (U = imported from a libnvToolsExt, T/W = nvtx3 compiled in)"
        nm -D "$f" 2>/dev/null | grep -i nvtx | head -8
        echo "-- $f: NEEDED nvtx/cupti"
        readelf -d "$f" 2>/dev/null | grep -iE "nvtx|cupti"
    done
    python3 - <<'EOF'
import glob, os, torch
d = os.path.dirname(torch.__file__)
print("cupti copies near torch:", glob.glob(os.path.join(d, "..", "nvidia", "**", "libcupti*"), recursive=True))
print("nvtx libs near torch:", glob.glob(os.path.join(d, "..", "nvidia", "**", "*nvToolsExt*"), recursive=True)
      + glob.glob(os.path.join(d, "lib", "*nvToolsExt*")))
EOF
    ls -la /usr/local/cuda/lib64/libcupti* 2>&1 | head
} >"$R/env.txt" 2>&1
cat "$R/env.txt"

step "what each CUPTI setting costs; the cheapest is used from here on"
mkdir -p "$OUT/compare"
timeout 240 python3 scripts/device/compare-and-overhead.py --tune --bin "$D/bin" --out "$OUT/compare" 2>&1 \
    | tee "$OUT/compare/tune.txt"
rm -f "$OUT"/compare/*.wscope
[ -f "$OUT/compare/best.env" ] && . "$OUT/compare/best.env"
env | grep '^WS_CUPTI_' || echo "recorder defaults"

step "diagnosis: CUPTI's own NVTX path in a PyTorch process (the earlier setup)"
mkdir -p /tmp/diagraw
cat >/tmp/diag.py <<'EOF'
import torch
torch.cuda.nvtx.range_push("diag")
x = torch.ones(4, device="cuda"); x += 1; torch.cuda.synchronize()
torch.cuda.nvtx.range_pop()
seen = sorted({l.split()[-1] for l in open("/proc/self/maps") if "cupti" in l or "warpscope" in l or "nvToolsExt" in l})
print("mapped:", *seen, sep="\n  ")
EOF
CUDA_INJECTION64_PATH=$D/lib/libwarpscope-inject.so NVTX_INJECTION64_PATH=$(readlink -f /usr/local/cuda/lib64/libcupti.so) \
    WS_RAW_DIR=/tmp/diagraw timeout 120 python3 /tmp/diag.py 2>&1 | tee "$R/diag.txt"
echo "our injection library bound to: $(strings /tmp/diagraw/*.raw | grep -m1 'libcupti')" | tee -a "$R/diag.txt"

step "(a) GEMM + ReLU example"
record gemm_relu --keep-raw -- "$D/bin/ws-example-gemm-relu" --warmup 3 --iters 20
keepraw gemm_relu
step "(a') capture range cudaProfilerApi, nvtx:check"
record gemm_capture_profiler --capture-range=cudaProfilerApi --keep-raw -- "$D/bin/ws-example-gemm-relu" --warmup 2 --iters 5
keepraw gemm_capture_profiler
record gemm_capture_nvtx --capture-range=nvtx:check -- "$D/bin/ws-example-gemm-relu" --warmup 2 --iters 5
step "(b) PyTorch program with torch.cuda.nvtx ranges"
record torch_nvtx --keep-raw -- python3 examples/python/torch_nvtx.py --steps 20
keepraw torch_nvtx
step "(c) CUDA graphs"
record graphs --keep-raw -- "$D/bin/ws-example-graphs" --replays 10
keepraw graphs
step "(d) 20,000 empty kernels, and 2,000 for a fixture"
record launch_20k -- "$D/bin/ws-example-launch-bound" --launches 20000
record launch_2k -- "$D/bin/ws-example-launch-bound" --launches 2000
step "child processes (a shell starting two CUDA programs)"
record children --keep-raw -- /bin/sh -c "$D/bin/ws-example-launch-bound --launches 50 & $D/bin/ws-example-graphs --replays 2; wait"
keepraw children
step "a target that segfaults and one that is SIGKILLed, after 1.5 s of work"
cat >/tmp/die.py <<'EOF'
import os, signal, sys, time, torch
x = torch.ones(1024, device="cuda")
torch.cuda.nvtx.range_push("doomed")
for _ in range(200):
    x.add_(1.0)
torch.cuda.synchronize()
time.sleep(1.5)  # a periodic flush happens meanwhile
os.kill(os.getpid(), getattr(signal, sys.argv[1]))
EOF
record segv --keep-raw -- python3 /tmp/die.py SIGSEGV
keepraw segv
record sigkill --keep-raw -- python3 /tmp/die.py SIGKILL
keepraw sigkill

step "session summaries"
python3 scripts/device/session-summary.py "$R"/*.wscope | tee "$R/summary.txt"

# Pack the sessions now: if the comparison below runs out of time, these still come back.
rm -f "$R"/launch_20k.wscope
du -sh "$R"/* | sort -h | tail -n 8
(cd "$OUT" && tar czf sessions.tgz res && rm -rf res)

step "comparison with torch.profiler, overhead, stress"
timeout 400 python3 scripts/device/compare-and-overhead.py --bin "$D/bin" --out "$OUT/compare" --reps "$REPS" 2>&1 \
    | tee "$OUT/compare/compare.txt"
rm -f "$OUT"/compare/*.wscope "$OUT"/compare/*.json.gz
gzip -f "$OUT/compare/torch_profiler_trace.json" 2>/dev/null
ls -la "$OUT" "$OUT/compare"
