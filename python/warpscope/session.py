# SPDX-License-Identifier: MIT
"""warpscope.open(path): a session's tables as pandas DataFrames.

The file is opened read-only through SQLite's URI form (`file:...?mode=ro`), so nothing here can
change it; every query is a plain SELECT over the tables docs/session-format.md describes. Names
are joined from the `string` table, so a notebook never sees string ids."""

import builtins
import json
import os
import pathlib
import sqlite3

APPLICATION_ID = 0x57534350  # "WSCP", PRAGMA application_id of every session
SQLITE_MAGIC = b"SQLite format 3\x00"


class SessionError(Exception):
    """The file is missing, not a Warpscope session, or cannot be read. The message names the file."""


def _classify(path):
    """Reads the 100-byte SQLite header (application_id at offset 68, user_version at 60) before
    SQLite opens the file, so a stray file gets a clear message instead of a query error."""
    try:
        with builtins.open(path, "rb") as f:
            header = f.read(100)
    except OSError as e:
        raise SessionError(f"{path}: cannot read: {e.strerror}") from None
    if len(header) < 100 or not header.startswith(SQLITE_MAGIC):
        raise SessionError(f"{path}: not a Warpscope session (not an SQLite database)")
    app_id = int.from_bytes(header[68:72], "big")
    if app_id != APPLICATION_ID:
        raise SessionError(f"{path}: not a Warpscope session (SQLite application_id 0x{app_id:08X}, "
                           f"expected 0x{APPLICATION_ID:08X})")
    return int.from_bytes(header[60:64], "big")


