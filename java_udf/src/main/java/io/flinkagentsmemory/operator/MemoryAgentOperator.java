package io.flinkagentsmemory.operator;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.RunnableFuture;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.BasicTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.typeutils.TupleTypeInfo;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.RecoveryClaimMode;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.state.CheckpointStreamFactory;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.SnapshotResult;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.streaming.api.functions.python.DataStreamPythonFunctionInfo;
import org.apache.flink.streaming.api.operators.InternalTimer;
import org.apache.flink.streaming.api.operators.OperatorSnapshotFutures;
import org.apache.flink.streaming.api.operators.python.embedded.AbstractEmbeddedDataStreamPythonFunctionOperator;
import org.apache.flink.streaming.api.operators.python.embedded.EmbeddedPythonKeyedProcessOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * The operator every agent job runs in: PyFlink's embedded (thread mode) keyed process operator,
 * plus what Python functions cannot have: the long-term memory index of this subtask, restored
 * before Python's {@code open()} and written into each checkpoint as raw keyed state (one blob per
 * key group, so Flink splits it on rescale like any keyed state). Checkpoints upload each index
 * file once to the job's shared checkpoint directory and keep manifests in raw keyed state;
 * savepoints copy every file (see {@code LongTermMemoryCheckpointHooks}).
 */
public class MemoryAgentOperator<K, IN, OUT> extends EmbeddedPythonKeyedProcessOperator<K, IN, OUT> {

    private static final long serialVersionUID = 1L;

    /** Python reads the store and metrics from here (see flink_agents_memory/runtime/bridge.py). */
    static final String STORE_VARIABLE = "_flink_agents_memory_store";
    static final String METRICS_VARIABLE = "_flink_agents_memory_metrics";
    static final String STATE_READS_VARIABLE = "_flink_agents_memory_state_reads";
    static final String ELEMENT_CALL_STATE_VARIABLE = "_flink_agents_memory_element_call_state";
    /** The bridge module's name in the interpreter (flink_agents_memory/runtime/bridge.py). */
    static final String BRIDGE_MODULE = "_fam_bridge";

    private final Configuration config;
    private final TypeInformation<IN> inputTypeInfo;
    private transient OperatorLongTermMemory longTermMemory;
    private transient AgentMetrics metrics;
    /** Elements into Python in one call each, once PyFlink's interpreter is open. */
    private transient DirectElementCall<IN, OUT> direct;
    /** Short-term memory's reads ahead and writes, carried by each element's call. */
    private transient ElementCallState elementCallState;
    /** Why the index of the snapshot being taken could not be written, if it could not. */
    private transient IOException indexSnapshotFailure;
    /** Runs in flight, for an agent with async actions (null: every run ends in its element's call). */
    private transient AsyncRunDriver<Object, IN> asyncRuns;
    private transient ListState<Tuple2<Long, IN>> pendingInputs;
    private transient ValueState<Long> pendingPass;
    private transient boolean pollScheduled;
    /** The keyed state of an async agent's waiting inputs (see AsyncRunDriver). */
    static final String PENDING_INPUTS = "flink_agents_memory.pending_inputs";
    /** The keyed state of an async agent's maintenance pass in flight (its timer's time). */
    static final String PENDING_PASS = "flink_agents_memory.pending_pass";

    public MemoryAgentOperator(
            Configuration config,
            DataStreamPythonFunctionInfo pythonFunctionInfo,
            TypeInformation<IN> inputTypeInfo,
            TypeInformation<OUT> outputTypeInfo) {
        super(config, pythonFunctionInfo, inputTypeInfo, outputTypeInfo);
        this.config = config;
        this.inputTypeInfo = inputTypeInfo;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        rejectHeapTimersWithRocksDb();
        super.initializeState(context);
        longTermMemory = new OperatorLongTermMemory(
                localDirectory(),
                getOperatorID().toString(),
                setting(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS.key(),
                        CheckpointingOptions.MAX_RETAINED_CHECKPOINTS.defaultValue().toString()),
                setting(StateRecoveryOptions.RESTORE_MODE.key(), RecoveryClaimMode.DEFAULT.name()),
                this::getCurrentKey,
                () -> KeyGroupRangeAssignment.assignToKeyGroup(
                        getCurrentKey(),
                        getRuntimeContext().getTaskInfo().getMaxNumberOfParallelSubtasks()));
        longTermMemory.hooks().initializeState(context);
    }

