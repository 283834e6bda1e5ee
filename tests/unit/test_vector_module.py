"""Which JVMs get the vector module flag (the SIMD dot product of long-term memory)."""

from __future__ import annotations

from flink_agents_memory import cluster
from flink_agents_memory.vector_module import (
    TASKMANAGER_JAVA_OPTS,
    VECTOR_MODULE_FLAG,
    add_to_local_jvm,
    feature_version,
    java_executable,
    java_feature_version,
    with_vector_module,
)


def test_feature_versions_of_each_version_scheme():
    assert feature_version('openjdk version "17.0.15" 2025-04-15') == 17
    assert feature_version('openjdk version "21" 2023-09-19') == 21
    assert feature_version('java version "1.8.0_402"') == 8
    assert feature_version("Error: could not find libjava.so") is None


def test_the_flag_is_added_for_java_17_and_later_only():
    assert with_vector_module({}, 17) == {TASKMANAGER_JAVA_OPTS: VECTOR_MODULE_FLAG}
    assert with_vector_module({}, 25) == {TASKMANAGER_JAVA_OPTS: VECTOR_MODULE_FLAG}
    # Java 11 has no such module and would refuse to start with the flag
    assert with_vector_module({}, 11) == {}
    assert with_vector_module({}, None) == {}


def test_the_users_taskmanager_options_are_kept_and_not_doubled():
    conf = with_vector_module({TASKMANAGER_JAVA_OPTS: "-Xss4m", "x": "1"}, 17)
    assert conf == {TASKMANAGER_JAVA_OPTS: f"-Xss4m {VECTOR_MODULE_FLAG}", "x": "1"}
    assert with_vector_module(conf, 17) == conf
    given = {TASKMANAGER_JAVA_OPTS: "--add-modules jdk.incubator.vector"}
    assert with_vector_module(given, 17) == given


def test_this_machines_java_is_read():
    assert (java_feature_version(java_executable()) or 0) >= 17  # the Java the project pins
    assert java_feature_version(None) is None


def test_the_standalone_clusters_taskmanagers_get_the_flag(tmp_path):
    settings = cluster.ClusterSettings(base_dir=tmp_path)
    cluster.prepare(settings)
    written = cluster.flatten_yaml((settings.conf_dir / "config.yaml").read_text())
    assert written[TASKMANAGER_JAVA_OPTS] == VECTOR_MODULE_FLAG


def test_a_local_runs_jvm_args_get_the_flag_once():
    environ = {"JVM_ARGS": "-Xmx2g"}
    assert add_to_local_jvm(environ)
    assert environ == {"JVM_ARGS": f"-Xmx2g {VECTOR_MODULE_FLAG}"}
    assert add_to_local_jvm(environ)
    assert environ == {"JVM_ARGS": f"-Xmx2g {VECTOR_MODULE_FLAG}"}
    empty: dict[str, str] = {}
    assert add_to_local_jvm(empty) and empty == {"JVM_ARGS": VECTOR_MODULE_FLAG}
