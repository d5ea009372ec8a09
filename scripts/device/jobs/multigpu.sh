#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 12 on ONE H200 (the 2-GPU run is scripts/device/jobs/ddp-2gpu.sh): `record` following a
# torchrun launch of 2 worker processes on a real GPU. NCCL refuses two ranks on one GPU, so
# the ranks use the gloo backend with both on GPU 0 (DDP all-reduce through the host: no NCCL
# kernels here); what this checks is the multi-process recording itself: torchrun's agent and
# both workers in one session, each worker's kernels on GPU 0 under its own pid, RANK /
# LOCAL_RANK / WORLD_SIZE per process, per-process clock anchors. Usage (repository root):
#   bash scripts/device.sh run multigpu   (this script gets OUTDIR)
# Needs $WS_DEVICE_BIN/warpscope-cli and $WS_DEVICE_LIB/libwarpscope-inject.so (scripts/device.sh stage multigpu);
# examples/python/ddp_step.py comes with the working tree. About 30 s; stays under 60 s; never
# fails the call.
set -u
O=${1:-/tmp/multigpu}
mkdir -p "$O"
exec > >(tee "$O/device.log") 2>&1
CLI=$WS_DEVICE_BIN/warpscope-cli
PY=examples/python/ddp_step.py
T0=$(date +%s)
step() { echo "== $* (t=$(($(date +%s) - T0)) s)"; }
# Every step's timeout is cut to what is left of 55 s.
tl() { local left=$((55 - ($(date +%s) - T0))); [ "$left" -lt "$1" ] && echo $((left > 1 ? left : 1)) || echo "$1"; }
trap 'echo "error at line $LINENO (continuing)"' ERR

export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export MASTER_ADDR=127.0.0.1 OMP_NUM_THREADS=2
if command -v torchrun >/dev/null 2>&1; then RUN=(torchrun); else RUN=(python3 -m torch.distributed.run); fi
RUN+=(--standalone --nproc_per_node 2)

step environment
timeout $(tl 5) nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader || true
ls -la "$CLI" "$WS_DEVICE_LIB/" "$PY" || true

step "record: torchrun --nproc_per_node 2 ddp_step.py --backend gloo --one-gpu"
timeout $(tl 45) "$CLI" record -o "$O/ddp-1gpu-gloo.wscope" -- "${RUN[@]}" "$PY" --backend gloo --one-gpu \
  --width 1024 --layers 4 --batch 512 --warmup 2 --steps 5 --bucket-mb 2 >"$O/record.log" 2>&1
echo "rc=$?"
grep -E "RESULT|warpscope-cli|Error|error" "$O/record.log" | head -30

step "reports"
timeout $(tl 5) "$CLI" stats "$O/ddp-1gpu-gloo.wscope" -r comm_overlap -f csv >"$O/comm_overlap.csv" 2>&1
cat "$O/comm_overlap.csv"
timeout $(tl 5) "$CLI" info "$O/ddp-1gpu-gloo.wscope" >"$O/info.txt" 2>&1
sed -n '/^Meta/,/^Environment/p;/^Processes/,/^Tables/p' "$O/info.txt" | head -60

step summary
timeout $(tl 5) python3 - "$O" <<'PY' || echo "summary failed"
import json, os, sqlite3, sys
out = sys.argv[1]
path = os.path.join(out, "ddp-1gpu-gloo.wscope")
res = {}
if os.path.exists(path):
    db = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    meta = dict(db.execute("SELECT key, value FROM meta"))
    res["ranks"] = {k: v for k, v in meta.items() if k.split(".")[0] in ("rank", "local_rank", "world_size")}
    res["processes"] = [dict(zip(("pid", "name", "parent", "anchor_rt", "anchor_mono"), r)) for r in
                        db.execute("SELECT pid, name, parent_pid, anchor_realtime_ns, anchor_monotonic_ns FROM process")]
    res["kernels_per_pid_device"] = [list(r) for r in db.execute(
        "SELECT pid, device_id, count(*), min(start), max(end) FROM kernel GROUP BY pid, device_id")]
    res["memcpy_per_pid"] = [list(r) for r in db.execute("SELECT pid, copy_kind, count(*) FROM memcpy GROUP BY 1, 2")]
    res["nvtx_steps_per_pid"] = [list(r) for r in db.execute(
        "SELECT n.pid, count(*) FROM nvtx_range n JOIN string s ON s.id = n.name WHERE s.text LIKE 'step %' GROUP BY 1")]
    res["dropped_records"] = meta.get("dropped_records")
    res["bytes"] = os.path.getsize(path)
res["results"] = [l.strip() for l in open(os.path.join(out, "record.log")) if l.startswith("RESULT")] \
    if os.path.exists(os.path.join(out, "record.log")) else []
json.dump(res, open(os.path.join(out, "summary.json"), "w"), indent=1, default=str)
print(json.dumps(res, indent=1, default=str)[:3000])
PY
step done
exit 0