    /**
     * Tells the long-term memory which checkpoint comes, savepoint or not, and where it goes;
     * then puts its asynchronous part (uploads, copies) in place of the raw keyed state future,
     * which Flink runs on its checkpoint thread before this subtask acknowledges.
     */
    @Override
    public OperatorSnapshotFutures snapshotState(long checkpointId, long timestamp, CheckpointOptions options,
            CheckpointStreamFactory factory) throws Exception {
        longTermMemory.hooks().beginSnapshot(checkpointId, options.getCheckpointType().isSavepoint(), factory);
        OperatorSnapshotFutures futures = super.snapshotState(checkpointId, timestamp, options, factory);
        RunnableFuture<SnapshotResult<KeyedStateHandle>> raw =
                longTermMemory.hooks().asyncPart(checkpointId, futures.getKeyedStateRawFuture());
        IOException failure = indexSnapshotFailure;
        indexSnapshotFailure = null;
        futures.setKeyedStateRawFuture(failure == null ? raw : DeclinedSnapshot.of(raw, failure));
        return futures;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        super.notifyCheckpointComplete(checkpointId);
        longTermMemory.hooks().notifyCheckpointComplete(checkpointId);
        if (direct != null) {
            direct.durableCheckpoint(checkpointId, true);
        }
    }

    @Override
    public void notifyCheckpointAborted(long checkpointId) throws Exception {
        super.notifyCheckpointAborted(checkpointId);
        longTermMemory.hooks().notifyCheckpointAborted(checkpointId);
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        if (interpreter != null) {
            // Metrics reach Flink, and expired memories are purged before the index is written.
            interpreter.exec(BRIDGE_MODULE + ".on_checkpoint()");
            // Durable call outcomes logged from here on go to a segment of their own.
            direct.durableCheckpoint(context.getCheckpointId(), false);
        }
        try {
            longTermMemory.hooks().snapshotState(context);
        } catch (IOException e) {
            // The index could not be committed (local disk) or its checkpoint planned (storage
            // refused a sweep): decline this checkpoint rather than fail the task (see
            // DeclinedSnapshot). Uploads that fail do so in the asynchronous part, which declines.
            indexSnapshotFailure = e;
            return;
        }
        longTermMemory.afterSnapshot();
    }

    /** Our bytes in raw keyed state are index files, not timers: tell Flink not to parse them. */
    @Override
    protected boolean isUsingCustomRawKeyedState() {
        return true;
    }

    /** As PyFlink's operator does, with the element's Python call made once ({@link DirectElementCall}). */
    @Override
    public void processElement(StreamRecord<IN> element) throws Exception {
        if (asyncRuns != null) {
            asyncRuns.processElement(element.getValue(),
                    element.hasTimestamp() ? element.getTimestamp() : AsyncRunDriver.NO_TIMESTAMP);
            return;
        }
        collector.setTimestamp(element);
        timestamp = element.getTimestamp();
        direct.process(element.getValue(), collector);
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        if (asyncRuns != null) {
            asyncRuns.processWatermark(mark.getTimestamp());
        } else {
            super.processWatermark(mark);
        }
    }

