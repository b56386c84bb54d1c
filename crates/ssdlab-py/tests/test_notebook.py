"""The example notebook runs, headless, from top to bottom."""

from __future__ import annotations

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


@pytest.mark.parametrize("name", ["replay.ipynb"])
def test_notebook_executes(name: str) -> None:
    nb = nbformat.read(EXAMPLES / name, as_version=4)
    client = nbclient.NotebookClient(
        nb, timeout=600, kernel_name="python3",
        resources={"metadata": {"path": str(EXAMPLES)}},
    )
    client.execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    # The plots rendered as images.
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) >= 4
