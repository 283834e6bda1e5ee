"""The agent operator has a stable uid, so a savepoint's memory maps to it after the job changes.

Without a uid Flink derives the operator's id from the graph around it: a new operator upstream
or another parallelism gives it a new id, and a restore then fails or (with
--allowNonRestoredState) starts with empty memory. Savepoints name operators by the id Flink
hashes from the uid, which ``OperatorIdentifier.forUid`` computes as a restore does.
"""

from __future__ import annotations

import pytest
from pyflink.common import Configuration, Types
from pyflink.datastream import StreamExecutionEnvironment
from pyflink.java_gateway import get_gateway

from flink_agents_memory import (
    Agent,
    AgentsExecutionEnvironment,
    ConfigurationError,
    InputEvent,
    OutputEvent,
    action,
)


class Counter(Agent):
    @action(InputEvent)
    @staticmethod
    def count(event, ctx):
        ctx.send_event(OutputEvent(output=event.input))


def build(upstream_changed: bool = False, parallelism: int = 1, **apply_args):
    """source → (map → filter) → agent → filter → sink; returns the env and the agent's stream."""
    env = StreamExecutionEnvironment.get_execution_environment(Configuration())
    agents = AgentsExecutionEnvironment.get_execution_environment(env)
    env.set_parallelism(parallelism)
    ds = env.from_collection(["a", "b"], type_info=Types.STRING())
    if upstream_changed:
        ds = ds.map(lambda s: s + "!", output_type=Types.STRING()).filter(lambda s: True)
    out = (agents.from_datastream(ds, key_selector=lambda s: s).apply(Counter(), **apply_args)
           .to_datastream(Types.STRING()))
    out.filter(lambda s: False).print()
    return env, out


def agent_vertex_operator_ids(env) -> set[str]:
    """The operator ids of the job vertex the agent heads (the operators chained to it too)."""
    j_env = env._j_stream_execution_environment
    get_gateway().jvm.org.apache.flink.python.util.PythonConfigUtil.configPythonOperator(j_env)
    job = j_env.getStreamGraph(True).getJobGraph()
    vertex = next(v for v in job.getVerticesSortedTopologicallyFromSources()
                  if str(v.getName()).startswith("agent:Counter"))
    return {str(pair.getGeneratedOperatorID()) for pair in vertex.getOperatorIDs()}


def savepoint_id(uid: str) -> str:
    identifier = get_gateway().jvm.org.apache.flink.state.api.OperatorIdentifier.forUid(uid)
    return str(identifier.getOperatorId().toHexString())


def test_the_default_uid_comes_from_the_agent_class():
    _, out = build()
    assert out._j_data_stream.getTransformation().getUid() == "flink-agents-memory:Counter"


def test_the_agents_operator_id_survives_changes_upstream_and_of_parallelism():
    before = agent_vertex_operator_ids(build()[0])
    after = agent_vertex_operator_ids(build(upstream_changed=True, parallelism=3)[0])
    # the operator chained after the agent has no uid: its id changed, so the change was real
    assert len(before) == len(after) > 1 and before != after
    assert before & after == {savepoint_id("flink-agents-memory:Counter")}


def test_apply_takes_a_uid_of_the_users_own():
    env, out = build(uid="counter-v1")
    assert out._j_data_stream.getTransformation().getUid() == "counter-v1"
    assert savepoint_id("counter-v1") in agent_vertex_operator_ids(env)


def test_a_uid_set_on_the_stream_afterwards_still_wins():
    _, out = build()
    out.uid("set-later")
    assert out._j_data_stream.getTransformation().getUid() == "set-later"


@pytest.mark.parametrize("bad", ["", "  ", 7])
def test_a_uid_that_is_not_a_name_is_refused_at_apply(bad):
    with pytest.raises(ConfigurationError, match="apply\\(uid=...\\) needs a non-empty string"):
        build(uid=bad)
