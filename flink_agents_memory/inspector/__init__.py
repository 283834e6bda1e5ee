"""The memory inspector: a read-only web page over a savepoint of an agent job.

Nothing here runs inside a job: it reads a savepoint offline (a JVM helper using Flink's State
Processor API and the project's own index restore) and serves what it finds on loopback.
"""

from .savepoint_view import InspectorError, SavepointView
from .server import InspectorServer

__all__ = ["InspectorError", "InspectorServer", "SavepointView"]
