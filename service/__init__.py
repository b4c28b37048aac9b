"""The domain: what Taste Memory remembers and how, grouped by concern; no MCP, no HTTP."""
