"""Kept only for tests/clients, which imports these SSE server helpers from here; they live in
``tests.support.server_process``. Delete this folder once tests/clients imports from there."""

from tests.support.server_process import (  # noqa: F401
    CALL_TIMEOUT,
    WireCaller,
    _session,
    running_server,
    sse_session,
    streamable_http_session,
)
