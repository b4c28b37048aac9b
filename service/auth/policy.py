"""The access policy: which principal may call which tool for which user.

A ``user`` token acts only for its user ids. An ``operator`` token may also read any user's
memory, delete any user's data and call the operator tools; writing into a user's memory stays
with that user's own tokens (an operator fixes data with the CLI, not by impersonating the
assistant). Every refusal is decided from the token alone, before any read, so the answer is
the same whether or not the other user has data.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from service.errors import NotAuthenticated, OperatorOnly, ScopeNotGranted, UserNotCovered


class Access(Enum):
    READ = "read"  # reads one user's memory
    WRITE = "write"  # changes one user's memory
    DELETE = "delete"  # deletes one user's memory
    LIST_USERS = "list_users"  # any caller; the answer is limited to the users it may see
    OPERATOR = "operator"  # operator tokens only


@dataclass(frozen=True)
class Principal:
    """A verified caller. ``name`` is what the audit trail records (a token id, never a secret)."""

    name: str
    role: str  # user | operator
    user_ids: frozenset[int]
    unrestricted: bool = False  # open mode on loopback, stdio and the CLI: the machine's own user
    rate_limit_per_minute: int | None = None  # this token's own limit (None: the server's)
    # An OAuth grant's scopes; None for the operator's tokens, stdio and the page (not scope-limited).
    scopes: frozenset[str] | None = None

    def covers(self, user_id: int) -> bool:
        return self.unrestricted or user_id in self.user_ids

    def may_see(self, user_id: int) -> bool:
        return self.unrestricted or self.role == "operator" or user_id in self.user_ids


OPEN = Principal(name="open", role="operator", user_ids=frozenset(), unrestricted=True)
LOCAL = Principal(name="local", role="operator", user_ids=frozenset(), unrestricted=True)


def authenticated(principal: Principal | None) -> Principal:
    if principal is None:
        raise NotAuthenticated(
            "this server requires a valid bearer token (it was missing, unknown or revoked): send "
            "'Authorization: Bearer <token>'; an operator creates one with 'memory-service token create'"
        )
    return principal


def required_scope(access: Access, control: bool = False) -> str:
    """The OAuth scope a call needs: reads read, writes write, the switches, forgetting, deleting
    and importing (``control``) need control."""
    if control or access in (Access.DELETE, Access.OPERATOR):
        return "memory:control"
    return "memory:write" if access is Access.WRITE else "memory:read"


def authorize(principal: Principal | None, access: Access, user_id: int | None, control: bool = False) -> Principal:
    """Return the principal if it may make this call, else raise the condition."""
    principal = authenticated(principal)
    if principal.unrestricted:
        return principal
    if principal.scopes is not None and required_scope(access, control) not in principal.scopes:
        raise ScopeNotGranted(f"this client was not granted {required_scope(access, control)}; authorize it again")
    if access is Access.OPERATOR and principal.role != "operator":
        raise OperatorOnly("this tool needs an operator token")
    if user_id is None or access in (Access.LIST_USERS, Access.OPERATOR):
        return principal
    if principal.covers(user_id):
        return principal
    if principal.role == "operator" and access in (Access.READ, Access.DELETE):
        return principal
    raise UserNotCovered("this token does not cover this user_id", {"field": "user_id"})
