"""Where the java_udf jar is: packaged next to the code, or fresh from the Maven build."""

from __future__ import annotations

from pathlib import Path

from ..errors import ConfigurationError

JAR_NAME = "flink-agents-memory-java-0.1.0.jar"
_PACKAGE_JARS = Path(__file__).resolve().parent.parent / "jars"
_MAVEN_TARGET = Path(__file__).resolve().parents[2] / "java_udf" / "target"


def operator_jar() -> Path:
    """Path of the operator jar; a clear error says how to build it when it is missing."""
    for candidate in (_PACKAGE_JARS / JAR_NAME, _MAVEN_TARGET / JAR_NAME):
        if candidate.is_file():
            return candidate
    raise ConfigurationError(
        f"the operator jar {JAR_NAME} was not found in {_PACKAGE_JARS} or {_MAVEN_TARGET}; "
        "run `make install` (or `make jar`) to build it with Maven"
    )
