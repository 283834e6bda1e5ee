"""The operator builder uses PyFlink's private API: it must refuse any version but 2.3.x."""

from __future__ import annotations

import pytest
from pyflink import version

from flink_agents_memory import ConfigurationError
from flink_agents_memory.runtime import pyflink_internals as internals


def test_installed_pyflink_is_the_pinned_line():
    assert version.__version__.startswith(internals.SUPPORTED_PYFLINK)
    internals.check_pyflink_version()


@pytest.mark.parametrize("found", ["2.2.0", "2.4.0", "1.20.1"])
def test_other_versions_fail_loudly(found):
    with pytest.raises(ConfigurationError, match=found):
        internals.check_pyflink_version(found)


def test_private_api_still_exists():
    from pyflink.datastream import data_stream

    assert callable(data_stream._create_j_data_stream_python_function_info)


def test_env_configuration_is_the_live_java_configuration():
    from pyflink.common import Configuration
    from pyflink.datastream import StreamExecutionEnvironment

    env = StreamExecutionEnvironment.get_execution_environment(Configuration())
    conf = internals.j_env_configuration(env)
    conf.setString("flink_agents_memory.test", "x")
    assert internals.j_env_configuration(env).getString("flink_agents_memory.test", None) == "x"


def test_job_client_wrapper_keeps_the_java_client():
    from pyflink.common.job_client import JobClient

    java_client = object()
    assert internals.java_job_client(JobClient(java_client)) is java_client


def test_thread_mode_state_wrappers_keep_the_java_state():
    """The wrappers cannot be imported outside a TaskManager (PEMJA needs its JVM), so their
    source is read: StateImpl must still store its Java state as ``_state``, and the list and
    map wrappers must still derive from it."""
    import importlib.util
    from pathlib import Path

    spec = importlib.util.find_spec(internals.STATE_IMPL_MODULE)
    assert spec is not None and spec.origin is not None
    source = Path(spec.origin).read_text()
    assert "class StateImpl(State, ABC):" in source
    assert "self._state = state" in source
    assert "class ListStateImpl(KeyedStateImpl" in source
    assert "class MapStateImpl(KeyedStateImpl" in source
    assert "class KeyedStateImpl(StateImpl" in source


def test_java_state_of_anything_else_is_none():
    class OwnState:
        _state = "not a PyFlink wrapper"

    assert internals.java_state(OwnState()) is None


def test_process_mode_operators_finds_a_map_built_before_thread_mode():
    """The transformation walk (``_j_data_stream``, operator factories) still sees how
    PyFlink 2.3 builds a Python map: a process-mode operator before thread mode is set, none
    after."""
    from pyflink.common import Configuration, Types
    from pyflink.datastream import StreamExecutionEnvironment

    from flink_agents_memory.runtime.python_env import configure_environment

    env = StreamExecutionEnvironment.get_execution_environment(Configuration())
    early = env.from_collection([1, 2], type_info=Types.INT()) \
        .map(lambda x: x, output_type=Types.INT()).name("built-early")
    assert internals.process_mode_operators(early) == ["built-early"]

    env = StreamExecutionEnvironment.get_execution_environment(Configuration())
    configure_environment(env)
    late = env.from_collection([1, 2], type_info=Types.INT()) \
        .map(lambda x: x, output_type=Types.INT()).name("built-late")
    assert internals.process_mode_operators(late) == []


def test_apply_memory_operator_puts_the_function_into_memory_agent_operator():
    """``KeyedStream.process``'s private steps still build our operator subclass, with the
    keyed input's type and the requested output type."""
    from pyflink.common import Configuration, Types
    from pyflink.datastream import KeyedProcessFunction, StreamExecutionEnvironment

    from flink_agents_memory.runtime.python_env import configure_environment

    class Echo(KeyedProcessFunction):
        def process_element(self, value, ctx):
            yield value

    env = StreamExecutionEnvironment.get_execution_environment(Configuration())
    configure_environment(env)
    keyed = env.from_collection(["a", "b"], type_info=Types.STRING()) \
        .key_by(lambda v: v, key_type=Types.STRING())
    out = internals.apply_memory_operator(keyed, Echo(), Types.STRING(), "agent:Echo")
    transformation = out._j_data_stream.getTransformation()
    assert str(transformation.getName()) == "agent:Echo"
    operator = transformation.getOperatorFactory().getOperator()
    assert operator.getClass().getName() == internals.OPERATOR_CLASS
    assert str(transformation.getOutputType()) == str(Types.STRING().get_java_type_info())
