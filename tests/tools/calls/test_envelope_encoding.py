"""The envelope's JSON rendering: one copy of the result in JSON types, the same JSON as text."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from tools.calls.envelope import failure, jsonable, success


def test_jsonable_converts_and_copies() -> None:
    moment = datetime(2025, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)
    track_ids = [f"track{i:017d}" for i in range(5)]
    nested = {
        "when": moment,
        "ids": track_ids,
        "pair": (1, moment),
        7: None,
        "flags": [True, 1.5, None],
        "deep": {"list": [{"at": moment + timedelta(hours=1)}]},
    }
    out = jsonable(nested)
    assert out == {
        "when": "2025-01-02T03:04:05.678Z",
        "ids": track_ids,
        "pair": [1, "2025-01-02T03:04:05.678Z"],
        "7": None,
        "flags": [True, 1.5, None],
        "deep": {"list": [{"at": "2025-01-02T04:04:05.678Z"}]},
    }
    # Every container is a fresh copy: the envelope never aliases what the service returned.
    assert out["ids"] is not track_ids and out["deep"] is not nested["deep"]
    out["ids"].append("x")
    assert len(track_ids) == 5


def test_text_is_the_structured_content() -> None:
    moment = datetime(2025, 1, 2, tzinfo=UTC)
    for answer in (
        success({"as_of": moment, "track_ids": ["trackÅ000000000001"] * 3}),
        failure("NOT_FOUND", "no playlist «x»", {"field": "playlist_id"}),
    ):
        envelope = answer.structured_content
        assert envelope is not None
        assert json.loads(answer.content[0].text) == envelope
        assert answer.is_error == (not envelope["success"])
    assert "Å" in success({"a": "Å"}).content[0].text  # UTF-8 text, not \\u escapes
