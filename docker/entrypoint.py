"""Entry point of the flink-agents-memory image: ``jobmanager``, ``taskmanager``, or any other
command (``flink run ...``, ``bash``), run as is after the configuration is written.

It writes ``$FLINK_CONF_DIR/config.yaml`` from the wheel's defaults, the settings every container
needs (bind to all interfaces, advertise this container's host name) and ``FLINK_PROPERTIES``
(YAML, as in the official Flink image), then ``exec``s the wheel's ``jobmanager.sh`` /
``taskmanager.sh start-foreground``, so the JVM is the container's main process and its log
goes to ``docker logs``. ``docker exec <container> flink run -py ...`` uses the same conf.
"""

from __future__ import annotations

import os
import shutil
import socket
import sys
from pathlib import Path

from flink_agents_memory.cluster import ClusterError, flatten_yaml, flink_home, write_conf
from flink_agents_memory.vector_module import add_to_taskmanagers

ROLES = {"jobmanager": "jobmanager.sh", "taskmanager": "taskmanager.sh"}


def container_conf(home: Path, properties: str, host: str) -> dict[str, str]:
    """Wheel defaults < container settings < FLINK_PROPERTIES."""
    conf = flatten_yaml((home / "conf" / "config.yaml").read_text())
    conf.update({
        "jobmanager.rpc.address": "jobmanager",
        "jobmanager.bind-host": "0.0.0.0",
        "taskmanager.bind-host": "0.0.0.0",
        "taskmanager.host": host,
        "taskmanager.resource-id": host,
        "rest.address": "jobmanager",
        "rest.bind-address": "0.0.0.0",
        "env.log.dir": os.environ.get("FLINK_LOG_DIR", "/opt/flink/log"),
    })
    try:
        conf.update(flatten_yaml(properties))
    except ClusterError as e:
        raise SystemExit(f"FLINK_PROPERTIES is not a `key: value` YAML map: {e}") from e
    return conf


def write_conf_dir(home: Path, conf_dir: Path, conf: dict[str, str]) -> None:
    """The wheel's conf/ (log4j files and all) with our config.yaml."""
    conf_dir.mkdir(parents=True, exist_ok=True)
    for item in (home / "conf").iterdir():
        if item.is_file() and item.name != "config.yaml":
            shutil.copy2(item, conf_dir / item.name)
    write_conf(conf_dir / "config.yaml", conf)


def main(argv: list[str]) -> None:
    if not argv or argv[0] in ("help", "-h", "--help"):
        print("usage: jobmanager | taskmanager | <command ...>  (FLINK_PROPERTIES: extra config)")
        return
    home = flink_home()
    conf = add_to_taskmanagers(
        container_conf(home, os.environ.get("FLINK_PROPERTIES", ""), socket.gethostname()))
    write_conf_dir(home, Path(os.environ["FLINK_CONF_DIR"]), conf)
    if argv[0] in ROLES:
        script = str(home / "bin" / ROLES[argv[0]])
        os.execv(script, [script, "start-foreground", *argv[1:]])
    os.execvp(argv[0], argv)

if __name__ == "__main__":
    main(sys.argv[1:])
