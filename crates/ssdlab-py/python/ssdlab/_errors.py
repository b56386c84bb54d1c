"""Exceptions raised by ssdlab.

Every error of the simulator is an :class:`SsdlabError`; the subclass says whose fault
it is, and the attributes say where, when the Rust error knows:

* :class:`ConfigError` -- a configuration problem; ``key`` (and ``keys``, all of them)
  name the dotted configuration keys at fault, ``file`` a configuration file that could
  not be read. Messages are the command line's, word for word.
* :class:`TraceError` -- a malformed or unreadable trace; ``file``, ``line`` (1-based,
  ``None`` when the error concerns the whole file) and ``field``.
* :class:`ArgumentError` -- an argument of the Python call itself is wrong (e.g. an
  unknown ``format``).
* :class:`SimulationError` -- the run could not complete (e.g. the device is full, a
  request addresses beyond capacity, a verify mismatch, an internal error).
"""

from __future__ import annotations

from typing import Any


class SsdlabError(Exception):
    """Base class of every ssdlab error.

    Attributes:
        message: the message, as the command line prints it after ``error:``.
        key: the first configuration key at fault, if any.
        keys: every configuration key at fault.
        file: the file at fault (trace or configuration), if any.
        line: 1-based line in ``file``, if the error is tied to one.
        field: the trace field at fault, if any.
        kind: the native error kind (``config``, ``trace``, ``argument``, ``input``,
            ``simulation``, ``internal``).
    """

    def __init__(
        self,
        message: str,
        *,
        key: str | None = None,
        keys: list[str] | None = None,
        file: str | None = None,
        line: int | None = None,
        field: str | None = None,
        kind: str = "",
    ) -> None:
        super().__init__(message)
        self.message = message
        self.key = key
        self.keys = list(keys or ([key] if key else []))
        self.file = file
        self.line = line
        self.field = field
        self.kind = kind


class ConfigError(SsdlabError, ValueError):
    """The configuration is invalid; ``key``/``keys`` name the keys at fault."""


class TraceError(SsdlabError, ValueError):
    """The trace is malformed or unreadable; ``file``, ``line`` and ``field`` locate it."""


class ArgumentError(SsdlabError, ValueError):
    """An argument of the Python call is invalid."""


class SimulationError(SsdlabError, RuntimeError):
    """The run could not complete."""


_KINDS: dict[str, type[SsdlabError]] = {
    "config": ConfigError,
    "trace": TraceError,
    "argument": ArgumentError,
    "input": SimulationError,
    "simulation": SimulationError,
    "internal": SimulationError,
}


def from_native(err: BaseException) -> SsdlabError:
    """The public exception for a ``_native.NativeError``."""
    kind, message, details = err.args
    d: dict[str, Any] = dict(details)
    cls = _KINDS.get(kind, SimulationError)
    return cls(
        message,
        key=d.get("key"),
        keys=d.get("keys"),
        file=d.get("file"),
        line=d.get("line"),
        field=d.get("field"),
        kind=kind,
    )
