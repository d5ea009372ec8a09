#!/usr/bin/env bash
# The main job: installs what is missing, builds, and opens Warpscope.
# - With an NVIDIA GPU and the CUDA toolkit: records the built-in workload (BF16 4096^3 cuBLAS
#   GEMM + ReLU, examples/cuda/gemm_relu.cu): a trace, a --set full profile of every launch, PC
#   sampling of the GEMM and a benchmark, into one session, and opens it.
# - Otherwise: opens the embedded demo session, recorded on an NVIDIA H200.
# Without a display it runs the app under Xvfb, saves a screenshot and prints the CLI summary.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/warpscope-ccache}"
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)"
bin=build/release/bin

session=""
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 && [ -x "$bin/ws-example-gemm-relu" ]; then
  session=build/release/gemm-relu.wscope
  prog=("$bin/ws-example-gemm-relu" --warmup 3 --iters 20)
  echo "== GPU found: recording the built-in workload into $session (trace, --set full profile, PC sampling of"
  echo "   the GEMM, benchmark: four runs of one program in one session, as the demo was recorded)"
  "$bin/warpscope-cli" record -o "$session" -- "${prog[@]}"
  # Each collector appends its run; a failed one is marked in the session and the rest go on.
  "$bin/warpscope-cli" profile --set full --append "$session" -- "${prog[@]}" || true
  "$bin/warpscope-cli" profile --pc-sampling --kernel-name regex:nvjet --launch-count 1 --append "$session" \
    -- "${prog[@]}" || true
  "$bin/warpscope-cli" bench --append "$session" --workload gemm-relu --size 4096 --dtype bf16 || true
else
  session=resources/demo/h200-gemm-relu.wscope
  echo "== no GPU here: opening the embedded demo session recorded on an H200 ($session)"
fi

if [ -f "$session" ]; then
  "$bin/warpscope-cli" info "$session"
  "$bin/warpscope-cli" stats "$session" --report cuda_gpu_kern_sum
fi

if [ -n "${DISPLAY:-}" ]; then
  exec "$bin/warpscope" "$session"
fi
shot=build/release/warpscope-main.png
echo "== no DISPLAY: running the app under Xvfb and saving a screenshot to $shot"
xvfb-run -a -s '-screen 0 1920x1080x24' "$bin/warpscope" --screenshot "$shot" --quit-after 8000 "$session"
echo "screenshot: $shot"
