"""Data: Beanie documents, pydantic schemas and the PRD's JSON schemas as files."""