    @Override
    public void open() throws Exception {
        super.open();
        List<?> settings = direct.asyncSettings();
        if (settings == null) {
            return;
        }
        pendingInputs = getRuntimeContext().getListState(new ListStateDescriptor<>(
                PENDING_INPUTS, new TupleTypeInfo<Tuple2<Long, IN>>(BasicTypeInfo.LONG_TYPE_INFO, inputTypeInfo)));
        pendingPass = getRuntimeContext().getState(new ValueStateDescriptor<>(PENDING_PASS, BasicTypeInfo.LONG_TYPE_INFO));
        asyncRuns = new AsyncRunDriver<>(asyncHost(),
                ((Number) settings.get(0)).intValue(), ((Number) settings.get(1)).intValue(),
                getContainingTask().getMailboxExecutorFactory().createExecutor(getOperatorConfig().getChainIndex()));
        metrics.gauge("async.runs_in_flight", asyncRuns::runsInFlight);
        metrics.gauge("async.inputs_waiting", asyncRuns::inputsWaiting);
        // The keys are read to the end and the stream closed (RocksDB iterates a snapshot) before
        // any run writes state.
        List<Object> restored;
        List<Object> passes;
        try (var keys = getKeyedStateBackend().<Object>getKeys(PENDING_INPUTS, VoidNamespace.INSTANCE);
                var passKeys = getKeyedStateBackend().<Object>getKeys(PENDING_PASS, VoidNamespace.INSTANCE)) {
            restored = keys.toList();
            passes = passKeys.toList();
        }
        asyncRuns.restore(restored.iterator(), passes.iterator());
    }

    /** A timer may start a run that waits (an async job's maintenance pass): the driver keeps it. */
    @Override
    public void onEventTime(InternalTimer<K, VoidNamespace> timer) throws Exception {
        super.onEventTime(timer);
        if (asyncRuns != null) {
            asyncRuns.timerRan(direct.takeWaiting(), timer.getTimestamp());
        }
    }

    @Override
    public void onProcessingTime(InternalTimer<K, VoidNamespace> timer) throws Exception {
        super.onProcessingTime(timer);
        if (asyncRuns != null) {
            asyncRuns.timerRan(direct.takeWaiting(), timer.getTimestamp());
        }
    }

    /** End of input: every run in flight and every queued input finishes before the operator does. */
    @Override
    public void endInput() {
        if (asyncRuns != null) {
            try {
                asyncRuns.drain();
            } catch (Exception e) {
                throw new IllegalStateException("runs in flight failed at the end of input", e);
            }
        }
        super.endInput();
    }

    private AsyncRunDriver.Host<Object, IN> asyncHost() {
        return new AsyncRunDriver.Host<>() {
            @Override
            public Object currentKey() {
                return getCurrentKey();
            }

            @Override
            public void setCurrentKey(Object key) {
                MemoryAgentOperator.this.setCurrentKey(key);
            }

            @Override
            public ListState<Tuple2<Long, IN>> pending() {
                return pendingInputs;
            }

            @Override
            public ValueState<Long> pendingPass() {
                return pendingPass;
            }

            @Override
            public Long restartPass(long timestamp) throws Exception {
                return direct.restartPass(timestamp, collector);
            }

            @Override
            public void useTimestamp(long ts) {
                if (ts == AsyncRunDriver.NO_TIMESTAMP) {
                    collector.eraseTimestamp();
                    timestamp = Long.MIN_VALUE;
                } else {
                    collector.setAbsoluteTimestamp(ts);
                    timestamp = ts;
                }
            }

            @Override
            public Long start(IN value) throws Exception {
                return direct.process(value, collector);
            }

            @Override
            public DirectElementCall.Resumed resume(long runId) throws Exception {
                return direct.resume(runId, collector);
            }

            @Override
            public List<?> settled() throws Exception {
                return direct.settled();
            }

            @Override
            public void passWatermark(long watermark) throws Exception {
                MemoryAgentOperator.super.processWatermark(new Watermark(watermark));
            }

            @Override
            public void schedulePoll() {
                if (pollScheduled) {
                    return;
                }
                pollScheduled = true;
                var time = getProcessingTimeService();
                time.registerTimer(time.getCurrentProcessingTime() + 1, t -> {
                    pollScheduled = false;
                    asyncRuns.poll();
                });
            }
        };
    }

