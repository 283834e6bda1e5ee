"""The Python function MemoryAgentOperator hosts: one agent run per input element."""

from __future__ import annotations

import time
from collections.abc import Iterable
from functools import partial
from pathlib import Path
from typing import Any

from pyflink.common.typeinfo import Types
from pyflink.datastream import KeyedProcessFunction, OutputTag, RuntimeContext
from pyflink.datastream.state import ListStateDescriptor, MapStateDescriptor

from ..agent import Agent
from ..errors import ConfigurationError
from ..jvm import ElementCallState, StateReads
from ..memory.recent import newest
from ..memory.sensory import storable
from ..memory.serialization import dumps, register_type
from ..memory.store import GetMany, MapStateStore
from ..metrics import MetricsRecorder
from . import bridge
from .config import AgentConfig
from .element_call import ElementCallStore
from .executor import DeadLetter, Run
from .in_flight import InFlightRuns
from .memory_runtime import StateFactory
from .pyflink_internals import current_key_reader, java_state
from .wiring import wire_agent

#: How long a maintenance pass waits (processing time) when its key has a run waiting on a call.
MAINTENANCE_RETRY_MS = 1_000

#: Side output of failed runs under on_error="dead_letter" (JSON text: key, input, error...).
DEAD_LETTER_TAG = OutputTag("flink_agents_memory.dead_letter", Types.STRING())


def dead_letter_json(letter: DeadLetter) -> str:
    """Always valid text: the error message may quote user input (a lone surrogate is
    escaped, since PEMJA cannot hand it to Java)."""
    error = letter.error.encode("utf-8", "backslashreplace").decode()
    return dumps({"key": storable(letter.key), "input": storable(letter.input),
                  "error": error, "error_type": letter.error_type, "action": letter.action})


class FlinkListState:
    """A PyFlink ListState whose ``tail(n)`` runs in Java (the operator's StateReads):
    PyFlink's ``get()`` converts every element to Python, so a history's ``get_recent(5)``
    would otherwise cost as much as its capacity."""

    def __init__(self, state: Any, state_reads: StateReads | None) -> None:
        self._state = state
        self._java_state = java_state(state)
        self._state_reads = state_reads if self._java_state is not None else None

    def get(self) -> Iterable[str] | None:
        return self._state.get()

    def tail(self, n: int) -> list[str]:
        if self._state_reads is None:  # not hosted by MemoryAgentOperator
            return newest(list(self._state.get() or []), n)
        return list(self._state_reads.tail(self._java_state, n))

    def add_all(self, values: list[str]) -> None:
        self._state.add_all(values)

    def update(self, values: list[str]) -> None:
        self._state.update(values)

    def clear(self) -> None:
        self._state.clear()


class FlinkStates(StateFactory):
    """Keyed states of the runtime context, all with string values (see docs/architecture.md)."""

    def __init__(self, runtime_context: RuntimeContext, config: AgentConfig,
                 state_reads: StateReads | None = None,
                 element_call_state: ElementCallState | None = None) -> None:
        self._rc = runtime_context
        self._ttl = config.state_ttl.to_flink() if config.state_ttl else None
        self._ttl_restarts_on_read = (config.state_ttl is not None
                                      and config.state_ttl.update_type == "on_read_and_write")
        self._state_reads = state_reads
        self._element_call_state = element_call_state

    def _with_ttl(self, descriptor: Any) -> Any:
        if self._ttl is not None:
            descriptor.enable_time_to_live(self._ttl)
        return descriptor

    def _map_state(self, name: str) -> tuple[Any, Any | None]:
        """PyFlink's map state and the Java state under it (None if there is none)."""
        descriptor = self._with_ttl(MapStateDescriptor(name, Types.STRING(), Types.STRING()))
        state = self._rc.get_map_state(descriptor)
        return state, java_state(state)

    def _get_many(self, java: Any) -> GetMany | None:
        # A read ahead would restart the TTL clock of paths the run never reads.
        if self._state_reads is None or self._ttl_restarts_on_read:
            return None
        return partial(self._state_reads.getAll, java)

    def map_state(self, name: str) -> MapStateStore:
        state, java = self._map_state(name)
        if java is None:
            return MapStateStore(state)
        return MapStateStore(java, self._get_many(java))

    def element_call_map_state(self, name: str) -> MapStateStore | ElementCallStore:
        """Hands the Java state to the operator, which reads ahead and writes it with each
        element's call; the store is the bridge's for the element entry (DirectEntry)."""
        if self._element_call_state is None:  # not hosted by MemoryAgentOperator
            return self.map_state(name)
        state, java = self._map_state(name)
        if java is None:
            return MapStateStore(state)
        self._element_call_state.attach(java)
        store = ElementCallStore(java, self._get_many(java))
        bridge.carry(store)
        return store

    def list_state(self, name: str) -> FlinkListState:
        descriptor = self._with_ttl(ListStateDescriptor(name, Types.STRING()))
        return FlinkListState(self._rc.get_list_state(descriptor), self._state_reads)


