"""Type stubs of the extension module (see crates/ssdlab-py/src/lib.rs)."""

from os import PathLike

GIT_REV: str
VERSION: str
CSV_HEADER: str

class NativeError(Exception): ...

def run(
    *,
    preset: str | None = None,
    config: str | PathLike[str] | None = None,
    config_text: tuple[str, str] | None = None,
    trace: str | PathLike[str] | None = None,
    format: str | None = None,
    set: list[str] = ...,
    seed: int | None = None,
    verify: bool = False,
    fail: list[str] = ...,
    scheduler: str | None = None,
    dgc: bool = False,
    skip_bad_lines: bool = False,
    repeat: int = 1,
    synthetic: bool = False,
    per_request: bool = True,
    chips: bool = True,
    cache: bool = False,
) -> tuple[str, dict[str, bytes] | None, str | None, str]: ...
def resolve_config(
    *,
    preset: str | None = None,
    config: str | PathLike[str] | None = None,
    config_text: tuple[str, str] | None = None,
    set: list[str] = ...,
    seed: int | None = None,
    verify: bool = False,
    fail: list[str] = ...,
    scheduler: str | None = None,
    dgc: bool = False,
) -> tuple[str, str, str | None]: ...
def device_order(keys: list[str | None], threads: int) -> list[int]: ...
def json_to_toml(json: str) -> str: ...
def presets() -> list[str]: ...
def trace_info(
    path: str | PathLike[str],
    *,
    format: str | None = None,
    skip_bad_lines: bool = False,
    repeat: int = 1,
) -> str: ...
def clear_trace_cache() -> int: ...
def cached_traces() -> int: ...
def release_shared_devices() -> int: ...
def shared_devices() -> int: ...
