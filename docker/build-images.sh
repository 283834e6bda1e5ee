#!/usr/bin/env bash
# Build the two images of docker/docker-compose.yml with the local engine:
#   flink-agents-memory:dev         (docker/Dockerfile)
#   flink-agents-memory-chroma:dev  (docker/chroma.Dockerfile)
#
# 1. the Debian base image (docker/base-image.sh: pulled, or debootstrapped and imported);
# 2. wheelhouses built on this machine by pip (with its registry access and cache; the build
#    itself needs no Python registry): this package with all its dependencies (the operator jar
#    must already be in flink_agents_memory/jars/: `make jar`), and chromadb. Dependency markers
#    can name the exact Python version (`python_full_version < "3.11.3"`), so pip runs in
#    var/docker/wheel-venv, made from WHEEL_BASE_PYTHON, which must be the very version the
#    images run (Debian bookworm's python3, 3.11.2; on a Debian bookworm host: /usr/bin/python3);
# 3. `docker build` of each image from a context streamed as a tar: only the files it needs.
#
# Environment: WHEEL_BASE_PYTHON (/usr/bin/python3), CHROMADB_SPEC, IMAGE, CHROMA_IMAGE,
# BASE_IMAGE, WORK_DIR (var/docker).
set -euo pipefail
cd "$(dirname "$0")/.."

WHEEL_BASE_PYTHON=${WHEEL_BASE_PYTHON:-/usr/bin/python3}
CHROMADB_SPEC=${CHROMADB_SPEC:-chromadb>=1.5,<2}
IMAGE=${IMAGE:-flink-agents-memory:dev}
CHROMA_IMAGE=${CHROMA_IMAGE:-flink-agents-memory-chroma:dev}
export BASE_IMAGE=${BASE_IMAGE:-debian:bookworm-slim}
WORK_DIR=${WORK_DIR:-var/docker}
WHEEL_VENV=$WORK_DIR/wheel-venv

log() { echo "build-images: $*" >&2; }

full_version() { "$1" -c 'import platform; print(platform.python_version())'; }

# The Python version of the runtime stage (Debian's python3 in the base image).
image_python() {
    tar -c docker/Dockerfile | docker build -q --force-rm --build-arg BASE_IMAGE="$BASE_IMAGE" \
        -f docker/Dockerfile --target runtime -t flink-agents-memory-runtime:dev - >/dev/null
    docker run --rm flink-agents-memory-runtime:dev python3 -c \
        'import platform; print(platform.python_version())'
}

# A venv for pip wheel on the host, of exactly the image's Python version.
wheel_venv() {
    local want=$1 have
    have=$(full_version "$WHEEL_BASE_PYTHON" 2>/dev/null) \
        || { log "cannot run WHEEL_BASE_PYTHON=$WHEEL_BASE_PYTHON"; exit 1; }
    if [[ "$have" != "$want" ]]; then
        log "WHEEL_BASE_PYTHON=$WHEEL_BASE_PYTHON is Python $have; the images run Python $want," \
            "and their wheels must be resolved by that version (dependency markers differ)"
        exit 1
    fi
    if [[ ! -x "$WHEEL_VENV/bin/python" ]] || [[ "$(full_version "$WHEEL_VENV/bin/python")" != "$want" ]]; then
        rm -rf "$WHEEL_VENV"
        "$WHEEL_BASE_PYTHON" -m venv "$WHEEL_VENV"
        "$WHEEL_VENV/bin/python" -m pip install -q --disable-pip-version-check --upgrade pip wheel setuptools
    fi
}

# wheelhouse DIR STAMP PIP-ARGS...: the wheels of these requirements, rebuilt only when STAMP
# (what they depend on) changed since the last build, so a rebuild needs no registry.
wheelhouse() {
    local dir=$1 stamp=$2
    shift 2
    if [[ -f "$dir/.stamp" && "$(cat "$dir/.stamp")" == "$stamp" ]]; then
        log "wheels in $dir are up to date"
        return
    fi
    rm -rf "$dir.part"
    mkdir -p "$dir.part"
    "$WHEEL_VENV/bin/python" -m pip wheel -q --disable-pip-version-check --wheel-dir "$dir.part" "$@" \
        2> >(grep -v -e 'BuildBackendWarning' -e '^ *!!' -e '^ *\*\*\*' -e '^ *$' >&2)
    echo "$stamp" >"$dir.part/.stamp"
    rm -rf "$dir"
    mv "$dir.part" "$dir"
}

# This package's own wheel (with the jar), rebuilt every time: its sources change often.
package_wheel() {
    local dir=$1
    rm -rf "$dir"
    mkdir -p "$dir"
    "$WHEEL_VENV/bin/python" -m pip wheel -q --disable-pip-version-check --no-deps --wheel-dir "$dir" . \
        2> >(grep -v -e 'BuildBackendWarning' -e '^ *!!' -e '^ *\*\*\*' -e '^ *$' >&2)
}

# build IMAGE DOCKERFILE CONTEXT PATH...: docker build from a tar of CONTEXT's contents (the
# wheel directories) and the given repository paths.
build() {
    local image=$1 dockerfile=$2 context=$3
    shift 3
    log "building $image from $dockerfile"
    tar -c --owner=0 --group=0 --exclude='__pycache__' --exclude='.stamp' \
        -C "$context" . -C "$PWD" "$dockerfile" "$@" \
        | docker build --force-rm --build-arg BASE_IMAGE="$BASE_IMAGE" -f "$dockerfile" -t "$image" -
}

docker/engine.sh check   # before anything else: with no engine, the base image step misleads
jar=$(ls flink_agents_memory/jars/*.jar 2>/dev/null || true)
[[ -n "$jar" ]] || { log "no operator jar in flink_agents_memory/jars/ (run make jar)"; exit 1; }
docker/base-image.sh
python_version=$(image_python)
log "the images run Python $python_version"
wheel_venv "$python_version"
log "wheels: the dependencies of this package"
# pip wheel . also builds this package's wheel: it is dropped here and built by package_wheel.
wheelhouse "$WORK_DIR/flink/wheels" "$python_version $(sha256sum pyproject.toml | cut -c1-16)" .
rm -f "$WORK_DIR"/flink/wheels/flink_agents_memory-*.whl
package_wheel "$WORK_DIR/flink/package"
log "wheels: $CHROMADB_SPEC"
wheelhouse "$WORK_DIR/chroma/wheels" "$python_version $CHROMADB_SPEC" "$CHROMADB_SPEC"
build "$IMAGE" docker/Dockerfile "$WORK_DIR/flink" docker/entrypoint.py examples
build "$CHROMA_IMAGE" docker/chroma.Dockerfile "$WORK_DIR/chroma"
log "done: $IMAGE $CHROMA_IMAGE"
