# SPDX-License-Identifier: MIT
# Sourced by the device jobs that run the profiler and ncu, once they have set O (their output
# folder): the folder, the job's log (device.log in it, and the terminal), the CUDA and CUPTI
# libraries, the sections the CLI reads, the staged binaries made executable, and the paths of
# the CLI, ncu and scripts/device.
mkdir -p "$O"
exec > >(tee "$O/device.log") 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export WS_SECTIONS_DIR=$PWD/resources/sections
chmod u+x "$WS_DEVICE_BIN"/* 2>/dev/null
CLI=$WS_DEVICE_BIN/warpscope-cli
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
HERE=$PWD/scripts/device
