"""One run: ``run()``, its :class:`Result`, and the configuration helpers."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Callable, TypeVar, Union

from . import _native
from ._errors import ArgumentError, from_native

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
    import polars as pl
    import pyarrow as pa

PathLike = Union[str, "os.PathLike[str]"]
Overrides = Union[Mapping[str, Any], Iterable[str], None]
ConfigArg = Union[PathLike, Mapping[str, Any], None]

T = TypeVar("T")

#: Columns of :meth:`Result.requests`: the per-request CSV's (``CSV_HEADER``, the same
#: file ``ssdlab run --per-request-csv`` writes), then the derived ``host_queue_ns``.
REQUEST_COLUMNS: tuple[str, ...] = tuple(_native.CSV_HEADER.split(",")) + ("host_queue_ns",)
#: The values of the ``status`` column runs with the error model add (``errors.mode = "on"``).
STATUS_NAMES: tuple[str, ...] = ("ok", "media-error", "read-only")

_CONFIG_DICT_NAME = "<config dict>"


def _call(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Calls the extension, raising the public exception class for its errors."""
    try:
        return fn(*args, **kwargs)
    except _native.NativeError as e:
        raise from_native(e) from None


def _literal(key: str, value: Any) -> str:
    """A Python value as the VALUE of ``--set KEY=VALUE``.

    Strings pass through unchanged, exactly as on the command line (a TOML literal such
    as ``8`` or ``"x"``, or else a bare string); booleans, numbers and lists of them
    become TOML literals.
    """
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value) if isinstance(value, float) else str(value)
    if isinstance(value, (list, tuple)):
        return json.dumps(list(value))
    raise ArgumentError(
        f"set[{key!r}]: cannot express a {type(value).__name__} as a configuration value",
        key=key,
        kind="argument",
    )


def _sets(set: Overrides) -> list[str]:
    """``set=`` as a list of ``key=value`` strings (a mapping or ``key=value`` strings)."""
    if set is None:
        return []
    if isinstance(set, str):
        return [set]
    if isinstance(set, Mapping):
        return [f"{k}={_literal(k, v)}" for k, v in set.items()]
    return [str(s) for s in set]


def _fails(fail: str | Iterable[str] | None) -> list[str]:
    if fail is None:
        return []
    if isinstance(fail, str):
        return [fail]
    return [str(f) for f in fail]


def _config_args(config: ConfigArg) -> dict[str, Any]:
    """``config=`` as the extension takes it: a file path, or TOML text for a mapping."""
    if config is None:
        return {}
    if isinstance(config, Mapping):
        return {"config_text": (to_toml(config), _CONFIG_DICT_NAME)}
    return {"config": os.fspath(config)}


def to_toml(config: Mapping[str, Any]) -> str:
    """A configuration dict (as :func:`config` returns it) as TOML text.

    ``ssdlab.to_toml(ssdlab.config("brr"))`` is a configuration file that resolves to
    the same configuration (``ssdlab config show brr`` prints the same document).
    """
    return _call(_native.json_to_toml, json.dumps(dict(config)))


def presets() -> list[str]:
    """Names of the built-in presets (``ssdlab config list``)."""
    return list(_native.presets())


def _resolve(
    preset: str | None,
    set: Overrides,
    config: ConfigArg,
    seed: int | None,
    verify: bool,
    fail: str | Iterable[str] | None,
    scheduler: str | None,
    dgc: bool,
) -> tuple[str, str, str | None]:
    """The resolved configuration as ``(toml_text, json_text, device_key)``, layered as by
    :func:`run` (the device key: see :func:`ssdlab.sweep.device_keys`)."""
    result: tuple[str, str, str | None] = _call(
        _native.resolve_config,
        preset=preset,
        set=_sets(set),
        seed=seed,
        verify=verify,
        fail=_fails(fail),
        scheduler=scheduler,
        dgc=dgc,
        **_config_args(config),
    )
    return result


