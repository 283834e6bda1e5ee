"""Where the operator jar is: inside the installed package (``flink_agents_memory/jars/``).

The wheel ships it there; in a checkout ``make jar`` builds it with Maven and copies it there,
so an editable install and an installed wheel find it the same way.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import ConfigurationError

JAR_NAME = "flink-agents-memory-java-0.1.0.jar"
PACKAGE_JARS = Path(__file__).resolve().parent.parent / "jars"


def operator_jar(directory: Path = PACKAGE_JARS) -> Path:
    """Path of the operator jar; a clear error says how to get it when it is missing."""
    jar = directory / JAR_NAME
    if jar.is_file():
        return jar
    raise ConfigurationError(
        f"the operator jar {JAR_NAME} is missing from {directory}: in a source checkout run "
        "`make jar` (Maven builds java_udf and copies the jar there); an installed wheel "
        "ships it, so reinstall the package"
    )
