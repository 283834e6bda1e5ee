"""The packaged operator jar runs on every JVM Flink 2.3 supports, not only the one it was
built with: Lucene keeps its classes for Java 19 and later (MMapDirectory's memory-segment
inputs, among others) in META-INF/versions/, and a JVM reads them only from a jar whose manifest
says ``Multi-Release: true``. Without it, a Java 21 TaskManager failed at the first index opened
("MemorySegmentIndexInputProvider is missing in Lucene JAR file")."""

from __future__ import annotations

import zipfile

from flink_agents_memory.runtime.jars import operator_jar

LUCENE_JAVA21_CLASS = (
    "META-INF/versions/21/org/apache/lucene/store/MemorySegmentIndexInputProvider.class")


def _manifest(jar: zipfile.ZipFile) -> dict[str, str]:
    lines = jar.read("META-INF/MANIFEST.MF").decode().splitlines()
    return dict(line.split(": ", 1) for line in lines if ": " in line)


def test_the_operator_jar_is_multi_release_with_lucenes_newer_classes():
    with zipfile.ZipFile(operator_jar()) as jar:
        assert _manifest(jar).get("Multi-Release") == "true"
        assert LUCENE_JAVA21_CLASS in jar.namelist()
