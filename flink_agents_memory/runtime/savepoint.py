"""Stop-with-savepoint from Python: PyFlink 2.3's ``JobClient.stop_with_savepoint`` calls a
Java method that no longer exists (Flink 2.x added the format-type argument); this calls the
real one."""

from __future__ import annotations

from pyflink.common.job_client import JobClient
from pyflink.java_gateway import get_gateway

from .pyflink_internals import java_job_client


def stop_with_savepoint(client: JobClient, directory_uri: str, timeout_s: float = 120) -> str:
    """Stop the job, writing a canonical savepoint under ``directory_uri``; returns its path."""
    format_type = get_gateway().jvm.org.apache.flink.core.execution.SavepointFormatType.CANONICAL
    future = java_job_client(client).stopWithSavepoint(False, directory_uri, format_type)
    return str(future.get(int(timeout_s * 1000),
                          get_gateway().jvm.java.util.concurrent.TimeUnit.MILLISECONDS))
