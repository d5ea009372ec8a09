# SPDX-License-Identifier: MIT
"""Synthetic rank sessions for scale tests: a real recorded rank, copied N times with its
timeline stretched per step, one rank planted as a straggler.

core/synth (warpscope-cli synth) writes one process with random kernels: no ranks, no NCCL,
no steps. A fleet test needs all three, so this starts from one rank of a real DDP recording
(tests/fixtures/multigpu/ddp-2gpu.wscope: NCCL kernels, NVTX "step N" ranges) and rewrites
times with SQLite, each rank its own file. Within step i's segment [start_i, start_{i+1}) every
time t becomes S_i + round((t - start_i) * f[rank][i]) (S_i the new segment start), so step i's
NVTX range lasts round(duration * f) and every event keeps its order. f is 1 + jitter (uniform,
+- `jitter`, seeded per rank); the straggler's is 1 + `slowdown` on every step."""

import bisect
import os
import random
import shutil
import sqlite3

# Tables with a pid column that belong to one process; the template keeps one process's rows.
_PER_PID = ("kernel", "api_call", "nvtx_range", "nvtx_mark", "memcpy", "memset", "sync", "overhead",
            "thread", "stream", "process", "device")
# Time columns rewritten per table (0 = unset values stay 0: they lie before the first step).
_TIMES = {"kernel": ("start", "end", "queued", "submitted"), "api_call": ("start", "end"),
          "nvtx_range": ("start", "end"), "nvtx_mark": ("ts",), "memcpy": ("start", "end"),
          "memset": ("start", "end"), "sync": ("start", "end"), "overhead": ("start", "end")}


def _tables(db):
    return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def make_template(source, pid, output):
    """One process of `source` as its own session at `output`: other processes' rows, the lane
    cache and the checksums (table_check: rows changed, so the old hashes would not match and the
    C++ reader skips tables it has no check for) removed, rank meta of other pids dropped."""
    shutil.copyfile(source, output)
    db = sqlite3.connect(output)
    try:
        tables = _tables(db)
        for t in _PER_PID:
            if t in tables:
                db.execute(f"DELETE FROM {t} WHERE pid != ?", (pid,))
        for t in ("lane_blob", "table_check"):
            if t in tables:
                db.execute(f"DELETE FROM {t}")
        db.execute("DELETE FROM meta WHERE (key LIKE 'rank.%' OR key LIKE 'local_rank.%' OR key LIKE 'world_size.%') "
                   "AND key NOT LIKE ?", (f"%.{pid}",))
        db.commit()
        db.execute("VACUUM")
    finally:
        db.close()
    return output


def step_starts(db, pattern_prefix="step "):
    """Start times of the template's NVTX step ranges, sorted."""
    rows = db.execute("""SELECT r.start FROM nvtx_range r JOIN string s ON s.id = r.name
                         WHERE s.text LIKE ? ORDER BY r.start""", (pattern_prefix + "%",)).fetchall()
    return [r[0] for r in rows]


def factors(rank, steps, jitter, straggler, slowdown, seed):
    """Per-step stretch factors of one rank (deterministic in rank and seed)."""
    rng = random.Random(seed * 1_000_003 + rank)
    if rank == straggler:
        return [1.0 + slowdown] * steps
    return [1.0 + rng.uniform(-jitter, jitter) for _ in range(steps)]


def write_rank(template, output, rank, world_size, straggler, jitter=0.02, slowdown=0.25, seed=1):
    """Rank `rank`'s session at `output`; returns its per-step factors."""
    shutil.copyfile(template, output)
    db = sqlite3.connect(output)
    try:
        starts = step_starts(db)
        f = factors(rank, len(starts), jitter, straggler, slowdown, seed)
        new_starts = [starts[0]]
        for i in range(len(starts) - 1):
            new_starts.append(new_starts[-1] + round((starts[i + 1] - starts[i]) * f[i]))

        def warp(t):
            if t is None or t < starts[0]:
                return t
            i = bisect.bisect_right(starts, t) - 1
            return new_starts[i] + round((t - starts[i]) * f[i])

        db.create_function("warp", 1, warp, deterministic=True)
        tables = _tables(db)
        for table, cols in _TIMES.items():
            if table in tables:
                db.execute(f"UPDATE {table} SET " + ", ".join(f'"{c}" = warp("{c}")' for c in cols))
        (pid,) = db.execute("SELECT pid FROM process LIMIT 1").fetchone()
        db.execute("DELETE FROM meta WHERE key LIKE 'rank.%' OR key LIKE 'local_rank.%' OR key LIKE 'world_size.%'")
        db.executemany("INSERT INTO meta(key, value) VALUES (?, ?)",
                       [(f"rank.{pid}", str(rank)), (f"local_rank.{pid}", str(rank % 8)),
                        (f"world_size.{pid}", str(world_size)), ("synthetic_fleet_straggler", str(straggler)),
                        ("synthetic_fleet_factors", ",".join(f"{x:.6f}" for x in f))])
        db.commit()
    finally:
        db.close()
    return f


def write_fleet(directory, ranks, straggler, source, template_pid=None, jitter=0.02, slowdown=0.25, seed=1):
    """`ranks` sessions rank-00000.wscope ... in `directory` from one process of `source`
    (default: the process with rank 0). Returns the list of paths."""
    os.makedirs(directory, exist_ok=True)
    if template_pid is None:
        db = sqlite3.connect(f"file:{os.path.abspath(source)}?mode=ro", uri=True)
        try:
            row = db.execute("SELECT key FROM meta WHERE key LIKE 'rank.%' AND value = '0'").fetchone()
        finally:
            db.close()
        template_pid = int(row[0].split(".")[1])
    template = make_template(source, template_pid, os.path.join(directory, "template.tmp"))
    paths = []
    try:
        for r in range(ranks):
            p = os.path.join(directory, f"rank-{r:05d}.wscope")
            write_rank(template, p, r, ranks, straggler, jitter, slowdown, seed)
            paths.append(p)
    finally:
        os.remove(template)
    return paths
