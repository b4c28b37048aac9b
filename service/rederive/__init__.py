"""Rederive: rebuild every derived view from the canonical records and report each difference."""