class AgentProcessFunction(KeyedProcessFunction):
    """Declares the memory states in ``open`` and runs the agent loop per element."""

    def __init__(self, agent: Agent, config: AgentConfig) -> None:
        self._agent = agent
        self._config = config

    def open(self, runtime_context: RuntimeContext) -> None:
        for cls in self._agent.memory_types:
            register_type(cls)
        store, sink, state_reads, element_call_state = bridge.take()
        config = self._config
        metrics = MetricsRecorder(sink, config.metrics_flush_ms / 1000, enabled=config.metrics)
        self._metrics = metrics
        has_async = self._agent.has_async_actions()
        # Runs in flight each read and write state themselves: nothing travels with elements.
        states = FlinkStates(runtime_context, config, state_reads,
                             None if has_async else element_call_state)
        wired = wire_agent(self._agent, config, states, store, metrics)
        self._executor = wired.executor
        self._runtime = wired.ctx.runtime
        self._event_time = config.retention_time == "event"
        self._maintained = self._runtime.maintenance is not None
        self._in_flight: InFlightRuns | None = None
        #: The run the operator resumes through the timer path, and the run left waiting.
        self._resuming: int | None = None
        self._waiting: int | None = None
        #: The next timer call restarts a pass the operator restored (see DirectEntry).
        self._restarting = False
        #: The time of the pass a resumed pass chained to (see _pass_ended), once.
        self._chained_at: int | None = None
        if has_async:
            self._in_flight = InFlightRuns(wired.executor, wired.new_context, config, metrics)
            #: The current key outside an element or timer call (a restored pass's restart).
            self._current_key = current_key_reader(runtime_context)
        self._durability = wired.durability
        bridge.host(self)
        bridge.on_checkpoint_call(wired.ctx.runtime.on_checkpoint)
        if config.metrics:
            bridge.on_checkpoint_call(metrics.flush)

    def close(self) -> None:
        self._metrics.flush()
        if self._in_flight is not None:
            self._in_flight.close()

    # -- runs in flight (bridge.AsyncHost) ---------------------------------------------------------
    def async_settings(self) -> list[int] | None:
        if self._in_flight is None:
            return None
        config = self._config
        return [config.max_runs_in_flight, config.inputs_waiting_limit]

    def durable_log_at(self, directory: str, subtask: int, attempt: int,
                       restored_from: str | None) -> None:
        self._durability.log_at(Path(directory), subtask, attempt,
                                [Path(restored_from)] if restored_from else [])

    def durable_checkpoint(self, checkpoint_id: int, completed: bool) -> None:
        in_flight = self._in_flight
        self._durability.checkpoint(checkpoint_id, completed,
                                    in_flight.durable_records if in_flight else list)

    def take_waiting(self) -> int | None:
        waiting, self._waiting = self._waiting, None
        return waiting

    def resume_next(self, run_id: int) -> None:
        self._resuming = run_id

    def restart_next_pass(self) -> None:
        self._restarting = True

    def take_chained_at(self) -> int | None:
        at, self._chained_at = self._chained_at, None
        return at

    def settled(self) -> list[int]:
        assert self._in_flight is not None
        return self._in_flight.settled()

    @staticmethod
    def _event_timestamp(ctx: KeyedProcessFunction.Context) -> int:
        timestamp = ctx.timestamp()
        if timestamp is None:
            raise ConfigurationError(
                "retention_time='event' needs timestamps on the input stream "
                "(assign them with a WatermarkStrategy)"
            )
        return int(timestamp)

    def process_element(self, value: Any, ctx: KeyedProcessFunction.Context) -> Iterable[Any]:
        # Flink's processing time is the wall clock; reading it here saves a call into Java.
        now = self._event_timestamp(ctx) if self._event_time else time.time_ns() // 1_000_000
        if self._in_flight is not None:
            outputs, self._waiting = self._in_flight.start(value, ctx.get_current_key(), now)
            return self._ended(outputs, ctx)
        outputs = self._executor.execute(value, ctx.get_current_key, now)
        return self._ended(outputs, ctx, self._runtime)

    def _ended(self, outputs: list[Any], ctx: Any, runtime: Any = None,
               resumed: bool = False) -> list[Any]:
        """A run's outputs as the operation emits them, after registering the maintenance timer
        its commit asks for (``runtime``: the one a sync run ran in; for runs in flight, the
        run's own; ``resumed``: it ended after waiting)."""
        if runtime is not None:
            if self._maintained:
                self._register(ctx, runtime.take_timer())
        elif self._waiting is None and self._in_flight is not None:
            run = self._in_flight.last_ended
            if run is not None and run.maintenance:
                self._pass_ended(run, ctx, resumed)
            elif self._maintained and run is not None:
                self._register(ctx, run.ctx.runtime.take_timer())
        if outputs and type(outputs[0]) is DeadLetter:
            return [(DEAD_LETTER_TAG, dead_letter_json(outputs[0]))]
        return outputs

    def _pass_ended(self, run: Run, ctx: Any, resumed: bool) -> None:
        """A maintenance pass in flight ended: its next timer is registered. A pass that
        waited ends after the watermark moved on: a next pass already due then runs now, as
        the timer would have fired within the same watermark had the pass not waited (a sync
        job's passes chain so)."""
        assert self._in_flight is not None
        while True:
            at = run.timer
            if not (resumed and self._event_time and at is not None
                    and at <= int(ctx.timer_service().current_watermark())):
                self._register(ctx, at)
                return
            _, self._waiting = self._in_flight.chain_maintenance(run, at)
            if self._waiting is not None:
                self._chained_at = at  # the operator records it (a restore runs this pass)
                return
            run = self._in_flight.last_ended  # type: ignore[assignment]

    def on_timer(self, timestamp: int, ctx: KeyedProcessFunction.OnTimerContext) -> Iterable[Any]:
        """A key's maintenance pass is due: run it at the timer's time (so a replay after a
        restore computes the same scores) and register the next timer if it asks for one. A
        pass on a key whose run waits on a call is tried again after it, so it never writes
        under a run that has not committed. In a job with async actions the pass is itself a
        run in flight: its LLM calls wait off the task thread, and the operator queues the key's
        inputs behind it. (The operator also comes this way to go on with a waiting run: see
        bridge.DirectEntry.resume.)"""
        if self._resuming is not None:
            assert self._in_flight is not None
            run_id, self._resuming = self._resuming, None
            outputs, self._waiting = self._in_flight.resume(run_id)
            return self._ended(outputs, ctx, resumed=True)
        in_flight = self._in_flight
        if in_flight is None:
            self._register(ctx, self._executor.maintain(ctx.get_current_key, int(timestamp)))
            return []
        if self._restarting:  # the operator restores a pass that was waiting at a checkpoint
            self._restarting = False
            outputs, self._waiting = in_flight.start_maintenance(self._current_key(),
                                                                 int(timestamp))
            return self._ended(outputs, ctx)
        key = ctx.get_current_key()
        if in_flight.is_busy(key):
            # A pass of the key waits already (a timer due meanwhile): it registers the
            # next timer when it ends. Else a run waits: try again after it.
            if not in_flight.is_maintaining(key):
                self._register(ctx, self._retry_at(ctx, int(timestamp)))
            return []
        outputs, self._waiting = in_flight.start_maintenance(key, int(timestamp))
        return self._ended(outputs, ctx)

    def _retry_at(self, ctx: Any, timestamp: int) -> int:
        """When a pass put off by a waiting run is tried again: a second later in processing
        time; in event time just past the current watermark, so it fires at the next one (a
        fixed step behind a far watermark would fire again at once, over and over)."""
        if not self._event_time:
            return timestamp + MAINTENANCE_RETRY_MS
        return max(timestamp, int(ctx.timer_service().current_watermark())) + 1

    def _register(self, ctx: Any, at: int | None) -> None:
        if at is None:
            return
        if self._event_time:
            ctx.timer_service().register_event_time_timer(at)
        else:
            ctx.timer_service().register_processing_time_timer(at)