    @Override
    public void openPythonInterpreter() {
        // Hand the store to Python before super creates the Python function and calls its open().
        metrics = new AgentMetrics(getMetricGroup());
        longTermMemory.registerMetrics(metrics);
        interpreter.set(STORE_VARIABLE, longTermMemory.store());
        interpreter.set(METRICS_VARIABLE, metrics);
        interpreter.set(STATE_READS_VARIABLE, new StateReads());
        elementCallState = new ElementCallState();
        interpreter.set(ELEMENT_CALL_STATE_VARIABLE, elementCallState);
        interpreter.exec("import flink_agents_memory.runtime.bridge as " + BRIDGE_MODULE + "\n"
                + BRIDGE_MODULE + ".offer(" + STORE_VARIABLE + ", " + METRICS_VARIABLE + ", "
                + STATE_READS_VARIABLE + ", " + ELEMENT_CALL_STATE_VARIABLE + ")\n"
                + "del " + STORE_VARIABLE + ", " + METRICS_VARIABLE + ", " + STATE_READS_VARIABLE + ", "
                + ELEMENT_CALL_STATE_VARIABLE);
        super.openPythonInterpreter();
        direct = DirectElementCall.over(interpreter, elementCallState, inputTypeInfo, getProducedType());
        DurableLogPlace.of(this::setting, getRuntimeContext().getJobInfo().getJobId().toString(),
                        getOperatorID().toString())
                .ifPresent(place -> direct.durableLogAt(place.directory(),
                        getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(),
                        getRuntimeContext().getTaskInfo().getAttemptNumber(), place.restoredFrom()));
    }

    @Override
    public void close() throws Exception {
        try {
            super.close();
        } finally {
            if (longTermMemory != null) {
                longTermMemory.close();
            }
        }
    }

    /**
     * RocksDB with heap timers writes timers into raw keyed state, where the long-term index
     * is: Flink would decline every checkpoint. The Python builder refuses it in the job's
     * settings; this catches it in the cluster's, at start rather than at the first checkpoint.
     */
    private void rejectHeapTimersWithRocksDb() {
        String backend = setting("state.backend.type", "hashmap").trim().toLowerCase(java.util.Locale.ROOT);
        String timers = setting("state.backend.rocksdb.timer-service.factory", "ROCKSDB").trim();
        if (backend.contains("rocksdb") && timers.equalsIgnoreCase("HEAP")) {
            throw new IllegalStateException("state.backend.rocksdb.timer-service.factory: HEAP cannot be used "
                    + "with state.backend.type: " + backend + ": the memory operator keeps its long-term "
                    + "index in raw keyed state, where heap timers would also go, and Flink would decline "
                    + "every checkpoint. Remove the setting (RocksDB timers are the default) or use hashmap.");
        }
    }

    /** A job setting, else the TaskManager's (cluster configuration), else {@code fallback}. */
    private String setting(String key, String fallback) {
        var env = getContainingTask().getEnvironment();
        String value = env.getJobConfiguration().getString(key, null);
        if (value == null) {
            value = env.getTaskManagerInfo().getConfiguration().getString(key, null);
        }
        return value == null ? fallback : value;
    }

    /** A directory of this attempt of this subtask under the TaskManager's temp directories. */
    private Path localDirectory() {
        File[] tmp = getContainingTask().getEnvironment().getIOManager().getSpillingDirectories();
        return tmp[0].toPath().resolve("flink-agents-memory")
                .resolve(getRuntimeContext().getJobInfo().getJobId().toString())
                .resolve(getOperatorID().toString())
                .resolve(getRuntimeContext().getTaskInfo().getIndexOfThisSubtask()
                        + "-" + getRuntimeContext().getTaskInfo().getAttemptNumber());
    }

    /**
     * PyFlink's chaining optimiser copies operators; the inherited copy() would return the base
     * class and silently drop this subclass.
     */
    @Override
    public <T> AbstractEmbeddedDataStreamPythonFunctionOperator<T> copy(
            DataStreamPythonFunctionInfo pythonFunctionInfo, TypeInformation<T> outputTypeInfo) {
        return new MemoryAgentOperator<>(config, pythonFunctionInfo, inputTypeInfo, outputTypeInfo);
    }
}
