"""A user object shaped like a DBRef (``{"$ref": ..., "$id": ...}``) is accepted, then unreadable.

bson decodes any sub-document whose keys are ``$ref`` + ``$id`` as ``bson.dbref.DBRef``. The
embedded engine keeps the plain dict in memory, so the write is acknowledged and reads work -
until a restart loads the journal with ``bson.decode``: from then on every read of that profile
(get_profile, update_profile, export) serializes a DBRef object and answers INTERNAL, for good.
On real MongoDB the driver decodes the DBRef on every read, so it fails at once.
The service must either refuse such keys (INVALID_ARGUMENT) or give the object back as written.
"""

from __future__ import annotations

from typing import Any

from tests.support import connected

USER = 81
REF = {"$ref": "artists", "$id": "0OdUWJ0sBjDrqHygGUXeCF"}


async def test_dbref_shaped_profile_value_survives_a_restart(settings: Any) -> None:
    async with connected(settings) as call:
        written = await call("memory_update_profile", {"user_id": USER, "patch": {"favourite": REF}})
        if not written["success"]:  # refusing the key is an acceptable fix
            assert written["error"]["code"] == "INVALID_ARGUMENT", written
            return
    async with connected(settings) as call:  # restart on the same store
        profile = await call.ok("memory_get_profile", {"user_id": USER})
        assert profile["profile"] == {"favourite": REF}
        await call.ok("memory_update_profile", {"user_id": USER, "patch": {"other": 1}})
        await call.ok("memory_export_user_data", {"user_id": USER})


async def test_dbref_shaped_event_payload_survives_a_restart(settings: Any) -> None:
    event = {"user_id": USER, "type": "like", "payload": {"raw_text": "more of these", "artist": REF}}
    async with connected(settings) as call:
        written = await call("memory_append_preference_event", event)
        if not written["success"]:
            assert written["error"]["code"] == "INVALID_ARGUMENT", written
            return
    async with connected(settings) as call:
        data = (await call.ok("memory_export_user_data", {"user_id": USER}))["data"]
        assert data["preference_events"][0]["payload"]["artist"] == REF
