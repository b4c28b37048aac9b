"""Rule checks: seeded playlists that keep every rule pass; the same playlists with one planted
violation report exactly that rule (and the tracks it names); unknown tracks are never passed."""

from __future__ import annotations

import random
from typing import Any

from service.settings import Settings
from tests.support import connected, track
from tests.support.contract import assert_valid_success

USER = 5
RULES_BASE: dict[str, Any] = {
    "max_tracks_per_artist": 2,
    "avoid_artists": ["Nickelback"],
    "avoid_genres": ["dubstep"],
    "no_duplicates": True,
    "breathers": {"placement": "mid", "max_energy": 0.4},
}


def build_catalog() -> dict[str, list[dict[str, Any]]]:
    rng = random.Random(11)
    n = iter(range(1, 10_000))

    def make(artist: str, low: float, high: float, genre: str) -> dict[str, Any]:
        i = next(n)
        return {
            "track_id": track(i),
            "name": f"Song {i}",
            "artists": [artist],
            "genres": [genre],
            "duration_ms": rng.randint(150, 330) * 1000,
            "energy": round(rng.uniform(low, high), 2),
        }

    return {
        "drive": [make(f"Driver {a}", 0.6, 0.95, "rock") for a in range(30) for _ in range(4)],
        "breather": [make(f"Calm {a}", 0.1, 0.35, "ambient") for a in range(4) for _ in range(4)],
        "avoid_artists": [make("Nickelback", 0.6, 0.9, "rock") for _ in range(3)],
        "avoid_genres": [make("Wobble", 0.6, 0.9, "dubstep") for _ in range(3)],
        "avoid_tracks": [make("Driver 99", 0.6, 0.9, "rock")],
    }


def minutes(playlist: list[dict[str, Any]]) -> float:
    return sum(t["duration_ms"] for t in playlist) / 60000


