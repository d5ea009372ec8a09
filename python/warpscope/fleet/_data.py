# SPDX-License-Identifier: MIT
"""What every fleet mapper reads from one session: its ranks, its traced kernels (names joined,
communication classified) and its step ranges, plus the interval arithmetic of
core/analysis/commoverlap.cpp. Queries go through Session.sql and select only the columns a
recipe needs, so a mapper over a large session never builds the full `kernels` frame."""

import re

import numpy as np
import pandas as pd

# ---- communication names (a port of core/analysis/commkernels.cpp, same rules) ----


def _mangled_base(name):
    p, n = 2, len(name)
    if p < n and name[p] == "L":
        p += 1
    nested = p < n and name[p] == "N"
    if nested:
        p += 1
        while p < n and name[p] in "KVr":
            p += 1
    last = None
    while p < n and name[p].isdigit():
        length = 0
        while p < n and name[p].isdigit():
            length = length * 10 + int(name[p])
            if length > n:
                return name
            p += 1
        if length == 0 or p + length > n:
            return name
        last = name[p:p + length]
        p += length
        if not nested:
            break
    return last if last else name


def _demangled_base(name):
    anon = "(anonymous namespace)"
    end, depth, i = len(name), 0, 0
    while i < len(name):
        c = name[i]
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
        elif c == "(" and depth == 0:
            if name.startswith(anon, i):
                i += len(anon)
                continue
            end = i
            break
        i += 1
    head = name[:end]
    for j in range(1, len(head)):
        if head[j] == "<":
            head = head[:j]
            break
    head = head.rstrip(" ")
    cut = max(head.rfind(c) for c in " :)*&")
    return head if cut < 0 else head[cut + 1:]


def base_identifier(name):
    """The identifier a kernel is called by: "ncclDevKernel_AllReduce_Sum_f32_RING_LL" for its
    demangled or mangled form (commBaseIdentifier in C++)."""
    name = name.lstrip()
    return _mangled_base(name) if name.startswith("_Z") else _demangled_base(name)


def is_communication_name(name):
    """NCCL kernels (any NCCL version's naming), PyTorch's "nccl:" op names and peer copies:
    the same verdict as classifyCommName in core/analysis/commkernels.cpp."""
    if not name:
        return False
    if name == "[CUDA memcpy Peer-to-Peer]" or name.startswith("nccl:"):
        return True
    base = base_identifier(name)
    return len(base) > 4 and base.startswith("nccl") and "A" <= base[4] <= "Z"


# ---- ranks ----

_RANK_KEY = re.compile(r"^(rank|local_rank|world_size)\.(\d+)$")


def ranks(session):
    """{pid: {"rank", "local_rank", "world_size"}} from the session's meta (commranks.h); values
    that are not integers are ignored, absent ones are -1."""
    out = {}
    for key, value in session.meta.items():
        m = _RANK_KEY.match(key)
        if not m:
            continue
        try:
            v = int(value)
        except (TypeError, ValueError):
            continue
        out.setdefault(int(m.group(2)), {"rank": -1, "local_rank": -1, "world_size": -1})[m.group(1)] = v
    return out


def _traced_runs_filter(session, alias):
    """Profile and PC-sampling runs replay kernels; fleet numbers count the traced timeline only."""
    if "run" not in session._tables or "run_id" not in session._columns("kernel"):
        return ""
    return f" AND {alias}.run_id IN (SELECT id FROM run WHERE kind IN ('trace', 'import'))"


def kernels(session):
    """Traced kernels: pid, device_id, start, end, name (short name, else demangled, else
    mangled) and comm (True for NCCL/communication kernels), in start order."""
    k = session.sql(f"""SELECT pid, device_id, start, "end", short_name, demangled_name, mangled_name
                        FROM kernel k WHERE 1 {_traced_runs_filter(session, 'k')}""")
    if k.empty:
        return pd.DataFrame({"pid": pd.Series(dtype="int64"), "device_id": pd.Series(dtype="int64"),
                             "start": pd.Series(dtype="int64"), "end": pd.Series(dtype="int64"),
                             "name": pd.Series(dtype="object"), "comm": pd.Series(dtype="bool")})
    ids = pd.unique(k[["short_name", "demangled_name", "mangled_name"]].to_numpy().ravel())
    ids = [int(i) for i in ids if i is not None and not pd.isna(i)]
    text = dict(session._rows(f"SELECT id, text FROM string WHERE id IN ({','.join(map(str, ids)) or '0'})"))
    text[0] = ""
    # Kernels of one name triple share their verdict: classify each triple once.
    triples = k[["short_name", "demangled_name", "mangled_name"]].drop_duplicates()
    verdict, label = {}, {}
    for s, d, m in triples.itertuples(index=False):
        names = [text.get(int(s), ""), text.get(int(d), ""), text.get(int(m), "")]
        verdict[(s, d, m)] = any(is_communication_name(n) for n in names)
        label[(s, d, m)] = next((n for n in names if n), "")
    keys = list(zip(k["short_name"], k["demangled_name"], k["mangled_name"]))
    out = k[["pid", "device_id", "start", "end"]].copy()
    out["name"] = [label[t] for t in keys]
    out["comm"] = np.fromiter((verdict[t] for t in keys), dtype=bool, count=len(keys))
    return out.sort_values(["start", "end"], kind="stable").reset_index(drop=True)


