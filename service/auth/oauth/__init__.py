"""OAuth 2.1 authorization for remote MCP clients: registered clients, consent requests,
authorization codes and grants (access and rotating refresh tokens). Nothing here knows HTTP or
MCP; ``host/oauth`` adapts it to the SDK's provider interface."""