class Session:
    """One open session. Tables are read on first use and kept; `close()` (or `with`) releases the file.

    DataFrames (all times in ns of the recording host's CLOCK_MONOTONIC, as stored):
      runs, kernels, api_calls, nvtx, nvtx_marks, memcpy, memset, metrics (long), metrics_wide,
      bench_runs, bench_samples, devices, processes; dicts: meta, environment."""

    def __init__(self, path):
        import pandas  # noqa: F401  (fail here, naming what is missing, rather than at the first table)

        self.path = os.fspath(path)
        self.schema_version = _classify(self.path)
        uri = pathlib.Path(self.path).resolve().as_uri() + "?mode=ro"
        try:
            self._db = sqlite3.connect(uri, uri=True)
            self._tables = {r[0] for r in self._db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        except sqlite3.DatabaseError as e:
            raise SessionError(f"{self.path}: not a readable Warpscope session ({e})") from None
        missing = {"meta", "string", "kernel"} - self._tables
        if missing:
            self.close()
            raise SessionError(f"{self.path}: not a Warpscope session (no table {', '.join(sorted(missing))})")
        self._cache = {}

    # ---- plumbing ----

    def close(self):
        if getattr(self, "_db", None) is not None:
            self._db.close()
            self._db = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return f"<warpscope.Session {self.path!r} schema v{self.schema_version}>"

    def _rows(self, query):
        """Raw rows; SQLite errors (a corrupt page met late) become SessionError naming the file."""
        if self._db is None:
            raise SessionError(f"{self.path}: the session is closed")
        try:
            return self._db.execute(query).fetchall()
        except sqlite3.DatabaseError as e:
            raise SessionError(f"{self.path}: {e}") from None

    def _columns(self, table):
        return [r[1] for r in self._rows(f"PRAGMA table_info({table})")]

    def _run_id(self, table, alias):
        # v1 files have no run_id: every row belongs to run 1 (docs/session-format.md, "v1 files").
        return f"{alias}.run_id" if "run_id" in self._columns(table) else "1"

    def sql(self, query, params=()):
        """Any read-only query as a DataFrame (the connection is read-only; a write raises)."""
        import pandas

        if self._db is None:
            raise SessionError(f"{self.path}: the session is closed")
        try:
            return pandas.read_sql_query(query, self._db, params=params)
        except (sqlite3.DatabaseError, pandas.errors.DatabaseError) as e:
            raise SessionError(f"{self.path}: {e}") from None

    def _cached(self, key, make):
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    def table(self, name):
        """A table as stored (string ids not joined); an empty DataFrame for a table the file lacks."""
        import pandas

        if name not in self._tables:
            return pandas.DataFrame()
        return self.sql(f'SELECT * FROM "{name}"')

    # ---- key/value tables ----

    @property
    def meta(self):
        return self._cached("meta", lambda: dict(self._rows("SELECT key, value FROM meta")))

    @property
    def environment(self):
        def read():
            if "environment" not in self._tables:
                return {}
            return dict(self._rows("SELECT key, value FROM environment"))

        return self._cached("environment", read)

    # ---- runs ----

    @property
    def runs(self):
        """One row per run (trace, profile, pc-sampling, bench, import); `options` and `environment`
        parsed from JSON. A v1 file gets the one run it implies (id 1)."""

        def read():
            import pandas

            if "run" in self._tables:
                df = self.sql("SELECT * FROM run ORDER BY id")
                for col in ("options", "environment"):
                    df[col] = df[col].map(_parse_json)
                return df
            meta = self.meta
            kind = meta.get("session_kind") or meta.get("kind") or ("bench" if self._count("bench_run") and
                                                                     not self._count("kernel") else "trace")
            return pandas.DataFrame([{"id": 1, "kind": kind,
                                      "command_line": self.environment.get("command_line", ""),
                                      "cwd": "", "environment": {}, "host": "", "user": "",
                                      "start_realtime_ns": 0, "end_realtime_ns": 0, "options": dict(meta)}])

        return self._cached("runs", read)

    def _count(self, table):
        if table not in self._tables:
            return 0
        return self._rows(f'SELECT count(*) FROM "{table}"')[0][0]

    # ---- event tables ----

    @property
    def kernels(self):
        """Every kernel launch of every run, names joined: `name` (demangled), `short_name`,
        `mangled_name`; `duration` = end - start (ns); `run_kind` from the run table."""

        def read():
            df = self.sql(f"""
                SELECT k.id, {self._run_id('kernel', 'k')} AS run_id, k.pid, k.device_id, k.context_id,
                       k.stream_id, k.correlation_id, k.start, k."end", k."end" - k.start AS duration,
                       d.text AS name, s.text AS short_name, m.text AS mangled_name,
                       k.grid_x, k.grid_y, k.grid_z, k.block_x, k.block_y, k.block_z,
                       k.cluster_x, k.cluster_y, k.cluster_z, k.registers_per_thread, k.static_smem,
                       k.dynamic_smem, k.local_mem_per_thread, k.queued, k.submitted, k.graph_id, k.graph_node_id
                FROM kernel k
                LEFT JOIN string d ON d.id = k.demangled_name
                LEFT JOIN string s ON s.id = k.short_name
                LEFT JOIN string m ON m.id = k.mangled_name
                ORDER BY k.id""")
            return self._with_run_kind(df)

        return self._cached("kernels", read)

    @property
    def kernel_links(self):
        """Profile / PC-sampling launch -> the traced launch it corresponds to (v2 merged sessions)."""
        return self._cached("kernel_links", lambda: self.table("kernel_link"))

    @property
    def api_calls(self):
        """CUDA runtime (domain 0) and driver (domain 1) calls, `name` joined; `duration` in ns."""

        def read():
            df = self.sql(f"""
                SELECT a.id, {self._run_id('api_call', 'a')} AS run_id, a.pid, a.tid, a.correlation_id,
                       a.start, a."end", a."end" - a.start AS duration, n.text AS name,
                       CASE a.domain WHEN 0 THEN 'runtime' WHEN 1 THEN 'driver' ELSE '' END AS domain,
                       a.cbid, a.return_value
                FROM api_call a LEFT JOIN string n ON n.id = a.name ORDER BY a.id""")
            return self._with_run_kind(df)

        return self._cached("api_calls", read)

    @property
    def nvtx(self):
        """NVTX ranges: `name`, `domain` ('' = default) joined; `style` push/pop or start/end."""

        def read():
            df = self.sql(f"""
                SELECT r.id, {self._run_id('nvtx_range', 'r')} AS run_id, r.pid, r.tid, r.end_tid,
                       r.start, r."end", r."end" - r.start AS duration, n.text AS name, d.text AS domain,
                       r.category, r.color, CASE r.style WHEN 0 THEN 'push/pop' ELSE 'start/end' END AS style,
                       r.depth
                FROM nvtx_range r LEFT JOIN string n ON n.id = r.name LEFT JOIN string d ON d.id = r.domain
                ORDER BY r.id""")
            return self._with_run_kind(df)

        return self._cached("nvtx", read)

    @property
    def nvtx_marks(self):
        def read():
            return self.sql(f"""
                SELECT m.id, {self._run_id('nvtx_mark', 'm')} AS run_id, m.pid, m.tid, m.ts,
                       n.text AS name, d.text AS domain, m.category, m.color
                FROM nvtx_mark m LEFT JOIN string n ON n.id = m.name LEFT JOIN string d ON d.id = m.domain
                ORDER BY m.id""")

        return self._cached("nvtx_marks", read)

    @property
    def memcpy(self):
        return self._cached("memcpy", lambda: self.table("memcpy"))

    @property
    def memset(self):
        return self._cached("memset", lambda: self.table("memset"))

    @property
    def devices(self):
        return self._cached("devices", lambda: self.table("device"))

    @property
    def processes(self):
        return self._cached("processes", lambda: self.table("process"))

    # ---- metrics ----

    @property
    def metrics(self):
        """Long form: one row per (kernel launch, metric): kernel_id, run_id, kernel name, metric,
        unit, section, value. `kernel_id` is the launch that was profiled; `trace_kernel_id` the
        traced launch it is linked to (NaN when the session has no link for it)."""

        def read():
            link = ("LEFT JOIN kernel_link l ON l.kernel_id = km.kernel_id" if "kernel_link" in self._tables
                    else "LEFT JOIN (SELECT NULL AS kernel_id, NULL AS trace_kernel_id) l ON 0")
            return self.sql(f"""
                SELECT km.kernel_id, l.trace_kernel_id, {self._run_id('kernel_metric', 'km')} AS run_id,
                       s.text AS kernel, d.name AS metric, d.unit, d.section, km.value
                FROM kernel_metric km
                JOIN metric_def d ON d.id = km.metric_id
                LEFT JOIN kernel k ON k.id = km.kernel_id
                LEFT JOIN string s ON s.id = k.demangled_name
                {link}
                ORDER BY km.kernel_id, d.name""")

        return self._cached("metrics", read)

    @property
    def metrics_wide(self):
        """Wide form: one row per profiled launch (index kernel_id), one column per metric."""

        def read():
            long = self.metrics
            wide = long.pivot(index="kernel_id", columns="metric", values="value")
            wide.columns.name = None
            return wide

        return self._cached("metrics_wide", read)

    # ---- benchmarks ----

    @property
    def bench_runs(self):
        """One row per measured implementation (bench_run); `options` parsed from options_json,
        and the median over every call (per-call timers) or every round (batch timer)."""

        def read():
            df = self.sql(f"""
                SELECT b.id, {self._run_id('bench_run', 'b')} AS run_id, b.workload, b.implementation,
                       b.timer, b.cache_policy, b.unit, b.work_flops, b.work_bytes, b.boundary, b.options_json
                FROM bench_run b ORDER BY b.id""")
            df["options"] = df.pop("options_json").map(_parse_json)
            samples = self.bench_samples
            medians = []
            for bid in df["id"]:
                s = samples[samples["bench_run_id"] == bid]
                calls = s[s["call"] >= 0]["value"]
                values = calls if len(calls) else s[s["call"] == -1]["value"]
                medians.append(float(values.median()) if len(values) else float("nan"))
            df["median"] = medians
            return df

        return self._cached("bench_runs", read)

    @property
    def bench_samples(self):
        """Every sample kept by the harness: bench_run_id, run_id (the session run), workload,
        implementation, round, call (-1: the round's value), value (in the bench run's unit)."""

        def read():
            # bench_sample.run_id predates runs and means bench_run.id (docs/session-format.md).
            return self.sql(f"""
                SELECT s.run_id AS bench_run_id, {self._run_id('bench_run', 'b')} AS run_id, b.workload,
                       b.implementation, s.round, s.call, s.value, b.unit
                FROM bench_sample s JOIN bench_run b ON b.id = s.run_id
                ORDER BY s.run_id, s.round, s.call""")

        return self._cached("bench_samples", read)

    def _with_run_kind(self, df):
        kinds = dict(zip(self.runs["id"], self.runs["kind"]))
        df["run_kind"] = df["run_id"].map(kinds)
        return df


def _parse_json(text):
    try:
        return json.loads(text) if text else {}
    except ValueError:
        return text


def open(path):  # noqa: A001  (warpscope.open, like io.open: the name users look for)
    """Opens a .wscope session read-only. Raises SessionError naming the file when it is missing,
    not a session, or corrupt."""
    return Session(path)
