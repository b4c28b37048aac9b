"""The Taste Memory benchmark as a package; ``scripts/bench.py`` is its command.

Infrastructure (one job each):

* ``plan``: sizes and iteration counts of the full and the quick run;
* ``report``: statistics helpers, the tables and the figures the targets are judged on;
* ``calling``: calling a tool through an MCP client and timing it;
* ``processes``: server subprocesses on free loopback ports, always stopped; MCP clients;
* ``data`` / ``loader`` / ``stores``: deterministic data, bulk loading through the facade, and
  store templates built once per run and copied for each use;
* ``workload``: the arguments of every tool's n-th call;
* ``promstats``: Prometheus histograms read from ``/metrics`` (deltas, percentiles);
* ``sections``: one module per table group; ``targets`` judges the issue's targets;
  ``document`` writes docs/PERFORMANCE.md; ``main`` runs it all.
"""
