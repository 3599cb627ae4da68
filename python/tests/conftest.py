"""pytest set-up of the polyfuse package tests: the examples folder of the source tree."""

from pathlib import Path

import pytest

EXAMPLES_DIR = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture
def example_source():
    """The text of examples/<name>.tc."""
    return lambda name: (EXAMPLES_DIR / f"{name}.tc").read_text()
