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
