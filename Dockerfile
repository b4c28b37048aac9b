# Taste Memory MCP service.
#
#   docker build -t taste-memory .
#   docker run --rm -p 127.0.0.1:8765:8765 -e MEMORY_MONGODB_URI=mongodb://HOST:27017/?replicaSet=rs0 taste-memory
#
# docker-compose.yml builds this image and runs it against a single-node MongoDB replica set.
# Without MEMORY_MONGODB_URI the service uses the embedded store under /var/lib/taste-memory.
# The service has no authentication: publish its port on a loopback address only.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# Install the package (only what `pip install .` needs), then drop the source.
WORKDIR /tmp/taste-memory
COPY pyproject.toml README.md ./
COPY models ./models
COPY service ./service
COPY tools ./tools
RUN pip install . && rm -rf /tmp/taste-memory

# Run as an unprivileged user; the embedded store (used when no MongoDB URI is set) lives in a
# directory that user owns.
RUN groupadd --system --gid 10001 memory \
    && useradd --system --uid 10001 --gid memory --home-dir /var/lib/taste-memory --shell /usr/sbin/nologin memory \
    && mkdir -p /var/lib/taste-memory/data \
    && chown -R memory:memory /var/lib/taste-memory
ENV MEMORY_DATA_DIR=/var/lib/taste-memory/data
WORKDIR /var/lib/taste-memory
USER memory

EXPOSE 8765

# /healthz answers while the process is up (/readyz also checks the database). No curl in slim images.
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8765/healthz', timeout=4).status == 200 else 1)"]

ENTRYPOINT ["memory-service"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8765"]