def memcpy_peer(session):
    """Peer-to-peer copies (CopyKind::PtoP in core/model/records.h) count as communication."""
    if "memcpy" not in session._tables:
        return pd.DataFrame(columns=["pid", "device_id", "start", "end"])
    runs = _traced_runs_filter(session, "m") if "run_id" in session._columns("memcpy") else ""
    return session.sql(f"""SELECT pid, device_id, start, "end" FROM memcpy m
                           WHERE copy_kind = {PTOP_COPY_KIND} {runs}""")


def gpu_work(session):
    """Every traced kernel, memcpy and memset: pid, device_id, start, end (the GPU-busy union)."""
    parts = [kernels(session)[["pid", "device_id", "start", "end"]]]
    for table in ("memcpy", "memset"):
        if table in session._tables:
            runs = _traced_runs_filter(session, "t") if "run_id" in session._columns(table) else ""
            parts.append(session.sql(f'SELECT pid, device_id, start, "end" FROM {table} t WHERE 1 {runs}'))
    return pd.concat(parts, ignore_index=True)


PTOP_COPY_KIND = 10  # CopyKind::PtoP, core/model/records.h


# ---- steps ----

DEFAULT_STEP_PATTERN = r"(?i)^(?:train[ _-]?)?step[\s_#:=]*(-?\d+)$"


def step_ranges(session, pattern=DEFAULT_STEP_PATTERN):
    """NVTX ranges whose name matches `pattern`: pid, step, start, end, range (the range's name,
    which the app's compare window uses as the iteration range). The pattern's first group is the
    step number; without a group, instances are numbered 0, 1, ... in start order per pid."""
    rx = re.compile(pattern)
    if "nvtx_range" not in session._tables:
        return pd.DataFrame(columns=["pid", "step", "start", "end", "range"])
    names = {i: t for i, t in session._rows("SELECT id, text FROM string WHERE id IN "
                                             "(SELECT DISTINCT name FROM nvtx_range)")}
    hits = {i: rx.match(t or "") for i, t in names.items()}
    hits = {i: m for i, m in hits.items() if m}
    if not hits:
        return pd.DataFrame(columns=["pid", "step", "start", "end", "range"])
    r = session.sql(f"""SELECT pid, name, start, "end" FROM nvtx_range
                        WHERE "end" > start AND name IN ({','.join(map(str, hits))}) ORDER BY start""")
    if rx.groups:
        r["step"] = [int(hits[n].group(1)) for n in r["name"]]
    else:
        r["step"] = r.groupby("pid").cumcount()
    r["range"] = [names[n] for n in r["name"]]
    return r[["pid", "step", "start", "end", "range"]]


def iteration_steps(k):
    """Steps without NVTX ranges, per pid: each launch of the pid's most frequent kernel (ties:
    the one launched first) starts a step, as core/compare/iterations.cpp finds iterations; a
    step ends where the next begins, the last at the pid's last kernel end."""
    rows = []
    for pid, g in k.groupby("pid", sort=True):
        counts = g.groupby("name", sort=False).agg(n=("start", "size"), first=("start", "min"))
        period = counts.sort_values(["n", "first"], ascending=[False, True]).index[0]
        starts = g.loc[g["name"] == period, "start"].to_numpy()
        ends = np.append(starts[1:], g["end"].max())
        rows += [{"pid": pid, "step": i, "start": int(s), "end": int(e), "range": ""} for i, (s, e) in enumerate(zip(starts, ends))]
    return pd.DataFrame(rows, columns=["pid", "step", "start", "end", "range"])


# ---- intervals: [start, end) integer ns, as commoverlap.cpp ----


def union(starts, ends):
    """Sorted, disjoint, non-adjacent intervals as two int64 arrays; empty ones dropped."""
    s = np.asarray(starts, dtype=np.int64)
    e = np.asarray(ends, dtype=np.int64)
    keep = e > s
    s, e = s[keep], e[keep]
    if len(s) == 0:
        return s, e
    order = np.lexsort((e, s))
    s, e = s[order], e[order]
    run_end = np.maximum.accumulate(e)
    new = np.empty(len(s), dtype=bool)
    new[0] = True
    new[1:] = s[1:] > run_end[:-1]
    idx = np.flatnonzero(new)
    out_s = s[idx]
    out_e = np.append(run_end[idx[1:] - 1], run_end[-1]) if len(idx) else run_end[:0]
    return out_s, out_e


def length(u):
    return int((u[1] - u[0]).sum())


def _covered_before(u, t):
    """Length of union u below each time in t (vectorised)."""
    s, e = u
    if len(s) == 0:
        return np.zeros(len(t), dtype=np.int64)
    cum = np.concatenate(([0], np.cumsum(e - s)))
    k = np.searchsorted(e, t, side="right")  # intervals ended by t
    partial = np.where(k < len(s), np.clip(t - s[np.minimum(k, len(s) - 1)], 0, None), 0)
    return cum[k] + partial


def intersection_length(a, b):
    """Length of the intersection of two union() results: for each interval of a, how much of b
    lies below its end minus below its start."""
    if len(a[0]) == 0 or len(b[0]) == 0:
        return 0
    return int((_covered_before(b, a[1]) - _covered_before(b, a[0])).sum())


def intersection_length_sweep(a, b):
    """The same by commoverlap.cpp's linear sweep (kept as the brute-force reference of tests)."""
    (a_s, a_e), (b_s, b_e) = a, b
    total, i, j = 0, 0, 0
    while i < len(a_s) and j < len(b_s):
        lo = max(a_s[i], b_s[j])
        hi = min(a_e[i], b_e[j])
        if hi > lo:
            total += int(hi - lo)
        if a_e[i] < b_e[j]:
            i += 1
        else:
            j += 1
    return total
