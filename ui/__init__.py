"""The memory page: a person sees and controls what the service remembers, in a browser."""
