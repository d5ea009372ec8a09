#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every collector on PyTorch and Triton operations nobody wrote for it (examples/python/
# fidelity_ops.py), as a new user would: each op alone, under `record`, and under `profile` (a
# short section set, cache control all); OPS_TOOLS_PROFILE_OPS also under --set full in both cache
# controls and with --pc-sampling. Prints each run's exit status and any crash report the
# collectors printed (warpscope-profile: / warpscope-inject: the program received signal ...).
# Never stops at the first failure; the logs are the evidence.
# Usage on the device: bash scripts/device.sh run ops-tools   (this script gets OUTDIR)
set -u
O=${1:-/tmp/ops-tools}
mkdir -p "$O"
exec > >(tee "$O/device.log") 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
chmod u+x "$WS_DEVICE_BIN"/* 2>/dev/null
CLI=$WS_DEVICE_BIN/warpscope-cli
PY=$PWD/examples/python/fidelity_ops.py
LIMIT=${OPS_TOOLS_DEADLINE:-280}
T0=$(date +%s)
tl() { local left=$((LIMIT - ($(date +%s) - T0))); [ "$left" -lt "$1" ] && echo $((left > 1 ? left : 1)) || echo "$1"; }
# one NAME CMD...: runs CMD with its output in $O/NAME.log, prints status, timing and crash report.
one() {
  local name=$1 t0 rc
  shift
  if [ "$(tl 10)" -lt 10 ]; then echo "$name: skipped (deadline)"; return; fi
  t0=$(date +%s.%N)
  timeout "$(tl 90)" "$@" >"$O/$name.log" 2>&1
  rc=$?
  printf '%-40s rc=%-3s %6.2f s\n' "$name" "$rc" "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{print b-a}')"
  grep -E 'received signal|while the collector|   #[0-9]|killed by signal|check failed|Error|error:|warning:' "$O/$name.log" | head -40 | sed 's/^/    /'
}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c "import torch, triton; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'triton', triton.__version__, 'cudnn', torch.backends.cudnn.version())"
for op in ${OPS_TOOLS_PROFILE_OPS:-conv2d_fp16}; do
  [ "${OPS_TOOLS_FULL:-1}" = 1 ] || break
  one "$op.profile-full-all" "$CLI" profile -o "$O/$op.full-all.wscope" --set full --cache-control all -- python3 "$PY" "$op"
  one "$op.profile-full-none" "$CLI" profile -o "$O/$op.full-none.wscope" --set full --cache-control none -- python3 "$PY" "$op"
  one "$op.profile-pcsampling" "$CLI" profile -o "$O/$op.pc.wscope" --pc-sampling -- python3 "$PY" "$op" --launches 2
done
# OPS_TOOLS_DIAG=1: the replay of the first op of OPS_TOOLS_PROFILE_OPS traced step by step
# (WS_PROFILE_TRACE) in variants that tell replay causes apart, and ncu on the same op.
if [ "${OPS_TOOLS_DIAG:-0}" = 1 ]; then
  op=${OPS_TOOLS_PROFILE_OPS:-conv2d_fp16}
  op=${op%% *}
  export WS_PROFILE_TRACE=1
  one "$op.diag-all-sol" "$CLI" profile -o "$O/d1.wscope" --section SpeedOfLight -- python3 "$PY" "$op" --launches 1
  one "$op.diag-none-sol" "$CLI" profile -o "$O/d2.wscope" --section SpeedOfLight --cache-control none -- python3 "$PY" "$op" --launches 1
  one "$op.diag-all-eager" env CUDA_MODULE_LOADING=EAGER "$CLI" profile -o "$O/d3.wscope" --section SpeedOfLight -- python3 "$PY" "$op" --launches 1
  one "$op.diag-all-only-xmma" "$CLI" profile -o "$O/d4.wscope" --section SpeedOfLight --kernel-name regex:xmma -- python3 "$PY" "$op" --launches 1
  one "$op.diag-none-cupti" env WS_PROFILE_NONE=cupti "$CLI" profile -o "$O/d5.wscope" --section SpeedOfLight --cache-control none -- python3 "$PY" "$op" --launches 1
  unset WS_PROFILE_TRACE
  one "$op.diag-ncu" ncu --section SpeedOfLight --clock-control none python3 "$PY" "$op" --launches 1
  grep -h "trace:" "$O/$op".diag-*.log | sort | uniq -c | sort -rn | head -40
  # Registers of index_add's kernel: CUPTI's activity record (record) against ncu's 32 and our 24.
  one index_add_atomics.regs-record "$CLI" record -o "$O/regs.wscope" -- python3 "$PY" index_add_atomics --launches 1
  python3 - "$O/regs.wscope" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
cols = [r[1] for r in db.execute("PRAGMA table_info(kernel)")]
print("kernel columns:", ",".join(cols))
want = [c for c in cols if "reg" in c or c in ("short_name", "name_id", "grid_x", "block_x")]
for row in db.execute(f"SELECT {','.join(want)} FROM kernel"):
    print(dict(zip(want, row)))
PY
fi
# OPS_TOOLS_REGS=1: index_add's registers as our launch capture reads them (the resolved function
# against the library kernel, printed by WS_PROFILE_TRACE) and as ncu reports them.
if [ "${OPS_TOOLS_REGS:-0}" = 1 ]; then
  WS_PROFILE_TRACE=1 one index_add_atomics.regs-trace "$CLI" profile -o "$O/regs-trace.wscope" --section LaunchStats -- python3 "$PY" index_add_atomics --launches 1
  grep -o 'indexFunc[^,]*\|registers [^)]*) (function), [^)]*)' "$O/index_add_atomics.regs-trace.log" | sort | uniq -c | head -20
  python3 - "$O/regs-trace.wscope" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
q = """SELECT s.text, k.registers_per_thread, m.value FROM kernel k JOIN string s ON s.id = k.short_name
       JOIN kernel_metric m ON m.kernel_id = k.id JOIN metric_def d ON d.id = m.metric_id
       WHERE d.name = 'launch__registers_per_thread'"""
try:
    for name, rec, metric in db.execute(q):
        print(f"profiled {name}: kernel record {rec} registers, launch__registers_per_thread {metric}")
except sqlite3.Error as e:
    print("registers query:", e)
PY
  one index_add_atomics.regs-ncu ncu --section LaunchStats --clock-control none -k regex:indexFunc python3 "$PY" index_add_atomics --launches 1
  grep -i -E 'Registers Per Thread|indexFunc' "$O/index_add_atomics.regs-ncu.log" | head -10
fi
while read -r op _; do
  [ -n "${OPS_TOOLS_OPS:-}" ] && [[ " $OPS_TOOLS_OPS " != *" $op "* ]] && continue
  one "$op.alone" python3 "$PY" "$op"
  one "$op.record" "$CLI" record -o "$O/$op.trace.wscope" -- python3 "$PY" "$op"
  one "$op.profile-basic" "$CLI" profile -o "$O/$op.basic.wscope" -- python3 "$PY" "$op"
done < <(python3 "$PY" --list)
rm -f "$O"/*.wscope
