"""What makes mongomock fit to be the embedded engine, installed when the engine starts."""
