# SPDX-License-Identifier: MIT
"""A fleet result and its file: one small SQLite database (docs/fleet.md, "Result file").

    PRAGMA application_id = 0x5753464C ("WSFL": not a session; warpscope.open refuses it)
    PRAGMA user_version   = 1 (FORMAT_VERSION)
    meta(key TEXT PRIMARY KEY, value TEXT)   format, format_version, recipe, params (JSON),
                                             primary_table, tables (JSON list), created, scheduler,
                                             sessions, counted, skipped, elapsed_s, map_s, python
    sessions(path, status, reason, elapsed_s, rows)   every input, 'ok' or 'skipped'
    skipped(path, reason)                              the skipped ones
    <one table per recipe table>                       e.g. step_time, step_ranks

plus, beside it, the primary table as CSV, and every table as Parquet (RESULT.TABLE.parquet) when
pandas has a Parquet engine (pyarrow or fastparquet). Debian 12 packages neither, so there the
result is the SQLite file and the CSV only (PARQUET_UNAVAILABLE says why, in the result's meta too)."""

import datetime
import importlib
import json
import os
import sqlite3

import pandas as pd

APPLICATION_ID = 0x5753464C  # "WSFL"
FORMAT_VERSION = 1
_RESERVED = {"meta", "sessions", "skipped"}
PARQUET_UNAVAILABLE = ("no Parquet engine: pandas writes Parquet through pyarrow or fastparquet, and neither is "
                       "importable here (Debian 12 packages neither: no python3-pyarrow, no python3-fastparquet); "
                       "the result is the SQLite file plus the CSV")


def parquet_engine():
    """The Parquet engine pandas would use here ('pyarrow' or 'fastparquet'), or None."""
    for name in ("pyarrow", "fastparquet"):
        try:
            importlib.import_module(name)
            return name
        except ImportError:
            pass
    return None


def parquet_path(path, table):
    """Where write() puts a table's Parquet file: job42.wsfleet -> job42.step_time.parquet."""
    return f"{os.path.splitext(os.fspath(path))[0]}.{table}.parquet"


class FleetResult:
    def __init__(self, recipe, tables, sessions, meta):
        self.recipe = recipe
        self.tables = dict(tables)
        self.sessions = sessions
        self.meta = dict(meta)
        self.parquet_paths = []

    @property
    def primary(self):
        """The recipe's primary table (the first its reducer returned); empty when nothing counted."""
        return next(iter(self.tables.values())) if self.tables else pd.DataFrame()

    @property
    def skipped(self):
        s = self.sessions[self.sessions["status"] != "ok"]
        return s[["path", "reason"]].reset_index(drop=True)

    def __getitem__(self, table):
        return self.tables[table]

    def __repr__(self):
        return (f"<warpscope.fleet.FleetResult {self.recipe}: {self.meta.get('counted')} counted, "
                f"{self.meta.get('skipped')} skipped; tables {', '.join(self.tables)}>")

    def write(self, path, csv_path=None, parquet="auto"):
        """Writes the result file (replacing it) and the primary table as CSV (default: the
        result's name with .csv). Returns (path, csv_path). `parquet`: "auto" also writes every
        table as Parquet (parquet_path) when pandas has an engine, True insists (ValueError with
        PARQUET_UNAVAILABLE when it has none), False never; `parquet_paths` lists what was written
        and meta `parquet` names the engine or why there is none."""
        path = os.fspath(path)
        engine = parquet_engine() if parquet else None
        if parquet is True and engine is None:
            raise ValueError(PARQUET_UNAVAILABLE)
        if csv_path is None:
            csv_path = os.path.splitext(path)[0] + ".csv"
        bad = _RESERVED & set(self.tables)
        if bad:
            raise ValueError(f"recipe table names {sorted(bad)} are reserved")
        tmp = path + ".tmp"
        if os.path.exists(tmp):
            os.remove(tmp)
        db = sqlite3.connect(tmp)
        try:
            db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            db.execute(f"PRAGMA user_version = {FORMAT_VERSION}")
            meta = dict(self.meta)
            meta["parquet"] = engine if engine else ("not requested" if not parquet else PARQUET_UNAVAILABLE)
            meta.update(format="warpscope-fleet", format_version=FORMAT_VERSION, recipe=self.recipe,
                        primary_table=next(iter(self.tables), ""), tables=list(self.tables),
                        created=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))
            db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
            db.executemany("INSERT INTO meta VALUES (?, ?)",
                           [(k, v if isinstance(v, str) else json.dumps(v)) for k, v in meta.items()])
            self.sessions.to_sql("sessions", db, index=False)
            self.skipped.to_sql("skipped", db, index=False)
            for name, df in self.tables.items():
                df.to_sql(name, db, index=False)
            db.commit()
        finally:
            db.close()
        os.replace(tmp, path)
        self.primary.to_csv(csv_path, index=False)
        self.parquet_paths = []
        if engine:
            for name, df in self.tables.items():
                target = parquet_path(path, name)
                df.to_parquet(target, engine=engine, index=False)
                self.parquet_paths.append(target)
        return path, csv_path


def load(path):
    """Reads a result file back as a FleetResult."""
    path = os.fspath(path)
    with open(path, "rb") as f:
        header = f.read(100)
    if len(header) < 100 or int.from_bytes(header[68:72], "big") != APPLICATION_ID:
        raise ValueError(f"{path}: not a warpscope fleet result (application_id is not 0x{APPLICATION_ID:08X})")
    db = sqlite3.connect(f"file:{os.path.abspath(path)}?mode=ro", uri=True)
    try:
        meta = dict(db.execute("SELECT key, value FROM meta"))
        names = json.loads(meta["tables"])
        tables = {n: pd.read_sql_query(f'SELECT * FROM "{n}"', db) for n in names}
        sessions = pd.read_sql_query("SELECT * FROM sessions", db)
    finally:
        db.close()
    for key in ("params", "tables", "sessions", "counted", "skipped", "elapsed_s", "map_s", "format_version"):
        if key in meta:
            try:
                meta[key] = json.loads(meta[key])
            except ValueError:
                pass
    return FleetResult(meta["recipe"], tables, sessions, meta)