def config(
    preset: str | None = None,
    set: Overrides = None,
    *,
    config: ConfigArg = None,
    seed: int | None = None,
    verify: bool = False,
    fail: str | Iterable[str] | None = None,
    scheduler: str | None = None,
    dgc: bool = False,
) -> dict[str, Any]:
    """The fully resolved configuration as a dict.

    Layers exactly as :func:`run` (and the command line) do: built-in defaults, then
    ``preset``, then ``config`` (a TOML file path or a dict), then ``scheduler`` /
    ``verify`` / ``dgc``, then ``set`` overrides, then ``seed`` and ``fail``.

    The dict round-trips: ``config(config=d) == d`` and ``to_toml(d)`` is a valid
    configuration file.

    Raises:
        ConfigError: naming the key at fault.
    """
    _, js, _ = _resolve(preset, set, config, seed, verify, fail, scheduler, dgc)
    result: dict[str, Any] = json.loads(js)
    return result


def config_toml(
    preset: str | None = None,
    set: Overrides = None,
    *,
    config: ConfigArg = None,
    seed: int | None = None,
    verify: bool = False,
    fail: str | Iterable[str] | None = None,
    scheduler: str | None = None,
    dgc: bool = False,
) -> str:
    """The resolved configuration as TOML, byte for byte what ``ssdlab config show``
    prints after its comment line (for a preset without overrides)."""
    text, _, _ = _resolve(preset, set, config, seed, verify, fail, scheduler, dgc)
    return text


def trace_info(
    path: PathLike,
    *,
    format: str | None = None,
    skip_bad_lines: bool = False,
    repeat: int = 1,
) -> dict[str, Any]:
    """Statistics of a trace, as ``ssdlab trace info`` reports them.

    Keys: ``requests``, ``reads``, ``writes``, ``read_ratio``, ``avg_size_bytes``,
    ``avg_read_size_bytes``, ``avg_write_size_bytes``, ``duration_ns``,
    ``max_end_bytes``, ``working_set_bytes``, ``unique_write_bytes``,
    ``content_known``, ``duplicate_write_ratio``, ``skipped_lines``,
    ``clamped_timestamps``, ``format``; ``trace`` (the description a report carries)
    and ``text`` (the command line's text).

    Raises:
        TraceError: naming file and line.
    """
    js = _call(
        _native.trace_info,
        os.fspath(path),
        format=format,
        skip_bad_lines=skip_bad_lines,
        repeat=repeat,
    )
    result: dict[str, Any] = json.loads(js)
    return result


