# SPDX-License-Identifier: MIT
"""The built-in recipes. Every per-rank row carries `pid`, `rank` (meta rank.<pid>, -1 when the
launcher set none) and `device_id`; the runner adds `session`. A rank is a process: one
session may hold several (torchrun recorded as a whole) or one (one session per rank)."""

import numpy as np
import pandas as pd

from . import _data
from .recipe import Recipe, Skip


def _rank_of(ranks, pid):
    return ranks.get(int(pid), {}).get("rank", -1)


def _main_device(k):
    """pid -> the device it launched most kernels on (a DDP rank drives one GPU)."""
    if k.empty:
        return {}
    counts = k.groupby(["pid", "device_id"]).size().reset_index(name="n")
    counts = counts.sort_values(["pid", "n", "device_id"], ascending=[True, False, True])
    return dict(counts.drop_duplicates("pid")[["pid", "device_id"]].itertuples(index=False))


def robust_flags(values, k, min_rel):
    """Median, MAD (median absolute deviation, unscaled) and a flag per value: slower than the
    median by more than k * MAD, and by more than min_rel * median (so ranks that agree to the
    nanosecond, MAD 0, do not flag the one that is 1 ns slower)."""
    v = np.asarray(values, dtype=float)
    med = float(np.median(v))
    mad = float(np.median(np.abs(v - med)))
    flags = (v - med > k * mad) & (v - med > min_rel * med)
    return med, mad, flags


class StepTime(Recipe):
    name = "step_time"
    description = ("rank x step table of step times (NVTX step ranges, else iterations of the most frequent "
                   "kernel) with stragglers flagged: slower than the step's median over ranks by > k MAD")
    params = {"k": 5.0, "min_rel": 0.01, "step_pattern": _data.DEFAULT_STEP_PATTERN}

    def map(self, session, step_pattern=_data.DEFAULT_STEP_PATTERN, **_):
        k = _data.kernels(session)
        steps = _data.step_ranges(session, step_pattern)
        basis = "nvtx"
        if steps.empty:
            if k.empty:
                raise Skip(f"{session.path}: no NVTX step ranges and no kernels")
            steps, basis = _data.iteration_steps(k), "iterations"
        ranks, devices = _data.ranks(session), _main_device(k)
        rows = []
        for pid, g in steps.groupby("pid", sort=True):
            kp = k[k["pid"] == pid]
            starts, durs = kp["start"].to_numpy(), (kp["end"] - kp["start"]).to_numpy()
            order = np.argsort(starts, kind="stable")
            starts, csum = starts[order], np.concatenate(([0], np.cumsum(durs[order])))
            lo = np.searchsorted(starts, g["start"].to_numpy(), side="left")
            hi = np.searchsorted(starts, g["end"].to_numpy(), side="left")
            for (step, s, e, name), a, b in zip(g[["step", "start", "end", "range"]].itertuples(index=False), lo, hi):
                rows.append({"pid": int(pid), "rank": _rank_of(ranks, pid), "device_id": devices.get(pid, -1),
                             "step": int(step), "start": int(s), "step_ns": int(e - s),
                             "kernels": int(b - a), "kernel_ns": int(csum[b] - csum[a]), "basis": basis,
                             "range": name})
        return pd.DataFrame(rows)

    def reduce(self, parts, k=5.0, min_rel=0.01, **_):
        t = parts["step_time"].copy()
        t["median_ns"], t["mad_ns"], t["straggler"] = 0.0, 0.0, 0
        for step, idx in t.groupby("step").groups.items():
            med, mad, flags = robust_flags(t.loc[idx, "step_ns"], k, min_rel)
            t.loc[idx, "median_ns"], t.loc[idx, "mad_ns"] = med, mad
            t.loc[idx, "straggler"] = flags.astype(int)
        t["slowdown"] = t["step_ns"] / t["median_ns"].where(t["median_ns"] > 0)
        t = t.sort_values(["rank", "session", "pid", "step"], kind="stable").reset_index(drop=True)
        per = t.groupby(["session", "pid", "rank", "device_id"], sort=False).agg(
            steps=("step", "size"), median_step_ns=("step_ns", "median"), mean_step_ns=("step_ns", "mean"),
            max_step_ns=("step_ns", "max"), straggler_steps=("straggler", "sum")).reset_index()
        med, mad, flags = robust_flags(per["median_step_ns"], k, min_rel)
        per["fleet_median_ns"], per["fleet_mad_ns"], per["straggler"] = med, mad, flags.astype(int)
        return {"step_time": t, "step_ranks": per}


