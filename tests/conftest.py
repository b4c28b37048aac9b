"""Shared fixtures: one suite, two backends.

The backend fixtures (``backend``, ``settings``, ``settings_factory``) live in
``tests/support/backends.py``, loaded here as a plugin; its docstring says how a test runs on both.
"""

from __future__ import annotations

import os

import pytest

pytest_plugins = ["tests.support.backends"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The ``slow`` tests first (stable, otherwise in file order): the two workers take the long
    ones while everything is still queued, and the short ones fill in at the end, instead of one
    worker finishing a two-minute benchmark alone after the other has run out of work."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture(autouse=True)
def _isolated_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    # A developer's own MEMORY_* variables must not leak into the settings tests build.
    for name in list(os.environ):
        if name.startswith("MEMORY_") and name != "MEMORY_TEST_MONGODB_URI":
            monkeypatch.delenv(name)
