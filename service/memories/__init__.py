"""Typed memories: recommendations, insights, events, feedback and discussions, with importance, dedup, aging, plays and follow-ups."""