class KernelTime(Recipe):
    name = "kernel_time"
    description = "GPU time per kernel name per rank, and each name's spread across ranks (kernel_diff)"
    params = {}

    def map(self, session, **_):
        k = _data.kernels(session)
        if k.empty:
            raise Skip(f"{session.path}: no traced kernels")
        ranks = _data.ranks(session)
        k["ns"] = k["end"] - k["start"]
        g = k.groupby(["pid", "device_id", "name"], sort=True).agg(
            calls=("ns", "size"), total_ns=("ns", "sum"), comm=("comm", "max")).reset_index()
        g["rank"] = [_rank_of(ranks, p) for p in g["pid"]]
        g["comm"] = g["comm"].astype(int)
        return g[["pid", "rank", "device_id", "name", "comm", "calls", "total_ns"]]

    def reduce(self, parts, **_):
        t = parts["kernel_time"].sort_values(["rank", "session", "pid", "name"], kind="stable").reset_index(drop=True)
        # Per rank (session, pid): a rank that never ran a kernel counts 0 ns for it.
        t["rank_key"] = t["session"] + "\x00" + t["pid"].astype(str)
        wide = t.pivot_table(index="name", columns="rank_key", values="total_ns", aggfunc="sum", fill_value=0)
        ranks_with = (wide > 0).sum(axis=1)
        idx_max, idx_min = wide.idxmax(axis=1), wide.idxmin(axis=1)
        label = t.drop_duplicates("rank_key").set_index("rank_key")["rank"]
        diff = pd.DataFrame({
            "name": wide.index, "ranks": ranks_with.to_numpy(), "min_ns": wide.min(axis=1).to_numpy(),
            "median_ns": wide.median(axis=1).to_numpy(), "max_ns": wide.max(axis=1).to_numpy(),
            "min_rank": label.reindex(idx_min).to_numpy(), "max_rank": label.reindex(idx_max).to_numpy()})
        diff["spread_ns"] = diff["max_ns"] - diff["min_ns"]
        diff["spread_pct"] = 100.0 * diff["spread_ns"] / diff["median_ns"].where(diff["median_ns"] > 0)
        diff = diff.sort_values(["spread_ns", "name"], ascending=[False, True], kind="stable").reset_index(drop=True)
        return {"kernel_time": t.drop(columns="rank_key"), "kernel_diff": diff}


class CommOverlap(Recipe):
    name = "comm_overlap"
    description = ("communication (NCCL kernels, peer copies) vs compute per rank and device: overlap and "
                   "exposed communication, as warpscope-cli stats -r comm_overlap")
    params = {}

    def map(self, session, **_):
        k = _data.kernels(session)
        peer = _data.memcpy_peer(session)
        if k.empty and peer.empty:
            raise Skip(f"{session.path}: no traced kernels")
        ranks = _data.ranks(session)
        comm = pd.concat([k.loc[k["comm"], ["pid", "device_id", "start", "end"]], peer], ignore_index=True)
        compute = k.loc[~k["comm"], ["pid", "device_id", "start", "end"]]
        rows = []
        keys = sorted(set(map(tuple, pd.concat([comm, compute])[["device_id", "pid"]].drop_duplicates().to_numpy())))
        for device, pid in keys:
            c = comm[(comm["device_id"] == device) & (comm["pid"] == pid)]
            p = compute[(compute["device_id"] == device) & (compute["pid"] == pid)]
            cu, pu = _data.union(c["start"], c["end"]), _data.union(p["start"], p["end"])
            comm_ns, overlap = _data.length(cu), _data.intersection_length(cu, pu)
            rows.append({"pid": int(pid), "rank": _rank_of(ranks, pid), "device_id": int(device),
                         "comm_ops": len(c), "comm_ns": comm_ns, "compute_kernels": len(p),
                         "compute_ns": _data.length(pu), "overlap_ns": overlap,
                         "overlap_pct": 100.0 * overlap / comm_ns if comm_ns else np.nan,
                         "exposed_comm_ns": comm_ns - overlap})
        return pd.DataFrame(rows)

    def reduce(self, parts, **_):
        t = parts["comm_overlap"].sort_values(["rank", "session", "pid", "device_id"], kind="stable")
        return {"comm_overlap": t.reset_index(drop=True)}


