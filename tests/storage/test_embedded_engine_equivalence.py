"""The embedded engine's shortcuts (service/storage/embedded/tuning/) against mongomock's own
behaviour as the reference: the per-user index, ``$in`` lookups, limited finds, in-place updates
and copy-free deletes must answer exactly what stock mongomock answers, on any documents."""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta
from typing import Any

import mongomock
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from service.storage.embedded.tuning import reads, user_index, writes
from service.storage.embedded.tuning.install import install

T0 = datetime(2026, 1, 1, tzinfo=UTC)

scalars = st.one_of(
    st.integers(-5, 5),
    st.text("ab", max_size=3),
    st.none(),
    st.booleans(),
    st.integers(0, 10).map(lambda m: T0 + timedelta(minutes=m, microseconds=1234)),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.sampled_from("xyz"), inner, max_size=3)),
    max_leaves=8,
)
documents = st.lists(
    st.fixed_dictionaries(
        {"user_id": st.integers(1, 3), "n": st.integers(0, 4), "tags": st.lists(scalars, max_size=3)},
        optional={"v": values, "when": scalars},
    ),
    max_size=12,
)
updates = st.dictionaries(
    st.sampled_from(["$set", "$push", "$inc", "$max"]),
    st.dictionaries(
        st.sampled_from(["n", "tags", "v", "when", "new"]),
        st.one_of(
            values,
            st.fixed_dictionaries({"$each": st.lists(scalars, max_size=3)}, optional={"$slice": st.integers(-3, 3)}),
        ),
    ),
    min_size=1,
    max_size=3,
)


class Stock:
    """mongomock without the tuning: the original functions the tuning wraps."""

    def __enter__(self) -> None:
        self.saved = (
            mongomock.collection.Collection._iter_documents,
            mongomock.collection.Collection._update,
            mongomock.collection.Collection._delete,
        )
        mongomock.collection.Collection._iter_documents = user_index._scan_documents
        mongomock.collection.Collection._update = writes._mock_update
        mongomock.collection.Collection._delete = writes._mock_delete

    def __exit__(self, *exc: Any) -> None:
        (
            mongomock.collection.Collection._iter_documents,
            mongomock.collection.Collection._update,
            mongomock.collection.Collection._delete,
        ) = self.saved


def loaded(docs: list[dict[str, Any]]) -> Any:
    install()  # the tuning under test, as the embedded engine installs it when it starts
    collection = mongomock.MongoClient(tz_aware=True).db.c
    for i, doc in enumerate(docs):
        collection.insert_one({"_id": f"d{i:02d}", **copy.deepcopy(doc)})
    return collection


def outcome(action: Any, docs: list[dict[str, Any]]) -> tuple[Any, list[dict[str, Any]]]:
    collection = loaded(docs)
    try:
        answer: Any = action(collection)
    except Exception as exc:
        answer = ("error", type(exc).__name__)
    return answer, list(collection.find({}, sort=[("_id", 1)]))


def both(action: Any, docs: list[dict[str, Any]]) -> None:
    tuned = outcome(action, docs)
    with Stock():
        stock = outcome(action, docs)
    assert tuned == stock


@settings(max_examples=150, deadline=None)
@given(documents, st.integers(1, 3), st.sampled_from([None, {"n": 2}, {"n": {"$gte": 2}}, {"tags": "a"}]))
def test_user_filters_find_what_a_scan_finds(docs: list[dict[str, Any]], user: int, rest: Any) -> None:
    query = {"user_id": user, **(rest or {})}
    # Without a sort MongoDB promises no order (an $in lookup answers in the list's order): sets.
    both(lambda c: sorted(c.find(query), key=lambda d: d["_id"]), docs)
    both(lambda c: c.count_documents(query), docs)
    both(
        lambda c: sorted(c.find({"_id": {"$in": ["d03", "d01", "zz", "d01"]}, **(rest or {})}), key=lambda d: d["_id"]),
        docs,
    )


@settings(max_examples=150, deadline=None)
@given(documents, updates, st.integers(1, 3), st.booleans())
def test_updates_in_place_match_mongomock(
    docs: list[dict[str, Any]], update: dict[str, Any], user: int, multi: bool
) -> None:
    query = {"user_id": user}
    action = lambda c: (c.update_many if multi else c.update_one)(query, update).matched_count  # noqa: E731
    tuned = outcome(action, docs)
    with Stock():
        stock = outcome(action, docs)
    # mongomock cannot order null against a value in $max (a TypeError); MongoDB can, and the tuned
    # path follows MongoDB there (test_max_over_null_takes_the_value): no reference for those cases.
    assume(not (stock[0] == ("error", "TypeError") and "$max" in update))
    if _conflicting(update) and _refused(tuned) and _refused(stock):
        # Two operators on one path: MongoDB refuses the update (ConflictingUpdateOperators) and the
        # service never sends one; both engines refuse it too, with different Python exceptions.
        assert tuned[1] == stock[1]
        return
    assert tuned == stock


def _refused(answer: tuple[Any, list[dict[str, Any]]]) -> bool:
    return isinstance(answer[0], tuple) and answer[0][0] == "error"


def _conflicting(update: dict[str, Any]) -> bool:
    """Whether two operators of ``update`` touch the same path (or one path inside the other)."""
    paths = [path for fields in update.values() if isinstance(fields, dict) for path in fields]
    return any(
        a == b or a.startswith(b + ".") or b.startswith(a + ".") for i, a in enumerate(paths) for b in paths[i + 1 :]
    )


def test_max_over_null_takes_the_value() -> None:
    """MongoDB orders null below every number, string and date, so $max over a null field sets the
    value (user_stats keeps updated_at null for a user without a profile, then $max-es a time in)."""
    collection = loaded([{"user_id": 1, "n": 0, "tags": [], "when": None}])
    assert collection.update_one({"user_id": 1}, {"$max": {"when": T0, "n": 3}}).matched_count == 1
    stored = collection.find_one({"user_id": 1})
    assert (stored["when"], stored["n"]) == (T0, 3)


SORTS = [
    None,
    [("_id", 1)],
    [("_id", -1)],
    [("n", 1)],
    [("n", -1), ("_id", 1)],
    [("when", 1)],
    [("n", 1), ("when", -1), ("_id", -1)],
    [("v", 1)],
]


@settings(max_examples=150, deadline=None)
@given(
    documents,
    st.sampled_from([None, 1, 2]),
    st.integers(0, 5),
    st.sampled_from(SORTS),
    st.sampled_from([None, {"n": 1}, {"_id": 0}]),
)
def test_finds_and_deletes_match_mongomock(
    docs: list[dict[str, Any]], user: int | None, limit: int, sort: Any, projection: Any
) -> None:
    query = {} if user is None else {"user_id": user}
    tuned = list(reads.find_documents(_Motorish(loaded(docs)), query, projection, sort, limit))
    with Stock():
        cursor = loaded(docs).find(query, projection)
        stock = list((cursor.sort(sort) if sort else cursor).limit(limit))
    if sort is None:  # no order promised without a sort
        tuned, stock = [sorted(x, key=repr) for x in (tuned, stock)]
    assert tuned == stock
    both(lambda c: c.delete_many({**query, "n": {"$lt": 3}}).deleted_count, docs)


class _Motorish:
    """What find_documents reaches through: mongomock-motor's wrapper around a collection."""

    def __init__(self, collection: Any) -> None:
        self._AsyncMongoMockCollection__collection = collection
