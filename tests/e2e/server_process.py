"""Kept only for tests/clients, which imports these SSE server helpers from here; they live in
``tests/support/``. Delete this folder once tests/clients imports from there."""

from tests.support.mcp_sessions import WireCaller, _session, sse_session, streamable_http_session  # noqa: F401
from tests.support.server_process import CALL_TIMEOUT, running_server  # noqa: F401
