"""How big and how long: the full run and the quick run (CI) of the same rows."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class UserSize:
    events: int
    playlists: int
    tracks: int
    mutations: int

    def describe(self) -> str:
        return (
            f"{self.events} preference events, {self.playlists} playlists of {self.tracks} tracks "
            f"with {self.mutations} mutations each, the PRD example profile"
        )


@dataclass(frozen=True)
class Plan:
    name: str
    warmup: int
    iters: int  # sequential calls per tool and transport
    conc_calls: int  # calls per session in the concurrent runs
    conc_warmup: int  # untimed calls per session before them (the quick run only checks the rows are made)
    user: UserSize
    scale_users: tuple[int, ...]
    scale_iters: int
    ledger: tuple[tuple[int, int], ...]  # (tracks, mutations)
    ledger_samples: int
    ledger_mcp_mutations: int  # mutations timed through the in-process MCP client after the load
    rules_tracks: int  # the playlist a rule-checked mutation reports on
    rules_calls: int  # mutations timed with check_rules and as many without, per client
    search_sizes: tuple[int, ...]
    search_iters: int
    peer_sizes: tuple[int, ...]
    peer_iters: int
    peer_npx: bool  # start each reference server with `npx -y` (else its command, found by the probe's npx run)
    durability_iters: int
    share_floor: bool  # one floor SSE server for the floor and tools sections (else a fresh one for each)
    budget: float | None  # seconds one slow measurement may take (at least 10 calls)
    list_users_iters: int
    small_users: int  # the "1,000 small users" store (profile, 2 events, 1 small playlist each)
    startup_calls: int  # calls made before the second RSS reading
    load_sessions: int
    load_seconds: float  # the paced window (agents thinking between calls), judged against the targets
    load_think_s: float  # mean pause of a paced session between calls
    load_saturated_seconds: float  # then the same sessions without pauses: throughput, errors under pressure
    load_timeout: float  # a call slower than this counts as a timeout (the client gives up)
    load_max_calls: int  # per session: the load loop is bounded in count as well as in time
    load_readers: int  # realistic users the load sessions read (their stores hold that many)
    context_sizes: tuple[int, ...]  # preference events (and as many memories) of each measured user
    context_iters: int


FULL = Plan(
    name="full",
    warmup=10,
    iters=100,
    conc_calls=5,
    conc_warmup=1,
    user=UserSize(events=200, playlists=25, tracks=60, mutations=20),
    scale_users=(1, 10, 50),
    scale_iters=25,
    ledger=((50, 100), (500, 1_000), (5_000, 10_000)),
    ledger_samples=100,
    ledger_mcp_mutations=200,
    rules_tracks=5_000,
    rules_calls=200,
    search_sizes=(1_000, 10_000, 50_000),
    search_iters=60,
    peer_sizes=(1_000, 10_000),
    peer_iters=60,
    peer_npx=True,
    durability_iters=150,
    share_floor=False,
    budget=30.0,
    list_users_iters=100,
    small_users=1_000,
    startup_calls=10,
    load_sessions=32,
    load_seconds=60.0,
    load_think_s=1.0,
    load_saturated_seconds=30.0,
    load_timeout=30.0,
    load_max_calls=20_000,
    load_readers=8,
    context_sizes=(500, 2_000, 5_000, 20_000),
    context_iters=60,
)
QUICK = Plan(
    name="quick",
    warmup=2,
    iters=6,
    conc_calls=1,
    conc_warmup=0,
    user=UserSize(events=30, playlists=4, tracks=30, mutations=5),
    scale_users=(1, 10, 50),
    scale_iters=3,
    ledger=((50, 100), (500, 500), (5_000, 300)),
    ledger_samples=10,
    ledger_mcp_mutations=10,
    rules_tracks=5_000,
    rules_calls=10,
    search_sizes=(300, 1_000, 3_000),
    search_iters=6,
    peer_sizes=(1_000, 2_000),
    peer_iters=8,  # 1k is the target's size; 10k would cost CI half a minute
    peer_npx=False,  # npx resolves the package again at every start: a second or more each in CI
    durability_iters=12,
    share_floor=True,
    budget=None,
    list_users_iters=5,
    small_users=1_000,
    startup_calls=10,
    load_sessions=32,
    load_seconds=3.0,
    load_think_s=1.0,
    load_saturated_seconds=2.0,
    load_timeout=30.0,
    load_max_calls=1_000,
    load_readers=8,
    context_sizes=(500, 1_000),
    context_iters=5,
)


def warm(plan: Plan) -> str:
    """How the slow rows were sampled, for the tables' notes."""
    if plan.budget is None:
        return f"after {plan.warmup} warm-up"
    return (
        f"after at most 3 warm-up, stopping once {plan.budget:.0f} s are spent and at least 10 calls are "
        'timed ("calls" column)'
    )
