"""The five playbook prompts: which tools to call, in which order, for each flow.

The PRD playbook (§10) is also the server's instructions; these are the same flows as a user picks
them in a client (a slash command), with the user's arguments filled in. They embed no stored
data: a prompt tells the model which read to call, so every byte of a user's memory still passes
the tools' auth, isolation and switches. Tool names are written in the plain wire style with their
arguments, ``memory_get_profile(user_id=1)``, and renamed for ``MEMORY_TOOL_NAMES=dotted``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from service.timeutil import is_rfc3339
from tools.prompts.arguments import Argument, count, length, text, user_id

Step = tuple[frozenset[str], str]  # (PRD names of the tools the step calls, its text)
NO_TOOL: frozenset[str] = frozenset()


@dataclass(frozen=True)
class PromptSpec:
    name: str
    title: str
    description: str
    arguments: list[Argument]
    needs: frozenset[str]  # offered only when these tools are listed (MEMORY_TOOLSETS)
    steps: Callable[[dict[str, Any]], list[Step]]  # a step whose tools are not listed is left out


def _uses(*names: str) -> frozenset[str]:
    return frozenset(names)


def _q(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)  # the user's words, quoted safely inside the text


USER = Argument("user_id", "The user's id in Taste Memory (a positive integer; ops_list_users lists them).", user_id)


def _start_session(v: dict[str, Any]) -> list[Step]:
    uid = v.get("user_id", "<user_id>")
    focus = f", focus={_q(v['focus'])}" if "focus" in v else ""
    who: Step = (
        (NO_TOOL, f"The user is user_id={uid}.")
        if "user_id" in v
        else (
            _uses("ops.list_users"),
            "Call ops_list_users(). If exactly one user is listed, use it; otherwise ask me which one I am.",
        )
    )
    return [
        who,
        (
            _uses("memory.get_context"),
            f"Call memory_get_context(user_id={uid}, budget_tokens=800{focus}) and keep "
            "its Prefer / Avoid / Rules / Recent playlists / Open follow-ups block in mind for the whole session.",
        ),
        (
            _uses("memory.get_profile"),
            f"Call memory_get_profile(user_id={uid}): apply its playlist_rules "
            "(max_tracks_per_artist, default 3) and avoid list to everything you suggest.",
        ),
        (
            _uses("memory.get_playlists"),
            f"If I mention an earlier playlist, call memory_get_playlists(user_id={uid}, "
            "limit=10) to find its playlist_id.",
        ),
        (
            _uses("memory.open_followups"),
            f"Call memory_open_followups(user_id={uid}); if a recommendation is due, ask me about it in one sentence.",
        ),
        (NO_TOOL, "Then greet me in a sentence or two that shows what you remember; do not recite the profile."),
    ]


def _remember(v: dict[str, Any]) -> list[Step]:
    uid, said, reason = v["user_id"], _q(v["preference"]), _q("User feedback: " + v["preference"])
    return [
        (NO_TOOL, f"I said: {said}. Remember it."),
        (
            _uses("memory.append_preference_event"),
            f"Call memory_append_preference_event(user_id={uid}, type=like|dislike"
            f"|rule|feedback|note (pick one), payload={{raw_text: {said}, plus artist, genre or track_id when it names "
            'one}, source="user") to record what I said, word for word.',
        ),
        (
            _uses("memory.get_profile", "memory.update_profile"),
            f"If it is a lasting rule or taste, call "
            f"memory_get_profile(user_id={uid}), then memory_update_profile(user_id={uid}, patch=<a JSON merge patch of "
            "the normalized rule: playlist_rules.max_tracks_per_artist, energy_preferences, avoid, core_genres or "
            f"secondary_vibes; arrays replace whole, so send the full new array>, reason={reason}, "
            'source="user"). A one-off remark stays an event only.',
        ),
        (NO_TOOL, "Then tell me in one sentence what you will remember."),
    ]


def _make_playlist(v: dict[str, Any]) -> list[Step]:
    uid, theme = v["user_id"], v["theme"]
    size = f"{v['length'][0]} {v['length'][1]}" if "length" in v else "a length that suits it"
    return [
        (NO_TOOL, f"Make me a playlist for {_q(theme)}, {size}, under my rules."),
        (
            _uses("memory.get_context"),
            f"Call memory_get_context(user_id={uid}, budget_tokens=1200, focus={_q(theme)}).",
        ),
        (
            _uses("memory.get_profile"),
            f"Call memory_get_profile(user_id={uid}) and take its playlist_rules "
            "(max_tracks_per_artist, default 3; target_duration_minutes; arc or break_placement) and avoid list "
            "as hard rules.",
        ),
        (
            _uses("memory.search"),
            f"Call memory_search(user_id={uid}, query={_q(theme)}) for earlier playlists like it "
            "to seed from; never repeat one whole.",
        ),
        (NO_TOOL, "Pick candidate tracks with your music-service tools, capping tracks per artist as the rules say."),
        (
            _uses("memory.upsert_tracks"),
            f"Call memory_upsert_tracks(user_id={uid}, tracks=[...]) with name, artists, "
            "duration and energy of candidates memory does not know yet, so the rules can be checked.",
        ),
        (
            _uses("memory.check_playlist"),
            f"Call memory_check_playlist(user_id={uid}, track_ids=[the ordered ids]); fix "
            "every violation and unverified rule you can and check again until ok is true.",
        ),
        (
            _uses("memory.log_playlist_create"),
            f"Create the playlist on the music service, then at once call "
            f"memory_log_playlist_create(user_id={uid}, playlist_id, name, track_ids=[exactly as added, in order], "
            f"intent_tags, seed_context={{theme: {_q(theme)}, length, rules applied}}, idempotency_key) so a retry is safe.",
        ),
        (
            _uses("memory.log_playlist_mutation"),
            "Log every later edit with memory_log_playlist_mutation "
            "(ADD_TRACKS, REMOVE_TRACKS, REORDER, UPDATE_META) and a client_event_id.",
        ),
    ]


def _what_was_in(v: dict[str, Any]) -> list[Step]:
    uid, named = v["user_id"], v["playlist"]
    is_id = " " not in named and 10 <= len(named) <= 80
    find: Step = (
        (NO_TOOL, f"The playlist_id is {_q(named)}.")
        if is_id
        else (
            _uses("memory.search"),
            f"Call memory_search(user_id={uid}, query={_q(named)}) to find its playlist_id; if several fit, ask me.",
        )
    )
    if "when" not in v:
        at, moment = "", "now"
    elif is_rfc3339(v["when"]):
        at, moment = f", at_time={_q(v['when'])}", f"at {v['when']}"
    else:  # words such as 'last Friday': the model knows today's date, the server does not know the user's zone
        at, moment = ", at_time=<that moment as RFC 3339 UTC, e.g. 2026-01-31T12:00:00Z>", f"at {_q(v['when'])}"
    return [
        (
            NO_TOOL,
            f"What was in the playlist {_q(named)} {moment}? Memory is the record: do not read it back from the "
            "music service.",
        ),
        find,
        (
            _uses("memory.reconstruct_playlist"),
            f"Call memory_reconstruct_playlist(user_id={uid}, playlist_id{at}, "
            "include_tracks=true) for the exact ordered contents. NOT_FOUND for a time before its creation means it did "
            "not exist yet: say so.",
        ),
        (
            _uses("memory.diff_playlist"),
            f"If I ask what changed since, call memory_diff_playlist(user_id={uid}, "
            "playlist_id, from_time=<that time>).",
        ),
        (NO_TOOL, "List the tracks by name in order, with the count."),
    ]


def _follow_up(v: dict[str, Any]) -> list[Step]:
    uid, limit = v["user_id"], v.get("limit", 5)
    return [
        (
            _uses("memory.log_plays"),
            f"If your tools can read my recent plays, first call memory_log_plays(user_id={uid}, "
            "plays=[{artist, track, played_at, ...}]) so the check sees them.",
        ),
        (
            _uses("memory.open_followups"),
            f"Call memory_open_followups(user_id={uid}, limit={limit}): the recommendations "
            "you made that are due for a follow-up, oldest first.",
        ),
        (
            _uses("memory.validate_recommendation"),
            f"For each, call memory_validate_recommendation(user_id={uid}, "
            "memory_id=<its id>) and ask me its follow-up line, honestly: if I never played it, say so.",
        ),
        (
            _uses("memory.add"),
            f'Record my answer with memory_add(user_id={uid}, type="feedback", entities, summary, '
            'importance); a lasting like or dislike also goes to memory_append_preference_event with source="user".',
        ),
    ]


PROMPTS: list[PromptSpec] = [
    PromptSpec(
        "start_session",
        "Start a session",
        "Open a music session: who the user is, what memory holds about their taste, and anything due for a follow-up.",
        [
            Argument(
                "user_id",
                "The user's id, if known; without it the model lists the users and asks.",
                user_id,
                required=False,
            ),
            Argument(
                "focus", "What this session is about (an artist, a mood, a genre), optional.", text(200), required=False
            ),
        ],
        _uses("memory.get_profile", "memory.get_playlists"),
        _start_session,
    ),
    PromptSpec(
        "remember_preference",
        "Remember a preference",
        "Record something the user said about their taste, then fold a lasting rule into the profile.",
        [
            USER,
            Argument(
                "preference", "What the user said, in their words (e.g. 'no more than 2 songs per artist').", text(2000)
            ),
        ],
        _uses("memory.append_preference_event", "memory.update_profile"),
        _remember,
    ),
    PromptSpec(
        "make_playlist_under_my_rules",
        "Make a playlist under my rules",
        "Build a playlist that follows the profile's rules, check it, and log it to memory the moment it exists.",
        [
            USER,
            Argument("theme", "The playlist's name or mood (e.g. 'upbeat symphonic metal for running').", text(200)),
            Argument(
                "length",
                "How long: a number of tracks ('25', '25 tracks') or minutes ('90 minutes').",
                length,
                required=False,
            ),
        ],
        _uses("memory.get_profile", "memory.log_playlist_create"),
        _make_playlist,
    ),
    PromptSpec(
        "what_was_in_that_playlist",
        "What was in that playlist",
        "The exact contents of a logged playlist "
        "now or at an earlier moment, from memory rather than the music service.",
        [
            USER,
            Argument("playlist", "The playlist's id, or words from its name or mood.", text(200)),
            Argument(
                "when",
                "A moment (an RFC 3339 time or words such as 'last Friday'); default now.",
                text(100),
                required=False,
            ),
        ],
        _uses("memory.reconstruct_playlist", "memory.search"),
        _what_was_in,
    ),
    PromptSpec(
        "follow_up_recommendations",
        "Follow up on recommendations",
        "Ask about recommendations that are due, checked against what the user actually played.",
        [
            USER,
            Argument(
                "limit", "How many due recommendations at most (1-100, default 5).", count(1, 100), required=False
            ),
        ],
        _uses("memory.open_followups", "memory.validate_recommendation"),
        _follow_up,
    ),
]
