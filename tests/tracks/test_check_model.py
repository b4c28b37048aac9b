"""The rule check against a plain model: for random catalogs (artists and genres that fold alike,
titles shared by two artists, missing durations and energies), playlists (unknown and repeated
tracks) and profiles (avoid entries naming artists, genres, titles and "title – artist", ids), every
page of ``memory_check_playlist`` and the ``rule_report`` of a logged creation are what a
straightforward reading of the rules gives, written here: each rule walks the whole playlist.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import random
import re
from collections import Counter, defaultdict
from typing import Any

from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from service.limits import json_bytes
from service.paging import PAGE_BYTES, encode_cursor, shares
from service.settings import Settings
from service.text.words import folded_text
from tests.support import Caller, connected, track
from tests.support.contract import assert_valid_success

Track = dict[str, Any]
ARTISTS = ["Björk", "bjork", "AC/DC", "Los del Río", "Blur", "Nickelback"]
GENRES = ["metal", "Metal", "dubstep", "latin pop"]
TITLES = ["Macarena", "Song 2", "Halo", "Photograph"]
SPLIT = re.compile(r"\s+[-–—]\s+")


# -- the model ----------------------------------------------------------------------------------
def named(entry: str, catalog: list[Track]) -> list[str]:
    """The catalog tracks an avoid entry names: its title, or "title – artist" (that artist's only)."""
    found = [t["track_id"] for t in catalog if folded_text(entry) and folded_text(t["name"]) == folded_text(entry)]
    for split in SPLIT.finditer(entry):
        title, artist = folded_text(entry[: split.start()]), folded_text(entry[split.end() :])
        found += [
            t["track_id"]
            for t in catalog
            if title and artist and folded_text(t["name"]) == title and artist in map(folded_text, t["artists"])
        ]
    return list(dict.fromkeys(found))


def model(playlist: list[str], catalog: list[Track], rules: dict[str, Any]) -> dict[str, list[Any]]:
    known = {t["track_id"]: t for t in catalog}
    distinct = list(dict.fromkeys(playlist))
    unknown = [t for t in distinct if t not in known]
    violations: list[dict[str, Any]] = []
    unverified: list[dict[str, Any]] = []

    def ids(found: list[str]) -> list[str]:
        return list(dict.fromkeys(found))[:50]

    def violate(rule: str, found: list[str], message: str, suggestion: str) -> None:
        violations.append({"rule": rule, "track_ids": ids(found), "message": message, "suggestion": suggestion})

    def cannot(rule: str, found: list[str], what: str) -> None:
        if found:
            unverified.append({"rule": rule, "track_ids": ids(found), "message": f"{len(set(found))} track(s) {what}"})

    def values(track_id: str, field: str) -> list[str]:
        return list(known.get(track_id, {}).get(field) or [])

    if rules.get("no_duplicates", True):
        for t, n in Counter(playlist).items():
            if n > 1:
                violate(
                    "no_duplicates", [t], f"{t} appears {n} times", f"keep one occurrence and remove the other {n - 1}"
                )
    if "max_tracks_per_artist" in rules:
        limit = rules["max_tracks_per_artist"]
        by: defaultdict[str, list[tuple[str, str]]] = defaultdict(list)
        for t in playlist:
            for a in values(t, "artists"):
                by[folded_text(a)].append((t, a))
        for pairs in by.values():
            if len(pairs) > limit:
                who = pairs[0][1]
                violate(
                    "max_tracks_per_artist",
                    [t for t, _ in pairs],
                    f"{len(pairs)} tracks by {who} (at most {limit})",
                    f"remove or swap {len(pairs) - limit} of the tracks by {who}",
                )
        cannot("max_tracks_per_artist", unknown, "not in the catalog: their artists are unknown")
    if "target_duration_minutes" in rules:
        low, high = rules["target_duration_minutes"]["min"], rules["target_duration_minutes"]["max"]
        minutes = sum(known[t]["duration_ms"] or 0 for t in playlist if t in known) / 60000
        unread = [t for t in distinct if t not in known or known[t]["duration_ms"] is None]
        span = f"{low if low is not None else 0:g}–{high:g}" if high is not None else f"at least {low:g}"
        if high is not None and minutes > high:
            violate(
                "target_duration",
                [],
                f"{minutes:.1f} minutes, more than the target {span} minutes",
                f"remove about {minutes - high:.0f} minutes of tracks",
            )
        elif unread:
            cannot("target_duration", unread, f"without a known duration (known total {minutes:.1f} min)")
        elif low is not None and minutes < low:
            violate(
                "target_duration",
                [],
                f"{minutes:.1f} minutes, less than the target {span} minutes",
                f"add about {low - minutes:.0f} minutes of tracks",
            )
    if rules.get("avoid_tracks"):
        names = {e: found for e in dict.fromkeys(rules["avoid_tracks"]) if (found := named(e, catalog))}
        hits = [t for t in playlist if t in set(rules["avoid_tracks"]) - set(names)]
        if hits:
            violate("avoid_tracks", hits, f"{len(set(hits))} track(s) the user avoids", "remove these tracks")
        for entry, found in names.items():
            if in_list := [t for t in playlist if t in found]:
                violate(
                    "avoid_tracks",
                    in_list,
                    f"{len(set(in_list))} track(s) named {entry}, which the user avoids",
                    f"remove or swap {entry}",
                )
        if names:
            cannot("avoid_tracks", unknown, "not in the catalog: their names are unknown")
    for rule, field, said, suggestion in (
        ("avoid_artists", "artists", "by {}, whom the user avoids", "remove or swap the tracks by {}"),
        ("avoid_genres", "genres", "of {}, which the user avoids", "remove or swap the {} tracks"),
    ):
        if rules.get(rule):
            avoided = {folded_text(a): a for a in rules[rule]}
            by_key: defaultdict[str, list[str]] = defaultdict(list)
            for t in playlist:
                for v in values(t, field):
                    if folded_text(v) in avoided:
                        by_key[folded_text(v)].append(t)
            for key, found in by_key.items():
                name = avoided[key]
                violate(rule, found, f"{len(set(found))} track(s) {said.format(name)}", suggestion.format(name))
            cannot(rule, unknown, f"not in the catalog: their {field} are unknown")
    if "breathers" in rules and len(playlist) >= 3:
        most, n = rules["breathers"]["max_energy"], len(playlist)
        start, end = n // 3, -(-2 * n // 3)
        energy = {t: known.get(t, {}).get("energy") for t in playlist}
        low_ones = [t for t in playlist if energy[t] is not None and energy[t] <= most]
        for position, where in ((0, "opens"), (n - 1, "closes")):
            t = playlist[position]
            if t in low_ones:
                violate(
                    "breathers",
                    [t],
                    f"a breather (energy {energy[t]:g}) {where} the playlist",
                    f"move it to the middle (positions {start + 1}–{end}) and put a driving track here",
                )
        middle = playlist[start:end]
        if not set(middle) & set(low_ones):
            if unread := [t for t in middle if energy[t] is None]:
                cannot("breathers", unread, "mid-way without a known energy")
            else:
                violate(
                    "breathers",
                    low_ones,
                    f"no breather (energy ≤ {most:g}) mid-way",
                    f"put a low-energy track at positions {start + 1}–{end}"
                    + (" (move one of these there)" if low_ones else ""),
                )
        cannot(
            "breathers",
            [t for t in (playlist[0], playlist[-1]) if energy[t] is None],
            "opening or closing without a known energy",
        )
    return {"violations": violations, "unverified": unverified, "unknown_tracks": unknown}


def pages(playlist: list[str], lists: dict[str, list[Any]], rules: dict[str, Any]) -> list[dict[str, Any]]:
    """Every page of the answer, as the check pages its lists."""
    digest = hashlib.sha256(json.dumps([playlist, rules], sort_keys=True).encode()).hexdigest()[:16]
    at, answers = dict.fromkeys(lists, 0), []
    while True:
        taken = shares(lists, at, PAGE_BYTES - json_bytes(rules))
        taken["violations"] = min(taken["violations"], 50)
        after = {k: at[k] + taken[k] for k in lists}
        more = any(after[k] < len(v) for k, v in lists.items())
        answers.append(
            {
                "ok": not lists["violations"] and not lists["unverified"],
                **{k: v[at[k] : after[k]] for k, v in lists.items()},
                "violation_count": len(lists["violations"]),
                "unknown_count": len(lists["unknown_tracks"]),
                "rules": rules,
                "next_cursor": encode_cursor("check", {**after, "h": digest}) if more else None,
            }
        )
        if not more:
            return answers
        at = after


def report(first: dict[str, Any]) -> dict[str, Any]:
    """A rule report: the first page, cut shorter."""
    return {
        "ok": first["ok"],
        "situation": None,
        "violations": [{**v, "track_ids": v["track_ids"][:10]} for v in first["violations"][:10]],
        "violation_count": first["violation_count"],
        "unverified": sorted({u["rule"] for u in first["unverified"]}),
        "unknown_tracks": first["unknown_tracks"][:50],
        "unknown_count": first["unknown_count"],
    }


# -- through the tools ------------------------------------------------------------------------------
users = itertools.count(3000)


async def compare(call: Caller, catalog: list[Track], profile: dict[str, Any], playlist: list[str]) -> int:
    """How many pages the check answered (each compared)."""
    user = next(users)
    for start in range(0, len(catalog), 500):  # at most 500 a call
        await call.ok("memory_upsert_tracks", {"user_id": user, "tracks": catalog[start : start + 500]})
    await call.ok("memory_update_profile", {"user_id": user, "patch": profile, "create_if_missing": True})
    arguments: dict[str, Any] = {"user_id": user, "track_ids": playlist}
    first = assert_valid_success("memory.check_playlist", await call("memory_check_playlist", arguments))
    assert first["rules_source"] == "profile"
    want = pages(playlist, model(playlist, catalog, first["rules"]), first["rules"])
    got = [first]
    while got[-1]["next_cursor"] is not None:
        more = await call("memory_check_playlist", {**arguments, "cursor": got[-1]["next_cursor"]})
        got.append(assert_valid_success("memory.check_playlist", more))
    assert [{k: v for k, v in page.items() if k not in ("user_id", "rules_source")} for page in got] == want
    # The same rules given inline: the catalog is read from the store (as on MongoDB), not the analysed copy.
    rules = {
        k: {b: n for b, n in v.items() if n is not None} if k == "target_duration_minutes" else v  # no null bound
        for k, v in first["rules"].items()
    }
    inline = {**arguments, "rules": rules}
    given = assert_valid_success("memory.check_playlist", await call("memory_check_playlist", inline))
    assert given["rules_source"] == "inline" and {**given, "rules_source": "profile"} == first
    created = await call(
        "memory_log_playlist_create",
        {"user_id": user, "playlist_id": "modelled0000000001", "name": "x", "track_ids": playlist, "check_rules": True},
    )
    assert assert_valid_success("memory.log_playlist_create", created)["rule_report"] == report(want[0])
    return len(got)


def catalogs(draw: st.DrawFn) -> list[Track]:
    return [
        {
            "track_id": track(i),
            "name": draw(st.sampled_from(TITLES)),
            "artists": draw(st.lists(st.sampled_from(ARTISTS), min_size=1, max_size=2)),
            "genres": draw(st.lists(st.sampled_from(GENRES), max_size=2)),
            "duration_ms": draw(st.one_of(st.none(), st.integers(60_000, 400_000))),
            "energy": draw(st.one_of(st.none(), st.sampled_from([0.1, 0.3, 0.4, 0.5, 0.9]))),
        }
        for i in range(draw(st.integers(1, 8)))
    ]


@st.composite
def cases(draw: st.DrawFn) -> tuple[list[Track], dict[str, Any], list[str]]:
    catalog = catalogs(draw)
    ids = [t["track_id"] for t in catalog] + [track(100), track(101)]
    playlist = draw(st.lists(st.sampled_from(ids), min_size=1, max_size=14))
    entries = ARTISTS + GENRES + TITLES + ["Halo – Blur", "Song 2 - björk", "too much of one artist"]
    rules: dict[str, Any] = {}
    if draw(st.booleans()):
        rules["max_tracks_per_artist"] = draw(st.integers(1, 3))
    if draw(st.booleans()):
        rules["target_duration_minutes"] = draw(
            st.sampled_from([{"min": 5, "max": 20}, {"target": 12}, 30, {"min": 10}])
        )
    for key, pool in (("avoid_artists", ARTISTS), ("avoid_genres", GENRES), ("avoid_tracks", TITLES + ids)):
        if draw(st.booleans()):
            rules[key] = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=3))
    if draw(st.booleans()):
        rules["arc"] = "drive → breather → drive"
    profile = {"avoid": draw(st.lists(st.sampled_from(entries), max_size=4)), "playlist_rules": rules}
    return catalog, profile, playlist


