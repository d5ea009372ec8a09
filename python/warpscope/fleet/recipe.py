# SPDX-License-Identifier: MIT
"""The recipe API: a mapper over one session, a reducer over every mapper's result.

A recipe is a class with a `name`, default `params`, and two methods:

    map(session, **params) -> DataFrame | {table: DataFrame}
        runs on a Dask worker, once per session file, with the session opened read-only where
        the file lies (warpscope.Session). Return small, already-aggregated frames: they travel
        back to the client. The runner adds a `session` column (the file's path) to each frame.
    reduce(parts, **params) -> {table: DataFrame}
        runs on the client with `parts`, a dict {table: DataFrame} of every counted session's
        frames concatenated (in input order). The first table returned is the recipe's primary
        table: the one written to the CSV.

Raise Skip("why") in map to leave a session out with a reason (it is listed in the result's
`skipped` table, like an unreadable file)."""

import pandas as pd


class Skip(Exception):
    """Raised by a mapper: this session has nothing the recipe can use; the message says why."""


class Recipe:
    name = ""
    description = ""
    params = {}

    def map(self, session, **params):
        raise NotImplementedError

    def reduce(self, parts, **params):
        return dict(parts)

    # ---- used by the runner ----

    def resolved_params(self, given=None):
        """Defaults overridden by `given`; values given as text (from the CLI) take the default's type."""
        out = dict(self.params)
        for key, value in (given or {}).items():
            if key not in self.params:
                raise ValueError(f"recipe {self.name}: unknown parameter {key!r} "
                                 f"(known: {', '.join(sorted(self.params)) or 'none'})")
            default = self.params[key]
            if isinstance(value, str) and not isinstance(default, str) and default is not None:
                value = type(default)(value)
            out[key] = value
        return out


def normalize(mapped, name):
    """A mapper's return value as {table: DataFrame}."""
    if isinstance(mapped, pd.DataFrame):
        return {name: mapped}
    if isinstance(mapped, dict) and all(isinstance(v, pd.DataFrame) for v in mapped.values()):
        return dict(mapped)
    raise TypeError(f"recipe {name}: map must return a DataFrame or a dict of DataFrames, got {type(mapped).__name__}")
