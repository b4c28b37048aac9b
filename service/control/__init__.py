"""The user's control over their memory: switches, inspect, explain, forget."""
