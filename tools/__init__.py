"""Thin MCP adapters: validate the raw arguments, call the service, answer one envelope."""

from tools.catalog import TOOL_SPECS
from tools.registry import create_mcp_server, wire_name

__all__ = ["TOOL_SPECS", "create_mcp_server", "wire_name"]
