#!/usr/bin/env bash
# Make sure the Debian base image the Dockerfiles build FROM exists in the local engine.
#
# Where a registry is reachable, `docker pull` of the official image is all it takes. Where none
# is (CI here), the image is built from Debian's own packages: debootstrap a minimal bookworm
# root filesystem from the apt mirror this machine is already configured with, then
# `docker import` it under the official name, so the Dockerfiles work unchanged either way.
# Idempotent: an existing image is kept, and the root filesystem tarball is cached
# (BASE_CACHE_DIR) so a later run, even on a fresh engine, only imports it.
#
#   docker/base-image.sh            # ensure debian:bookworm-slim
#   BASE_IMAGE=debian:bookworm-slim BASE_CACHE_DIR=~/.cache/flink-agents-memory docker/base-image.sh
set -euo pipefail

BASE_IMAGE=${BASE_IMAGE:-debian:bookworm-slim}
SUITE=${SUITE:-bookworm}
BASE_CACHE_DIR=${BASE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/flink-agents-memory}
TARBALL="$BASE_CACHE_DIR/$SUITE-minbase-rootfs.tar"

log() { echo "base-image: $*" >&2; }

# No engine would otherwise look like "no image, no registry" and end in debootstrap's error.
"$(dirname "$0")/engine.sh" check

if docker image inspect "$BASE_IMAGE" >/dev/null 2>&1; then
    log "$BASE_IMAGE is present"
    exit 0
fi
if [[ "${BASE_PULL:-1}" == 1 ]] && timeout 60 docker pull -q "$BASE_IMAGE" >/dev/null 2>&1; then
    log "pulled $BASE_IMAGE"
    exit 0
fi

# The mirror apt already uses on this machine (deb822 .sources or one-line .list format).
apt_mirror() {
    local uri
    uri=$(grep -hsE '^URIs:' /etc/apt/sources.list.d/*.sources \
          | awk '{print $2}' | grep -v -- '-security' | head -n1 || true)
    if [[ -z "$uri" ]]; then
        uri=$(grep -hsE '^deb[[:space:]]' /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
              | grep -v -- '-security' | awk '{for (i = 2; i <= NF; i++) if ($i !~ /^\[/) {print $i; exit}}' \
              | head -n1 || true)
    fi
    [[ -n "$uri" ]] || { log "no Debian mirror found in /etc/apt/sources*"; return 1; }
    echo "$uri"
}

if [[ ! -s "$TARBALL" ]]; then
    command -v debootstrap >/dev/null || {
        log "debootstrap is missing (apt-get install -y debootstrap)"; exit 1; }
    mirror=$(apt_mirror)
    mkdir -p "$BASE_CACHE_DIR"
    rootfs=$(mktemp -d "$BASE_CACHE_DIR/rootfs.XXXXXX")
    trap 'rm -rf "$rootfs" "$TARBALL.part"' EXIT
    log "debootstrap --variant=minbase $SUITE from $mirror"
    debootstrap --variant=minbase "$SUITE" "$rootfs" "$mirror" >"$BASE_CACHE_DIR/debootstrap.log" 2>&1 \
        || { tail -n 20 "$BASE_CACHE_DIR/debootstrap.log" >&2; exit 1; }
    # What the official slim image also does: no apt lists or caches inside the image.
    rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/apt/archives/*.deb
    tar --numeric-owner -C "$rootfs" -cf "$TARBALL.part" .
    mv "$TARBALL.part" "$TARBALL"
fi
log "importing $TARBALL as $BASE_IMAGE"
docker import -c 'CMD ["bash"]' "$TARBALL" "$BASE_IMAGE" >/dev/null
docker image inspect "$BASE_IMAGE" >/dev/null
log "imported $BASE_IMAGE"