@hsettings(
    max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(case=cases())
async def test_the_check_and_the_report_are_the_models(settings: Settings, case: tuple[Any, ...]) -> None:
    catalog, profile, playlist = case
    async with connected(settings) as call:
        await compare(call, catalog, profile, playlist)


async def test_long_playlists_page_as_the_model_does(settings: Settings) -> None:
    """Hundreds of violations over several pages: with a track listed twice, and with hundreds of
    unknown tracks as well."""
    rng = random.Random(5)
    artists = [f"Artist {k}" for k in range(150)] + ARTISTS
    catalog = [
        {
            "track_id": track(i),
            "name": rng.choice(TITLES) if i % 50 == 0 else f"Tune {i}",
            "artists": rng.sample(artists, rng.choice([1, 1, 1, 2])),
            "genres": rng.sample(GENRES, rng.randint(0, 2)),
            "duration_ms": rng.randint(150_000, 330_000),
            "energy": round(rng.random(), 2),
        }
        for i in range(600)
    ]
    profile = {
        "avoid": ["Macarena", "Halo – Blur", "dubstep", "Nickelback"],
        "playlist_rules": {"max_tracks_per_artist": 2, "target_duration_minutes": {"min": 60, "max": 120}},
        "energy_preferences": {"break_placement": "mid-playlist"},
    }
    ids = [t["track_id"] for t in catalog]
    async with connected(settings) as call:
        assert await compare(call, catalog, profile, ids[:500]) > 2
        assert await compare(call, catalog, profile, [*ids[:400], ids[7], track(9999), *ids[400:]]) > 2
        # Unknown tracks enough to share the first page with the violations.
        assert await compare(call, catalog, profile, [*ids[:300], *(track(20_000 + k) for k in range(400))]) > 2