def clean_playlist(rng: random.Random, pool: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """n drive tracks, at most two per artist, one breather placed in the middle third."""
    n = rng.randint(6, 20)
    chosen: list[dict[str, Any]] = []
    per_artist: dict[str, int] = {}
    for candidate in rng.sample(pool["drive"], len(pool["drive"])):
        if per_artist.get(candidate["artists"][0], 0) < 2:
            chosen.append(candidate)
            per_artist[candidate["artists"][0]] = per_artist.get(candidate["artists"][0], 0) + 1
        if len(chosen) == n - 1:
            break
    position = rng.randint(n // 3, -(-2 * n // 3) - 1)
    chosen.insert(position, rng.choice(pool["breather"]))
    return chosen


def unused(rng: random.Random, tracks: list[dict[str, Any]], playlist: list[dict[str, Any]]) -> dict[str, Any]:
    """A track not in the playlist whose artist is not in it either (adding it breaks no count)."""
    artists = {t["artists"][0] for t in playlist}
    return rng.choice([t for t in tracks if t not in playlist and t["artists"][0] not in artists])


def drive_positions(playlist: list[dict[str, Any]]) -> list[int]:
    return [i for i, t in enumerate(playlist) if t["energy"] > 0.4]


def plant(
    rule: str, rng: random.Random, playlist: list[dict[str, Any]], pool: dict[str, list[dict[str, Any]]]
) -> tuple[list[dict[str, Any]], set[str]]:
    """The playlist with one violation of ``rule`` planted, and the track ids the violation names."""
    planted = list(playlist)
    if rule in ("avoid_artists", "avoid_genres", "avoid_tracks"):
        intruder = rng.choice(pool[rule])
        planted[rng.choice(drive_positions(planted))] = intruder
        return planted, {intruder["track_id"]}
    if rule == "no_duplicates":
        counts: dict[str, int] = {}
        for t in planted:
            counts[t["artists"][0]] = counts.get(t["artists"][0], 0) + 1
        source = rng.choice(
            [i for i in drive_positions(planted) if counts[planted[i]["artists"][0]] == 1]
            or drive_positions(planted)[:1]
        )
        target = rng.choice([i for i in drive_positions(planted) if i != source])
        if counts[planted[source]["artists"][0]] > 1:  # no single-track artist: swap in a fresh one first
            planted[source] = unused(rng, pool["drive"], planted)
        planted[target] = planted[source]
        return planted, {planted[source]["track_id"]}
    if rule == "max_tracks_per_artist":
        artist = unused(rng, pool["drive"], planted)["artists"][0]
        three = [t for t in pool["drive"] if t["artists"][0] == artist][:3]
        for position, intruder in zip(rng.sample(drive_positions(planted), 3), three):
            planted[position] = intruder
        return planted, {t["track_id"] for t in three}
    n = len(planted)
    if rule == "breathers_missing":
        middle = [i for i in range(n // 3, -(-2 * n // 3)) if planted[i]["energy"] <= 0.4]
        for i in middle:
            planted[i] = unused(rng, pool["drive"], planted)
        return planted, set()
    if rule == "breathers_edge":
        edge = rng.choice([0, n - 1])
        breather = unused(rng, pool["breather"], planted)
        planted[edge] = breather
        return planted, {breather["track_id"]}
    raise AssertionError(rule)


def window(rng: random.Random, total: float, violated: bool) -> dict[str, float]:
    if not violated:
        return {"min": round(total - rng.uniform(0.1, 10), 2), "max": round(total + rng.uniform(0.1, 10), 2)}
    if rng.random() < 0.5:
        return {"min": round(total + rng.uniform(1, 20), 2), "max": round(total + 40, 2)}
    return {"target": round(total - rng.uniform(5, 30), 2), "tolerance": 2}


PLANTS = [
    "avoid_artists",
    "avoid_genres",
    "avoid_tracks",
    "no_duplicates",
    "max_tracks_per_artist",
    "breathers_missing",
    "breathers_edge",
    "target_duration",
]


async def test_every_planted_violation_is_found_and_clean_playlists_pass(settings: Settings) -> None:
    pool = build_catalog()
    everything = [t for tracks in pool.values() for t in tracks]
    rng = random.Random(2024)
    checked = 0
    async with connected(settings) as call:
        await call.ok("memory_upsert_tracks", {"user_id": USER, "tracks": everything})
        tracks = call.service.tracks
        for case in range(240):
            clean = clean_playlist(rng, pool)
            rules = {
                **RULES_BASE,
                "avoid_tracks": [pool["avoid_tracks"][0]["track_id"]],
                "target_duration_minutes": window(rng, minutes(clean), False),
            }
            result = await tracks.check_playlist(USER, [t["track_id"] for t in clean], rules)
            assert result["ok"] and result["violations"] == [] and result["unverified"] == [], (case, result)
            rule = PLANTS[case % len(PLANTS)]
            if rule == "target_duration":
                bad, named = clean, set()
                rules["target_duration_minutes"] = window(rng, minutes(clean), True)
            else:
                bad, named = plant(rule, rng, clean, pool)
                rules["target_duration_minutes"] = window(rng, minutes(bad), False)
            result = await tracks.check_playlist(USER, [t["track_id"] for t in bad], rules)
            expected_rule = rule.split("_")[0] if rule.startswith("breathers") else rule
            assert not result["ok"], (case, rule)
            assert {v["rule"] for v in result["violations"]} == {expected_rule}, (case, rule, result["violations"])
            assert named <= {t for v in result["violations"] for t in v["track_ids"]}, (case, rule, result)
            assert all(v["message"] and v["suggestion"] for v in result["violations"])
            checked += 1
    print(f"\n{checked} clean playlists passed; {checked} planted violations found")


async def test_unknown_tracks_are_listed_and_nothing_they_touch_passes(settings: Settings) -> None:
    async with connected(settings) as call:
        known = [
            {"track_id": track(n), "name": f"S{n}", "artists": ["A"], "duration_ms": 200_000, "energy": 0.8}
            for n in range(1, 4)
        ]
        await call.ok("memory_upsert_tracks", {"user_id": USER, "tracks": known})
        ids = [track(1), track(2), track(50), track(3)]
        envelope = await call(
            "memory_check_playlist",
            {
                "user_id": USER,
                "track_ids": ids,
                "rules": {"max_tracks_per_artist": 3, "target_duration_minutes": {"min": 5, "max": 30}},
            },
        )
        assert_valid_success("memory.check_playlist", envelope)
        result = envelope["result"]
        assert result["unknown_tracks"] == [track(50)] and result["unknown_count"] == 1
        assert not result["ok"] and result["violations"] == []
        assert {u["rule"] for u in result["unverified"]} == {"max_tracks_per_artist", "target_duration"}
        # A rule the unknown track cannot rescue is a violation all the same.
        over = await call.ok(
            "memory_check_playlist",
            {
                "user_id": USER,
                "track_ids": ids,
                "rules": {"max_tracks_per_artist": 2, "target_duration_minutes": {"target": 5, "tolerance": 1}},
            },
        )
        assert {v["rule"] for v in over["violations"]} == {"max_tracks_per_artist", "target_duration"}


async def test_rules_come_from_the_profile(settings: Settings) -> None:
    profile = {
        "playlist_rules": {
            "max_tracks_per_artist": 1,
            "arc": "drive → breather → drive",
            "target_duration_minutes": {"min": 1, "max": 60},
        },
        "avoid": ["over-weighting a single artist in one playlist", "nickelback", "Dubstep"],
    }
    tracks = [
        {
            "track_id": track(1),
            "name": "How You Remind Me",
            "artists": ["Nickelback"],
            "duration_ms": 220_000,
            "energy": 0.7,
            "genres": ["post-grunge"],
        },
        {"track_id": track(2), "name": "Calm", "artists": ["Calm"], "duration_ms": 200_000, "energy": 0.2},
        {
            "track_id": track(3),
            "name": "Loud",
            "artists": ["Loud"],
            "duration_ms": 200_000,
            "energy": 0.9,
            "genres": ["dubstep"],
        },
    ]
    async with connected(settings) as call:
        await call.ok("memory_update_profile", {"user_id": USER, "patch": profile})
        await call.ok("memory_upsert_tracks", {"user_id": USER, "tracks": tracks})
        result = await call.ok("memory_check_playlist", {"user_id": USER, "track_ids": [track(1), track(2), track(3)]})
        assert result["rules_source"] == "profile"
        assert result["rules"] == {
            "no_duplicates": True,
            "max_tracks_per_artist": 1,
            "target_duration_minutes": {"min": 1, "max": 60},
            "avoid_artists": ["nickelback"],
            "avoid_genres": ["Dubstep"],
            "breathers": {"placement": "mid", "max_energy": 0.4},
        }
        assert [(v["rule"], v["track_ids"]) for v in result["violations"]] == [
            ("avoid_artists", [track(1)]),
            ("avoid_genres", [track(3)]),
        ]
        fine = await call.ok(
            "memory_check_playlist",
            {"user_id": USER, "track_ids": [track(3), track(2), track(3)], "rules": {"no_duplicates": False}},
        )
        assert fine["ok"] and fine["rules"] == {"no_duplicates": False}
        nothing = await call.ok("memory_check_playlist", {"user_id": USER + 1, "track_ids": []})
        assert nothing["ok"] and nothing["rules"] == {"no_duplicates": True}


async def test_a_duration_bound_too_large_for_json_is_no_bound(settings: Settings) -> None:
    """1.7e308 minutes + 10 % overflows to infinity: the answer (text and structured content alike,
    which the in-process caller compares) says no upper bound, not Infinity in one and null in the
    other; the same from the profile, whose values no schema bounds."""
    async with connected(settings) as call:
        inline = await call(
            "memory_check_playlist",
            {"user_id": USER, "track_ids": [track(1)], "rules": {"target_duration_minutes": {"target": 1.7e308}}},
        )
        assert_valid_success("memory.check_playlist", inline)
        await call.ok(
            "memory_update_profile",
            {"user_id": USER, "patch": {"playlist_rules": {"target_duration_minutes": 1.7e308}}},
        )
        stored = await call.ok("memory_check_playlist", {"user_id": USER, "track_ids": [track(1)]})
    for rules in (inline["result"]["rules"], stored["rules"]):
        assert rules["target_duration_minutes"] == {"min": 1.7e308 - 1.7e308 * 0.1, "max": None}
