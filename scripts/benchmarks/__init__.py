"""The Taste Memory benchmark as a package; ``scripts/bench.py`` is its command.

One job per module: ``plan`` the sizes and iteration counts of the full and the quick run; ``report``
statistics helpers, the tables and the figures the targets are judged on; ``calling`` a tool call
through an MCP client, timed; ``processes`` server subprocesses on free loopback ports, always
stopped, and MCP clients; ``data`` / ``loader`` / ``stores`` deterministic data, bulk loading through
the facade, and store templates built once per run and copied for each use; ``workload`` the
arguments of every tool's n-th call; ``promstats`` Prometheus histograms read from ``/metrics``;
``session_cost`` / ``session_history`` the seeds' stories as sessions, in bytes and calls (also run
alone); ``sections`` one module per table group; ``targets`` the verdicts; ``document`` the report."""