class Result:
    """The outcome of one :func:`run`.

    Attributes:
        summary: the JSON report as a dict (``ssdlab run --json``; every metric is
            defined in docs/METRICS.md).
        config: the configuration the run resolved, as a dict (what :func:`config`
            returns for the same arguments); ``None`` for a result built from a report
            alone.
    """

    def __init__(
        self,
        report_json: str,
        columns: dict[str, bytes] | None,
        chips_json: str | None,
        config_json: str | None = None,
    ) -> None:
        self._json = report_json
        self._columns = columns
        self._chips = chips_json
        self.summary: dict[str, Any] = json.loads(report_json)
        self.config: dict[str, Any] | None = (
            None if config_json is None else json.loads(config_json)
        )

    def __repr__(self) -> str:
        r = self.summary.get("response", {}).get("all", {})
        meta = self.summary.get("meta", {})
        return (
            f"<ssdlab.Result {meta.get('scheduler', '?')} on {meta.get('trace', '?')}: "
            f"{self.summary.get('requests', {}).get('all', 0)} requests, "
            f"mean response {r.get('mean_ns', float('nan')):.0f} ns>"
        )

    def to_json(self) -> str:
        """The report as JSON text, byte for byte what ``ssdlab run --json`` writes."""
        return self._json

    def _request_arrays(self) -> dict[str, np.ndarray]:
        """The per-request columns as numpy arrays, in :data:`REQUEST_COLUMNS` order
        (``op`` as codes: 0 read, 1 write)."""
        import numpy as np

        if self._columns is None:
            raise ArgumentError(
                "per-request results were not kept: run with per_request=True",
                kind="argument",
            )
        raw = self._columns
        # The extension hands over little-endian u64 bytes (times and sizes fit i64);
        # astype copies them into writable arrays.
        col = {
            k: np.frombuffer(v, dtype="<u8").astype(np.int64)
            for k, v in raw.items()
            if k not in ("op", "status", "tenant")
        }
        response = col["completion_ns"] - col["arrival_ns"]
        out: dict[str, np.ndarray] = {}
        for name in REQUEST_COLUMNS:
            if name == "op":
                out[name] = np.frombuffer(raw["op"], dtype=np.uint8).copy()
            elif name == "response_ns":
                out[name] = response
            elif name == "waiting_ns":
                out[name] = np.maximum(response - col["service_ns"], 0)
            elif name == "host_queue_ns":
                out[name] = col["admitted_ns"] - col["arrival_ns"]
            else:
                out[name] = col[name]
        if "status" in raw:
            # With the error model: 0 ok, 1 media-error, 2 read-only (as the CSV's status
            # column).
            out["status"] = np.frombuffer(raw["status"], dtype=np.uint8).copy()
        if "tenant" in raw:
            # With tenants: each request's tenant, its index in the configuration.
            out["tenant"] = np.frombuffer(raw["tenant"], dtype="<u2").astype(np.int32)
        return out

    def _tenant_names(self) -> list[str]:
        """The tenants' names in configuration order (the codes of ``tenant``)."""
        return [t["name"] for t in self.summary["tenants"]["tenants"]]

    def requests_arrow(self) -> pa.Table:
        """Per-request results as an Arrow table (for polars: ``pl.from_arrow``).

        Columns as :meth:`requests`; ``op`` is dictionary-encoded.

        Raises:
            ArgumentError: when the run was made with ``per_request=False``.
        """
        import pyarrow as pa

        arrays = self._request_arrays()
        op = pa.DictionaryArray.from_arrays(
            pa.array(arrays["op"].astype("int32")), pa.array(["read", "write"])
        )
        cols = {k: (op if k == "op" else pa.array(v)) for k, v in arrays.items()}
        if "status" in arrays:
            cols["status"] = pa.DictionaryArray.from_arrays(
                pa.array(arrays["status"].astype("int32")), pa.array(STATUS_NAMES)
            )
        if "tenant" in arrays:
            cols["tenant"] = pa.DictionaryArray.from_arrays(
                pa.array(arrays["tenant"]), pa.array(self._tenant_names())
            )
        return pa.table(cols)

    def requests(self) -> pd.DataFrame:
        """One row per completed request, in completion order (a pandas DataFrame).

        Columns (times in ns, all ``int64`` except ``op``, a ``category`` of
        ``read``/``write``):

        ``id`` (0-based index in the trace), ``op``, ``offset_bytes``, ``size_bytes``,
        ``arrival_ns``, ``admitted_ns`` (entered the device queue), ``completion_ns``,
        ``response_ns`` (completion − arrival), ``waiting_ns`` (response − service,
        at least 0), ``service_ns`` (the flash work of the last-completing
        sub-request), and the derived ``host_queue_ns`` (admitted − arrival, time spent
        in the host queue). With the error model (``errors.mode = "on"``) a last column
        ``status``, a ``category`` of ``ok``/``media-error``/``read-only`` (a request a
        page of which could be neither read nor rebuilt; a write refused by a drive that
        ran out of spare blocks). With tenants (``[[host.tenant]]``) a last
        column ``tenant``, a ``category`` of the tenants' names in configuration order
        (as the CSV's ``tenant`` column).

        The values are those ``ssdlab run --per-request-csv`` writes, row for row.
        """
        import pandas as pd

        arrays = self._request_arrays()
        op = pd.Categorical.from_codes(arrays.pop("op"), categories=["read", "write"])
        status = arrays.pop("status", None)
        tenant = arrays.pop("tenant", None)
        df = pd.DataFrame(arrays, copy=False)
        df.insert(REQUEST_COLUMNS.index("op"), "op", op)
        if status is not None:
            df["status"] = pd.Categorical.from_codes(status, categories=list(STATUS_NAMES))
        if tenant is not None:
            df["tenant"] = pd.Categorical.from_codes(tenant, categories=self._tenant_names())
        return df

    def requests_polars(self) -> pl.DataFrame:
        """:meth:`requests` as a polars DataFrame (through Arrow, without a copy of the
        columns). Needs the ``polars`` extra."""
        import polars as pl

        df = pl.from_arrow(self.requests_arrow())
        assert isinstance(df, pl.DataFrame)
        return df

    def chips(self) -> pd.DataFrame:
        """Per-chip busy time, utilization, wear and space at the end of the run (a
        pandas DataFrame).

        One row per chip: ``chip``, ``channel``, ``way`` (its position on the channel),
        ``busy_ns`` (time any of its dies was operating), ``utilization`` (``busy_ns``
        over the run's length; the report's ``utilization.chip`` is the spread of this
        column), ``erases`` (block erases on the chip), ``erase_min`` / ``erase_max``
        (over its blocks), ``valid_pages``, ``invalid_pages``, ``free_pages``,
        ``free_blocks``. All ``int64`` but ``utilization`` (``float64``).

        Raises:
            ArgumentError: when the run was made with ``chips=False``.
        """
        import pandas as pd

        if self._chips is None:
            raise ArgumentError(
                "per-chip figures were not kept: run with chips=True", kind="argument"
            )
        cols = json.loads(self._chips)
        end_ns = cols.pop("end_ns")
        df = pd.DataFrame(cols).astype("int64")
        util = df["busy_ns"] / end_ns if end_ns else df["busy_ns"] * 0.0
        df.insert(df.columns.get_loc("busy_ns") + 1, "utilization", util.astype("float64"))
        return df

    @property
    def chip_utilization(self) -> dict[str, float]:
        """Busy fraction of the chips over the run: ``mean``, ``std``, ``min``, ``max``."""
        u: dict[str, float] = self.summary["utilization"]["chip"]
        return u

    def tenants(self) -> pd.DataFrame | None:
        """Per-tenant results of a run with tenants (``[[host.tenant]]``, docs/HOST.md
        §3), one row per tenant in configuration order (a pandas DataFrame); ``None``
        for a run of one workload.

        Columns: ``tenant`` (its name), ``reads``, ``writes``, ``other`` (flushes and
        trims), ``bytes``, then for each of ``response`` (reads and writes together),
        ``read_response`` and ``write_response`` the fields of its latency summary
        prefixed by it (``response_count``, ``response_mean_ns``, ``response_min_ns``,
        ``response_p50_ns``, ``response_p90_ns``, ``response_p99_ns``,
        ``response_p999_ns``, ``response_max_ns``, ...), ``iops``, ``bandwidth_mib_s``,
        and ``alone_response_ns_mean`` and ``slowdown`` (NaN unless the report has
        them: ``ssdlab run --alone``). With the cached map (``ftl.mapping =
        "cached"``) each tenant's use of the mapping table follows: ``cmt_entries`` (its
        share), ``cmt_lookups``, ``cmt_hits``, ``cmt_hit_ratio`` and, with
        ``ftl.cmt.sharing = "equal"``, ``cmt_peak_entries`` (docs/FTL.md §12). With a
        DRAM stage (``cache.mode`` on) each tenant's use of it follows:
        ``dram_capacity_pages`` (its partition, or the whole stage), ``dram_read_hits``,
        ``dram_read_misses``, ``dram_read_hit_ratio``, ``dram_writes_absorbed``,
        ``dram_full``, ``dram_buffer_waits``, ``dram_buffer_wait_ns_mean``,
        ``dram_buffer_wait_ns_max`` and, with ``cache.sharing = "equal"``,
        ``dram_peak_dirty_pages`` (docs/DRAM.md, "Tenants").
        ``summary["tenants"]["fairness"]`` holds the fairness index when the report has
        one.
        """
        section = self.summary.get("tenants")
        if section is None:
            return None
        import pandas as pd

        rows = []
        for t in section["tenants"]:
            row: dict[str, Any] = {"tenant": t["name"]}
            for k in ("reads", "writes", "other", "bytes"):
                row[k] = t[k]
            for lat in ("response", "read_response", "write_response"):
                for f, v in t[lat].items():
                    row[f"{lat}_{f}"] = v
            row["iops"] = t["iops"]
            row["bandwidth_mib_s"] = t["bandwidth_mib_s"]
            row["alone_response_ns_mean"] = t.get("alone_response_ns_mean", float("nan"))
            row["slowdown"] = t.get("slowdown", float("nan"))
            if "cmt" in t:
                for f, v in t["cmt"].items():
                    row[f"cmt_{f}"] = v
            if "dram" in t:
                for f, v in t["dram"].items():
                    row[f"dram_{f}"] = v
            rows.append(row)
        return pd.DataFrame(rows)

    @property
    def dram(self) -> dict[str, Any] | None:
        """The report's DRAM stage (``summary["dram"]``, docs/METRICS.md "DRAM stage"):
        hit ratios, buffer waits, flushes, power losses and lost pages, and the dirty
        occupancy over simulated time (``occupancy_t_ns``, ``occupancy_dirty_pages``,
        out of ``capacity_pages``). ``None`` when the device has no DRAM stage
        (``cache.mode = "off"``, every preset's default)."""
        d: dict[str, Any] | None = self.summary.get("dram")
        return d

    @property
    def nand(self) -> dict[str, Any] | None:
        """The report's NAND layer (``summary["nand"]``, docs/METRICS.md "NAND layer"):
        host read latency per page type (``reads_by_page_type``), with
        ``scheduler.suspend`` on the suspensions (``suspend``), with an SLC cache its
        writes and folds (``slc_cache``), and with ``nand.cache_mode`` on the cache
        operations (``cache``: ``mode``, ``cached_reads``, ``cached_programs``,
        ``read_register_waits``). ``None`` for SLC with ``timing``'s times, suspend off, no
        SLC cache and cache mode off (the papers' presets' default)."""
        n: dict[str, Any] | None = self.summary.get("nand")
        return n


