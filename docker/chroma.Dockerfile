# A Chroma server (the knowledge bases' vector database) on Debian bookworm, built the same way
# as docker/Dockerfile: Python 3.11 from Debian and chromadb from wheels/ (built on the host by
# pip, see docker/build-images.sh), so only Debian's registry is needed.
ARG BASE_IMAGE=debian:bookworm-slim

FROM ${BASE_IMAGE} AS runtime
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
# Unpinned on purpose: Debian stable only takes security fixes, which a rebuild should pick up.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 python3-venv \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 9998 --user-group --create-home chroma \
    && mkdir -p /data && chown chroma:chroma /data

FROM runtime AS venv
COPY wheels/ /tmp/wheels/
RUN python3 -m venv /opt/chroma \
    && /opt/chroma/bin/pip install --no-cache-dir --no-index --no-deps /tmp/wheels/*.whl \
    && /opt/chroma/bin/pip check

FROM runtime
COPY --from=venv /opt/chroma /opt/chroma
USER 9998:9998
WORKDIR /data
EXPOSE 8000
VOLUME ["/data"]
HEALTHCHECK --interval=5s --timeout=5s --retries=30 \
    CMD ["/opt/chroma/bin/python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/api/v2/heartbeat', timeout=4)"]
ENTRYPOINT ["/opt/chroma/bin/chroma", "run", "--host", "0.0.0.0", "--port", "8000", "--path", "/data"]
