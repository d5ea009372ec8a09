#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Prints what a Warpscope session holds (read straight from its SQLite tables): processes and
exit status, meta, devices, kernel names and counts, graph ids, NVTX ranges, API calls.

    scripts/device/session-summary.py run.wscope [more.wscope ...]
"""
import collections
import sqlite3
import sys


def summarize(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    s = dict(db.execute("select id, text from string"))
    meta = dict(db.execute("select key, value from meta"))
    env = dict(db.execute("select key, value from environment"))
    print(f"=== {path}")
    for pid, name, code, sig, ppid in db.execute(
        "select pid, name, exit_code, exit_signal, parent_pid from process order by pid"
    ):
        print(f"process {pid} (parent {ppid}) {name}: exit_code={code} exit_signal={sig}")
    for k in ("target_exit", "dropped_records", "kernels_joined_to_api", "raw_files", "raw_files_truncated",
              "processes_without_end_record", "nvtx_unclosed_ranges", "nvtx_unmatched_ends", "host_only",
              "gpu_status", "recorder_messages", "incomplete_gpu_records"):
        if k in meta:
            print(f"meta {k} = {meta[k]}")
    for k in ("cupti_version", "cupti_library", "cuda_version", "cuda_runtime_version", "driver_version"):
        if k in env:
            print(f"env {k} = {env[k]}")
    for row in db.execute(
        "select id, name, cc_major, cc_minor, sm_count, sm_clock_khz, sm_clock_max_khz, mem_clock_khz, "
        "mem_bus_width_bits, l2_bytes, dram_bw_bytes_per_s, peak_bf16_tensor_flops, peak_fp32_flops from device"
    ):
        print("device", row)
    kernels = collections.Counter()
    durations = collections.defaultdict(list)
    graphs = collections.Counter()
    for name, dur, gid in db.execute(
        "select demangled_name, end - start, graph_id from kernel"
    ):
        kernels[s[name]] += 1
        durations[s[name]].append(dur)
        if gid:
            graphs[gid] += 1
    print(f"kernels: {sum(kernels.values())} in {len(kernels)} names; graph kernels per graph id: {dict(graphs)}")
    for name, n in kernels.most_common(12):
        d = sorted(durations[name])
        print(f"  {n:7d} x median {d[len(d) // 2] / 1e3:10.3f} us  {name[:110]}")
    apis = collections.Counter(s[n] for (n,) in db.execute("select name from api_call"))
    print(f"api calls: {sum(apis.values())}: {dict(apis.most_common(10))}")
    ranges = collections.Counter(s[n] for (n,) in db.execute("select name from nvtx_range"))
    print(f"nvtx ranges: {sum(ranges.values())}: {dict(ranges.most_common(12))}")
    marks = [s[n] for (n,) in db.execute("select name from nvtx_mark")]
    print(f"nvtx marks: {marks[:10]}")
    for table in ("memcpy", "memset", "sync", "overhead", "thread", "stream"):
        print(f"{table}: {db.execute(f'select count(*) from {table}').fetchone()[0]}")


if __name__ == "__main__":
    for p in sys.argv[1:]:
        try:
            summarize(p)
        except Exception as e:  # keep going: the other sessions still matter
            print(f"=== {p}: cannot read: {e}")
