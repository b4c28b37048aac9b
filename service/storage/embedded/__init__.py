"""The embedded engine: mongomock in process, made durable by a SQLite journal."""
