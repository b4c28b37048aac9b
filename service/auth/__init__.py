"""Who may call: bearer tokens (stored hashed), the access policy, the per-token rate limit."""
