# SPDX-License-Identifier: MIT
"""Shared by the fleet tests: paths, one LocalCluster per test module, and brute-force
single-process computations of every recipe written with sqlite3 and plain Python only (no
pandas, no warpscope.fleet code), so they can disagree with the recipes."""

import bisect
import os
import re
import sqlite3
import statistics

try:
    import distributed  # noqa: F401
    import pandas  # noqa: F401
except ImportError as e:
    raise ImportError(f"{e}: warpscope.fleet needs python3-dask, python3-distributed and python3-pandas "
                      "(scripts/install-deps.sh installs them)") from e

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
DDP = os.path.join(REPO, "tests", "fixtures", "multigpu", "ddp-2gpu.wscope")
DDP_COMM_CSV = os.path.join(REPO, "tests", "fixtures", "multigpu", "comm_overlap.csv")


def start_cluster():
    from dask.distributed import Client, LocalCluster
    import logging

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                           silence_logs=logging.ERROR)
    return cluster, Client(cluster)


def _db(path):
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True)


def _ranks(db):
    out = {}
    for key, value in db.execute("SELECT key, value FROM meta WHERE key LIKE 'rank.%'"):
        out[int(key.split(".")[1])] = int(value)
    return out


def _kernels(db):
    """(pid, device, start, end, name) with name the short name."""
    return db.execute("""SELECT k.pid, k.device_id, k.start, k."end", s.text FROM kernel k
                         JOIN string s ON s.id = k.short_name""").fetchall()


def is_nccl(name):
    return name.startswith("ncclDevKernel") or name.startswith("ncclKernel")


def brute_steps(paths):
    """{(path, pid): {step: (step_ns, kernel_ns)}} from NVTX ranges named 'step N'."""
    out = {}
    for p in paths:
        db = _db(p)
        ks = _kernels(db)
        for pid, name, s, e in db.execute("""SELECT r.pid, t.text, r.start, r."end" FROM nvtx_range r
                                             JOIN string t ON t.id = r.name WHERE r."end" > r.start"""):
            m = re.fullmatch(r"step (-?\d+)", name)
            if not m:
                continue
            kns = sum(ke - kst for kp, _, kst, ke, _ in ks if kp == pid and s <= kst < e)
            out.setdefault((p, pid), {})[int(m.group(1))] = (e - s, kns)
        db.close()
    return out


def brute_stragglers(steps, k=5.0, min_rel=0.01):
    """{(path, pid, step)} flagged: slower than the step's median by > k MAD and > min_rel median."""
    flagged = set()
    all_steps = sorted({s for v in steps.values() for s in v})
    for step in all_steps:
        vals = {key: v[step][0] for key, v in steps.items() if step in v}
        med = statistics.median(vals.values())
        mad = statistics.median(abs(x - med) for x in vals.values())
        for key, x in vals.items():
            if x - med > k * mad and x - med > min_rel * med:
                flagged.add((key[0], key[1], step))
    return flagged


def _union(iv):
    out = []
    for s, e in sorted(iv):
        if e <= s:
            continue
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def _overlap(a, b):
    total, ends = 0, [x[1] for x in b]
    for s, e in a:
        for s2, e2 in b[bisect.bisect_right(ends, s):]:
            if s2 >= e:
                break
            total += max(0, min(e, e2) - max(s, s2))
    return total


def brute_comm(paths):
    """{(path, pid): (comm_ops, comm_ns, compute_kernels, compute_ns, overlap_ns)} per pid."""
    out = {}
    for p in paths:
        db = _db(p)
        by = {}
        for pid, dev, s, e, name in _kernels(db):
            by.setdefault(pid, ([], []))[0 if is_nccl(name) else 1].append((s, e))
        db.close()
        for pid, (comm, comp) in by.items():
            cu, pu = _union(comm), _union(comp)
            out[(p, pid)] = (len(comm), sum(e - s for s, e in cu), len(comp), sum(e - s for s, e in pu),
                             _overlap(cu, pu))
    return out


def brute_idle(paths):
    """{(path, pid): (busy_ns, idle_ns, gaps)} over kernels, memcpys and memsets."""
    out = {}
    for p in paths:
        db = _db(p)
        by = {}
        for t in ("kernel", "memcpy", "memset"):
            for pid, s, e in db.execute(f'SELECT pid, start, "end" FROM {t}'):
                by.setdefault(pid, []).append((s, e))
        db.close()
        for pid, iv in by.items():
            u = _union(iv)
            busy = sum(e - s for s, e in u)
            out[(p, pid)] = (busy, (u[-1][1] - u[0][0]) - busy, len(u) - 1)
    return out


def brute_kernel_time(paths):
    """{(path, pid, name): (calls, total_ns)}."""
    out = {}
    for p in paths:
        db = _db(p)
        for pid, dev, s, e, name in _kernels(db):
            c, t = out.get((p, pid, name), (0, 0))
            out[(p, pid, name)] = (c + 1, t + e - s)
        db.close()
    return out


def ranks_of(paths):
    out = {}
    for p in paths:
        db = _db(p)
        for pid, r in _ranks(db).items():
            out[(p, pid)] = r
        db.close()
    return out
