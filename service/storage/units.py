"""A facade method as a unit of work: committed (durable on the embedded store) before it returns;
if it fails, none of its writes remain."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from typing import Concatenate, ParamSpec, Protocol, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


class _Store(Protocol):
    def unit(self) -> AbstractAsyncContextManager[None]: ...


class _Facade(Protocol):
    @property
    def _db(self) -> _Store: ...  # every facade keeps its Database as _db


F = TypeVar("F", bound=_Facade)


def unit_of_work(method: Callable[Concatenate[F, P], Awaitable[R]]) -> Callable[Concatenate[F, P], Awaitable[R]]:
    @functools.wraps(method)
    async def committed(facade: F, /, *args: P.args, **kwargs: P.kwargs) -> R:
        async with facade._db.unit():
            return await method(facade, *args, **kwargs)

    return committed
