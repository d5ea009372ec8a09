#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 12 on nvidia-h200-x2 (two H200 of one host): a 2-process PyTorch DDP training step
# recorded through torchrun into one session, then comm_overlap. Usage, from the repository
# root on the 2-GPU machine:
#   bash scripts/device.sh run ddp-2gpu   (this script gets OUTDIR)
# Needs $WS_DEVICE_BIN/warpscope-cli and $WS_DEVICE_LIB/libwarpscope-inject.so (scripts/device.sh stage ddp-2gpu);
# examples/python/ddp_step.py comes with the working tree. Writes into OUTDIR (default
# /tmp/ddp-2gpu): ddp-2gpu.wscope (the fixture to commit), baseline and record logs,
# comm_overlap (table and csv), cuda_gpu_kern_sum csv, summary.json. About 60-90 s; never fails
# the whole call (every step has a timeout; errors are logged and the script goes on).
#
# Ran on 2026-11-29 (13:26 UTC call): results in tests/fixtures/multigpu/ and docs/multi-gpu.md.
set -u
O=${1:-/tmp/ddp-2gpu}
mkdir -p "$O"
exec > >(tee "$O/device.log") 2>&1
CLI=$WS_DEVICE_BIN/warpscope-cli
PY=examples/python/ddp_step.py
T0=$(date +%s)
step() { echo "== $* (t=$(($(date +%s) - T0)) s)"; }
# Every step's timeout is cut to what is left of 150 s.
tl() { local left=$((150 - ($(date +%s) - T0))); [ "$left" -lt "$1" ] && echo $((left > 1 ? left : 1)) || echo "$1"; }
trap 'echo "error at line $LINENO (continuing)"' ERR

# The lent machines allow no NVLink multicast objects: keep NVLS / multicast off everywhere.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
# torchrun's agent and workers find each other on this host only.
export MASTER_ADDR=127.0.0.1 OMP_NUM_THREADS=4

if command -v torchrun >/dev/null 2>&1; then
  RUN=(torchrun)
else
  RUN=(python3 -m torch.distributed.run)
fi
RUN+=(--standalone --nproc_per_node 2)

step environment
timeout $(tl 10) nvidia-smi --query-gpu=index,name,driver_version,clocks.sm --format=csv,noheader || true
timeout $(tl 10) nvidia-smi topo -m || true
timeout $(tl 20) python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, \
'nccl', torch.cuda.nccl.version(), 'gpus', torch.cuda.device_count())" || true
ls -la "$CLI" "$WS_DEVICE_LIB/" "$PY" || true
GPUS=$(timeout $(tl 10) nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
if [ "${GPUS:-0}" -lt 2 ]; then
  echo "only ${GPUS:-0} GPU(s) visible: this needs nvidia-h200-x2 (two GPUs); nothing recorded"
  exit 0
fi

step "baseline: torchrun DDP step without the recorder (correctness: params_equal=1 on both ranks)"
timeout $(tl 60) "${RUN[@]}" "$PY" --steps 10 >"$O/baseline.log" 2>&1; echo "rc=$?"
grep -E "RESULT|Error|error" "$O/baseline.log" | head -20

step "record: warpscope-cli record -- torchrun --nproc_per_node 2 ddp_step.py"
timeout $(tl 90) "$CLI" record --keep-raw -o "$O/ddp-2gpu.wscope" -- "${RUN[@]}" "$PY" --steps 10 \
  >"$O/record.log" 2>&1; echo "rc=$?"
grep -E "RESULT|warpscope-cli|Error|error" "$O/record.log" | head -30
ls -la "$O"/ddp-2gpu.wscope* 2>/dev/null || true

step "info and reports"
timeout $(tl 20) "$CLI" info "$O/ddp-2gpu.wscope" >"$O/info.txt" 2>&1; head -80 "$O/info.txt"
timeout $(tl 20) "$CLI" stats "$O/ddp-2gpu.wscope" -r comm_overlap >"$O/comm_overlap.txt" 2>&1
cat "$O/comm_overlap.txt"
timeout $(tl 20) "$CLI" stats "$O/ddp-2gpu.wscope" -r comm_overlap -f csv >"$O/comm_overlap.csv" 2>&1
timeout $(tl 20) "$CLI" stats "$O/ddp-2gpu.wscope" -r cuda_gpu_kern_sum -f csv >"$O/kern_sum.csv" 2>&1
head -15 "$O/kern_sum.csv"

step "summary: per rank kernels, NCCL kernels, overlap"
timeout $(tl 20) python3 - "$O" <<'PY' || echo "summary failed"
import json, os, sqlite3, sys
out = sys.argv[1]
path = os.path.join(out, "ddp-2gpu.wscope")
res = {}
if os.path.exists(path):
    db = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    meta = dict(db.execute("SELECT key, value FROM meta"))
    res["ranks"] = {k: v for k, v in meta.items() if k.split(".")[0] in ("rank", "local_rank", "world_size")}
    res["processes"] = [dict(zip(("pid", "name", "parent"), r))
                        for r in db.execute("SELECT pid, name, parent_pid FROM process")]
    rows = db.execute(
        "SELECT k.pid, k.device_id, s.text, k.end - k.start FROM kernel k "
        "JOIN string s ON s.id = CASE WHEN k.short_name != 0 THEN k.short_name ELSE k.demangled_name END").fetchall()
    per = {}
    for pid, dev, name, dur in rows:
        d = per.setdefault(f"pid {pid} gpu {dev}", {"kernels": 0, "nccl_kernels": 0, "nccl_ns": 0, "nccl_names": set()})
        d["kernels"] += 1
        if name.startswith("nccl"):
            d["nccl_kernels"] += 1
            d["nccl_ns"] += dur
            d["nccl_names"].add(name[:60])
    for d in per.values():
        d["nccl_names"] = sorted(d["nccl_names"])
    res["per_process_device"] = per
    res["dropped_records"] = meta.get("dropped_records")
try:
    res["results"] = [l.strip() for l in open(os.path.join(out, "record.log")) if l.startswith("RESULT")]
    res["baseline"] = [l.strip() for l in open(os.path.join(out, "baseline.log")) if l.startswith("RESULT")]
except OSError:
    pass
json.dump(res, open(os.path.join(out, "summary.json"), "w"), indent=1, default=str)
print(json.dumps(res, indent=1, default=str)[:4000])
PY
# The raw files only matter when ingest failed; they would bloat the results otherwise.
[ -f "$O/ddp-2gpu.wscope" ] && rm -rf "$O"/ddp-2gpu.wscope.raw-*
step "done"
exit 0
