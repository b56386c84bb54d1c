"""One run: ``run()``, its :class:`Result`, and the configuration helpers."""

from __future__ import annotations

import io
import json
import os
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Callable, TypeVar, Union

from . import _native
from ._errors import ArgumentError, from_native

if TYPE_CHECKING:
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
) -> tuple[str, str]:
    """The resolved configuration as ``(toml_text, json_text)``, layered as by :func:`run`."""
    result: tuple[str, str] = _call(
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
    _, js = _resolve(preset, set, config, seed, verify, fail, scheduler, dgc)
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
    text, _ = _resolve(preset, set, config, seed, verify, fail, scheduler, dgc)
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
    """

    def __init__(self, report_json: str, csv: bytes | None, chips_json: str | None) -> None:
        self._json = report_json
        self._csv = csv
        self._chips = chips_json
        self.summary: dict[str, Any] = json.loads(report_json)

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

    def requests_arrow(self) -> pa.Table:
        """Per-request results as an Arrow table (for polars: ``pl.from_arrow``).

        Columns as :meth:`requests`; ``op`` is dictionary-encoded.

        Raises:
            ArgumentError: when the run was made with ``per_request=False``.
        """
        import pyarrow as pa
        import pyarrow.compute as pc
        import pyarrow.csv as pacsv

        if self._csv is None:
            raise ArgumentError(
                "per-request results were not kept: run with per_request=True",
                kind="argument",
            )
        names = list(REQUEST_COLUMNS[:-1])
        types = {n: pa.int64() for n in names}
        types["op"] = pa.dictionary(pa.int32(), pa.string())
        table = pacsv.read_csv(
            io.BytesIO(self._csv),
            convert_options=pacsv.ConvertOptions(column_types=types),
        )
        host_queue = pc.subtract(table["admitted_ns"], table["arrival_ns"])
        return table.append_column("host_queue_ns", host_queue)

    def requests(self) -> pd.DataFrame:
        """One row per completed request, in completion order (a pandas DataFrame).

        Columns (times in ns, all ``int64`` except ``op``, a ``category`` of
        ``read``/``write``):

        ``id`` (0-based index in the trace), ``op``, ``offset_bytes``, ``size_bytes``,
        ``arrival_ns``, ``admitted_ns`` (entered the device queue), ``completion_ns``,
        ``response_ns`` (completion − arrival), ``waiting_ns`` (response − service,
        at least 0), ``service_ns`` (the flash work of the last-completing
        sub-request), and the derived ``host_queue_ns`` (admitted − arrival, time spent
        in the host queue).
        """
        import pandas as pd

        df = self.requests_arrow().to_pandas()
        df["op"] = pd.Categorical(df["op"].astype(str), categories=["read", "write"])
        return df

    def requests_polars(self) -> pl.DataFrame:
        """:meth:`requests` as a polars DataFrame (through Arrow, without a copy of the
        columns). Needs the ``polars`` extra."""
        import polars as pl

        df = pl.from_arrow(self.requests_arrow())
        assert isinstance(df, pl.DataFrame)
        return df

    def chips(self) -> pd.DataFrame:
        """Per-chip wear and space at the end of the run (a pandas DataFrame).

        One row per chip: ``chip``, ``channel``, ``way`` (its position on the channel),
        ``erases`` (block erases on the chip), ``erase_min`` / ``erase_max`` (over its
        blocks), ``valid_pages``, ``invalid_pages``, ``free_pages``, ``free_blocks``.

        The report itself carries chip *utilization* only as a spread over chips
        (``summary["utilization"]["chip"]``: mean, std, min, max of the busy fraction);
        :attr:`chip_utilization` returns it. Per-chip busy time is not exported by the
        simulator's report.

        Raises:
            ArgumentError: when the run was made with ``chips=False``.
        """
        import pandas as pd

        if self._chips is None:
            raise ArgumentError(
                "per-chip figures were not kept: run with chips=True", kind="argument"
            )
        df = pd.DataFrame(json.loads(self._chips))
        return df.astype("int64")

    @property
    def chip_utilization(self) -> dict[str, float]:
        """Busy fraction of the chips over the run: ``mean``, ``std``, ``min``, ``max``."""
        u: dict[str, float] = self.summary["utilization"]["chip"]
        return u


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
