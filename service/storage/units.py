"""A facade method as a unit of work: committed (durable on the embedded store) before it returns."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


def unit_of_work(method: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    @functools.wraps(method)
    async def committed(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await method(*args, **kwargs)
        finally:
            await args[0]._db.commit_async()  # type: ignore[attr-defined]  # every facade keeps its Database as _db

    return committed
