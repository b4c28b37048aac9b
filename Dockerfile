# Taste Memory MCP service.
#
#   docker build -t taste-memory .
#   docker run --rm -v taste-memory-secrets:/var/lib/taste-memory/secrets taste-memory token create --role operator --label admin
#   docker run --rm -p 127.0.0.1:8765:8765 -v taste-memory-secrets:/var/lib/taste-memory/secrets \
#       -e MEMORY_MONGODB_URI=mongodb://HOST:27017/?replicaSet=rs0 taste-memory
#
# docker-compose.yml builds this image and runs it against a single-node MongoDB replica set.
# Without MEMORY_MONGODB_URI the service uses the embedded store under /var/lib/taste-memory/data
# (mount a volume there). The service binds 0.0.0.0 in the container, so it requires bearer tokens
# and refuses to start until its token file (MEMORY_TOKEN_FILE, in the secrets directory: mount a
# volume there so tokens survive the container) holds one; `token create` prints a token once.
# Publish its port on a loopback address, or behind a TLS proxy (see MEMORY_ALLOWED_HOSTS).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# Install the package (only what `pip install .` needs), then drop the source.
WORKDIR /tmp/taste-memory
COPY pyproject.toml README.md ./
COPY host ./host
COPY models ./models
COPY service ./service
COPY tools ./tools
COPY ui ./ui
RUN pip install . && rm -rf /tmp/taste-memory

# Run as an unprivileged user. It owns the embedded store's directory (used when no MongoDB URI
# is set) and the secrets directory of the token file (mode 700): a volume mounted there starts
# with that owner and mode.
RUN groupadd --system --gid 10001 memory \
    && useradd --system --uid 10001 --gid memory --home-dir /var/lib/taste-memory --shell /usr/sbin/nologin memory \
    && mkdir -p /var/lib/taste-memory/data /var/lib/taste-memory/secrets \
    && chown -R memory:memory /var/lib/taste-memory \
    && chmod 700 /var/lib/taste-memory/secrets
ENV MEMORY_DATA_DIR=/var/lib/taste-memory/data \
    MEMORY_TOKEN_FILE=/var/lib/taste-memory/secrets/tokens.json
WORKDIR /var/lib/taste-memory
USER memory

EXPOSE 8765

# /healthz answers while the process is up (/readyz also checks the database). No curl in slim images.
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8765/healthz', timeout=4).status == 200 else 1)"]

ENTRYPOINT ["memory-service"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8765"]
