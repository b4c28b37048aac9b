"""The MCP adapters: tool declarations, the one call pipeline, resources, prompts and the server that lists them."""
