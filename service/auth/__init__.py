"""Who may call: bearer tokens (stored hashed), the access policy, the per-token rate limit."""

from service.auth.policy import Access, Principal, authenticated, authorize
from service.auth.ratelimit import RateLimiter
from service.auth.tokens import TokenRecord, TokenStore

__all__ = ["Access", "Principal", "RateLimiter", "TokenRecord", "TokenStore", "authenticated", "authorize"]
