"""The memory page (issue 16): a person sees and controls what the service remembers, in a
browser, through the same tool call path as the MCP endpoints. A transport adapter beside
``tools/``: no storage knowledge here."""

from ui.routes import ui_routes

__all__ = ["ui_routes"]
