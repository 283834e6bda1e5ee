#!/usr/bin/env bash
# Start or stop a Docker engine of our own, for machines where no service manager runs one
# (CI containers). `start` is a no-op when an engine already answers; `stop` ends only the
# dockerd that `start` launched (its PID file), never another one. `check` fails at once, with
# the make targets to run, when no engine answers: without it the image build got as far as the
# base image and then blamed a missing debootstrap.
#
#   docker/engine.sh start|stop|check
#   DOCKERD_DIR (var/dockerd): PID file and log; DOCKER_DATA_ROOT (/var/lib/docker): images and
#   layers, kept between runs so built images are reused.
set -euo pipefail
cd "$(dirname "$0")/.."

DOCKERD_DIR=${DOCKERD_DIR:-var/dockerd}
DOCKER_DATA_ROOT=${DOCKER_DATA_ROOT:-/var/lib/docker}
PIDFILE="$DOCKERD_DIR/dockerd.pid"

log() { echo "engine: $*" >&2; }

check() {
    command -v docker >/dev/null || {
        log "no Docker engine: the docker client is not installed;" \
            "run \`make install-docker-engine docker-engine-start\`"
        exit 1
    }
    local err
    if ! err=$(timeout 30 docker info 2>&1 >/dev/null); then
        if command -v dockerd >/dev/null; then
            log "no Docker engine answers at ${DOCKER_HOST:-the default socket}:" \
                "run \`make docker-engine-start\` (or start the system's docker service)"
        else
            log "no Docker engine: run \`make install-docker-engine docker-engine-start\`"
        fi
        log "docker info said: $(printf '%s\n' "$err" | grep -v '^ *$' | tail -n 1)"
        exit 1
    fi
}

start() {
    if docker info >/dev/null 2>&1; then
        log "a Docker engine is already running"
        return
    fi
    command -v dockerd >/dev/null || { log "dockerd is missing (make install-docker-engine)"; exit 1; }
    mkdir -p "$DOCKERD_DIR"
    setsid dockerd --data-root "$DOCKER_DATA_ROOT" --pidfile "$PWD/$PIDFILE" \
        >"$DOCKERD_DIR/dockerd.log" 2>&1 </dev/null &
    for _ in $(seq 60); do
        if docker info >/dev/null 2>&1; then
            log "dockerd $(docker version --format '{{.Server.Version}}') is up (PID $(cat "$PIDFILE"))"
            return
        fi
        sleep 1
    done
    log "dockerd did not answer within 60 s; its log:"
    tail -n 20 "$DOCKERD_DIR/dockerd.log" >&2
    exit 1
}

stop() {
    [[ -f "$PIDFILE" ]] || { log "no dockerd started by this script"; return; }
    local pid
    pid=$(cat "$PIDFILE")
    if [[ "$(cat "/proc/$pid/comm" 2>/dev/null)" != dockerd ]]; then
        log "PID $pid is not a dockerd any more"
        rm -f "$PIDFILE"
        return
    fi
    kill -TERM "$pid"
    for _ in $(seq 30); do
        [[ -d "/proc/$pid" ]] || { log "dockerd (PID $pid) stopped"; return; }
        sleep 1
    done
    log "dockerd (PID $pid) ignored SIGTERM for 30 s: SIGKILL"
    kill -KILL "$pid"
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    check) check ;;
    *) echo "usage: $0 start|stop|check" >&2; exit 2 ;;
esac