def run(
    preset: str | None = None,
    config: ConfigArg = None,
    trace: PathLike | None = None,
    format: str | None = None,
    set: Overrides = None,
    seed: int | None = None,
    verify: bool = False,
    fail: str | Iterable[str] | None = None,
    scheduler: str | None = None,
    dgc: bool = False,
    *,
    skip_bad_lines: bool = False,
    repeat: int = 1,
    synthetic: bool = False,
    per_request: bool = True,
    chips: bool = True,
    cache: bool = False,
) -> Result:
    """Replays a trace on one configuration: ``ssdlab run`` from Python.

    Args:
        preset: a built-in preset (:func:`presets`), like ``--preset``.
        config: a TOML file path (``--config``) or a configuration dict (as
            :func:`config` returns it), layered over the preset.
        trace: the trace file (``.gz`` or plain), like ``--trace``.
        format: force the trace format (``msr``, ``spc``, ``fiu``, ``disksim``,
            ``ssdsim``, ``mqsim``, ``blkparse``); detected from the content otherwise.
        set: overrides, ``{"scheduler.chip_queue_depth": 8}`` or
            ``["scheduler.chip_queue_depth=8"]``, like ``--set`` (applied in order,
            after ``scheduler``/``verify``/``dgc``).
        seed: the run's seed (``--seed``).
        verify: check every host read against the content last written (``--verify``).
        fail: failures to inject, ``"chip:3@0.5"`` or a list (``--fail``).
        scheduler: scheduler name (``--scheduler``, sets ``scheduler.name``).
        dgc: enable DGC write redirection (``--dgc``).
        skip_bad_lines: skip and count malformed trace lines (``--skip-bad-lines``).
        repeat: replay the trace N times back to back (``--repeat``).
        synthetic: the built-in synthetic workload instead of a trace (``--synthetic``).
        per_request: keep per-request results for :meth:`Result.requests`.
        chips: keep per-chip figures for :meth:`Result.chips`.
        cache: keep the parsed trace in memory for later runs in this process (sweeps
            do this on their workers).

    The simulation runs with the GIL released: threads may run several at once.

    Raises:
        ConfigError: naming the key (or the preset / file).
        TraceError: naming the file and line.
        SimulationError: when the run cannot complete.
    """
    out = _call(
        _native.run,
        preset=preset,
        trace=None if trace is None else os.fspath(trace),
        format=format,
        set=_sets(set),
        seed=seed,
        verify=verify,
        fail=_fails(fail),
        scheduler=scheduler,
        dgc=dgc,
        skip_bad_lines=skip_bad_lines,
        repeat=repeat,
        synthetic=synthetic,
        per_request=per_request,
        chips=chips,
        cache=cache,
        **_config_args(config),
    )
    return Result(*out)