class GpuIdle(Recipe):
    name = "gpu_idle"
    description = ("GPU idle per rank and device: the holes in the union of its kernels, copies and memsets "
                   "between the first start and the last end; launch rate")
    params = {"min_gap_ns": 0}

    def map(self, session, min_gap_ns=0, **_):
        w = _data.gpu_work(session)
        if w.empty:
            raise Skip(f"{session.path}: no GPU work")
        k = _data.kernels(session)
        ranks = _data.ranks(session)
        rows = []
        for (pid, device), g in w.groupby(["pid", "device_id"], sort=True):
            s, e = _data.union(g["start"], g["end"])
            if len(s) == 0:
                continue
            gaps = s[1:] - e[:-1]
            span = int(e[-1] - s[0])
            busy = int((e - s).sum())
            n_kernels = int(((k["pid"] == pid) & (k["device_id"] == device)).sum())
            rows.append({"pid": int(pid), "rank": _rank_of(ranks, pid), "device_id": int(device),
                         "operations": len(g), "kernels": n_kernels, "first": int(s[0]), "span_ns": span,
                         "busy_ns": busy, "idle_ns": span - busy, "idle_pct": 100.0 * (span - busy) / span if span else 0.0,
                         "gaps": int((gaps >= max(min_gap_ns, 1)).sum()) if min_gap_ns else len(gaps),
                         "largest_gap_ns": int(gaps.max()) if len(gaps) else 0,
                         "launches_per_s": n_kernels / (span * 1e-9) if span else np.nan})
        return pd.DataFrame(rows)

    def reduce(self, parts, **_):
        t = parts["gpu_idle"].sort_values(["rank", "session", "pid", "device_id"], kind="stable")
        return {"gpu_idle": t.reset_index(drop=True)}


class TopKernels(Recipe):
    name = "top_kernels"
    description = "the N kernels with the most GPU time over the whole fleet, with their share and rank count"
    params = {"n": 20}

    def map(self, session, **_):
        k = _data.kernels(session)
        if k.empty:
            raise Skip(f"{session.path}: no traced kernels")
        k["ns"] = k["end"] - k["start"]
        g = k.groupby("name", sort=True).agg(calls=("ns", "size"), total_ns=("ns", "sum"),
                                            max_ns=("ns", "max"), comm=("comm", "max"),
                                            ranks=("pid", "nunique")).reset_index()
        g["comm"] = g["comm"].astype(int)
        return g

    def reduce(self, parts, n=20, **_):
        t = parts["top_kernels"]
        all_ns = t["total_ns"].sum()
        g = t.groupby("name", sort=True).agg(calls=("calls", "sum"), total_ns=("total_ns", "sum"),
                                            max_ns=("max_ns", "max"), comm=("comm", "max"),
                                            ranks=("ranks", "sum"), sessions=("session", "nunique")).reset_index()
        g["avg_ns"] = g["total_ns"] / g["calls"]
        g["pct"] = 100.0 * g["total_ns"] / all_ns if all_ns else np.nan
        g = g.sort_values(["total_ns", "name"], ascending=[False, True], kind="stable").head(int(n))
        return {"top_kernels": g.reset_index(drop=True)}


RECIPES = {r.name: r for r in (StepTime(), KernelTime(), CommOverlap(), GpuIdle(), TopKernels())}
