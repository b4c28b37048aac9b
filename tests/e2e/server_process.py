"""Kept only for tests/clients and tests/scripts, which import these server helpers from here;
they live in ``tests/support/``. Delete this folder once those import from there."""

from tests.support.mcp_sessions import WireCaller, _session, sse_session, streamable_http_session  # noqa: F401
from tests.support.server_process import CALL_TIMEOUT, child_environment, free_port, running_server  # noqa: F401
