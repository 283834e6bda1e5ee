"""What the job builder refuses at build time, with errors that say how to fix it."""

from __future__ import annotations

import pytest
from pyflink.common import Configuration
from pyflink.datastream import StreamExecutionEnvironment

from flink_agents_memory import AgentsExecutionEnvironment, ConfigurationError
from flink_agents_memory.runtime.environment import FlinkAgentsExecutionEnvironment
from flink_agents_memory.runtime.jars import JAR_NAME, PACKAGE_JARS, operator_jar
from flink_agents_memory.runtime.pyflink_internals import j_env_configuration


def test_the_flink_runtime_registers_itself_and_sets_thread_mode():
    env = StreamExecutionEnvironment.get_execution_environment(Configuration())
    agents = AgentsExecutionEnvironment.get_execution_environment(env)
    assert isinstance(agents, FlinkAgentsExecutionEnvironment)
    conf = j_env_configuration(env)
    assert conf.getString("python.execution-mode", None) == "thread"
    assert JAR_NAME in conf.getString("pipeline.jars", "")


def test_process_mode_is_a_configuration_error():
    conf = Configuration()
    conf.set_string("python.execution-mode", "process")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    with pytest.raises(ConfigurationError, match="python.execution-mode='process' cannot host "
                                                 "the memory operator.*remove that setting"):
        AgentsExecutionEnvironment.get_execution_environment(env)


def test_something_else_than_an_environment_is_a_configuration_error():
    with pytest.raises(ConfigurationError, match="expects a StreamExecutionEnvironment"):
        AgentsExecutionEnvironment.get_execution_environment("not an env")


def test_the_jar_ships_inside_the_package():
    assert operator_jar() == PACKAGE_JARS / JAR_NAME


def test_a_missing_jar_says_how_to_get_it(tmp_path):
    with pytest.raises(ConfigurationError, match=f"{JAR_NAME} is missing from {tmp_path}.*"
                                                 "make jar.*reinstall"):
        operator_jar(tmp_path)
