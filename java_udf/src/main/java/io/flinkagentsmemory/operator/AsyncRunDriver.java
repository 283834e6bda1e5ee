package io.flinkagentsmemory.operator;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.BooleanSupplier;

import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.java.tuple.Tuple2;

/**
 * Runs of an async agent in flight on one subtask (docs/async_actions.md). A run whose action
 * awaits a call is suspended in Python; the subtask meanwhile takes other keys' inputs. Later
 * inputs of a busy key wait in keyed state ({@code pending}: the key's in-flight input first,
 * then the ones queued behind it, each with its timestamp), so a checkpoint taken while runs wait
 * holds them, and a restore runs them again from the start (a run's memory writes commit only when
 * it ends). Completed calls are picked up by polling Python on the task thread, from a
 * processing-time timer while runs are in flight, so memory and state are only touched there.
 */
final class AsyncRunDriver<K, IN> {

    /** What the driver needs of the operator. */
    interface Host<K, IN> {
        K currentKey();

        void setCurrentKey(K key);

        /** The current key's pending inputs: (timestamp or {@link #NO_TIMESTAMP}, value). */
        ListState<Tuple2<Long, IN>> pending();

        /** The time of the current key's maintenance pass in flight (null: none). */
        ValueState<Long> pendingPass();

        /** Run again the current key's pass that a restore found waiting; its run id if it waits. */
        Long restartPass(long timestamp) throws Exception;

        /** Outputs emitted next carry this timestamp. */
        void useTimestamp(long timestamp);

        /** Start the run of {@code value} in Python; its outputs are emitted if it ended. */
        Long start(IN value) throws Exception;

        /** Go on with a suspended run whose call settled; its outputs are emitted if it ended. */
        DirectElementCall.Resumed resume(long runId) throws Exception;

        /** Run ids whose calls settled since the last poll. */
        List<?> settled() throws Exception;

        /** Forward a watermark as the plain operator would (timers fire, then it goes downstream). */
        void passWatermark(long watermark) throws Exception;

        /** Poll again in a while. */
        void schedulePoll();
    }

    static final long NO_TIMESTAMP = Long.MIN_VALUE;

    private final Host<K, IN> host;
    private final InFlightInputs<K> inputs;
    private final MailboxExecutor mailbox;

    AsyncRunDriver(Host<K, IN> host, int maxRuns, int maxQueued, MailboxExecutor mailbox) {
        this.host = host;
        this.inputs = new InFlightInputs<>(maxRuns, maxQueued);
        this.mailbox = mailbox;
    }

    /**
     * An input for the current key: run it now, or keep it in keyed state behind the key's run
     * in flight, or (no run free) until a run is free. Inputs are taken while fewer than
     * {@code maxQueued} wait, so the network buffers in front of a checkpoint barrier drain into
     * state instead of waiting for runs to end.
     */
    void processElement(IN value, long timestamp) throws Exception {
        K key = host.currentKey();
        awaitRoom(inputs::hasInputRoom);
        host.setCurrentKey(key);
        boolean busy = inputs.isBusy(key);
        inputs.accept(key);
        if (busy || !inputs.hasRunRoom()) {
            host.pending().add(Tuple2.of(timestamp, value));
            if (!busy) {
                inputs.markReady(key);
            }
            return;
        }
        run(key, value, timestamp, false);
    }

    /**
     * Runs the key's inputs from {@code value} on, as long as each ends without waiting; a run
     * that waits is stored as the key's pending head (unless {@code stored}) and left in flight.
     */
    private void run(K key, IN value, long timestamp, boolean stored) throws Exception {
        while (true) {
            host.useTimestamp(timestamp);
            Long runId = host.start(value);
            if (runId != null) {
                if (!stored) {
                    host.pending().add(Tuple2.of(timestamp, value));
                }
                inputs.started(runId, key);
                host.schedulePoll();
                return;
            }
            if (stored) {
                removeHead();
            }
            if (!inputs.finished(key)) {
                return;
            }
            if (!inputs.hasRunRoom()) {
                inputs.markReady(key);
                return;
            }
            Tuple2<Long, IN> next = head();
            value = next.f1;
            timestamp = next.f0;
            stored = true;
        }
    }

    /** Picks up settled calls: each run goes on, and a run that ends lets its key's next input run. */
    void poll() throws Exception {
        for (Object id : PythonLists.asList(host.settled(), "the settled runs")) {
            long runId = ((Number) id).longValue();
            K key = inputs.keyOf(runId);
            host.setCurrentKey(key);
            boolean timerRun = inputs.isTimerRun(runId);
            if (!timerRun) {
                host.useTimestamp(head().f0);
            }
            DirectElementCall.Resumed resumed = host.resume(runId);
            if (resumed.waiting() != null) {
                if (resumed.chainedPassAt() != null) {
                    host.pendingPass().update(resumed.chainedPassAt());
                }
                continue; // it awaits another call
            }
            inputs.runEnded(runId);
            if (timerRun) {
                host.pendingPass().clear();
                startHeadOf(key); // the inputs that came while the pass ran
                continue;
            }
            removeHead();
            if (inputs.finished(key)) {
                startHeadOf(key);
            }
        }
        startReady();
        for (long watermark : inputs.releasable()) {
            host.passWatermark(watermark);
        }
        if (inputs.runsInFlight() > 0) {
            host.schedulePoll();
        }
    }

    /** The key's head input runs now, or when a run is free. */
    private void startHeadOf(K key) throws Exception {
        if (!inputs.hasInputs(key)) {
            return;
        }
        if (!inputs.hasRunRoom()) {
            inputs.markReady(key);
            return;
        }
        Tuple2<Long, IN> next = head();
        run(key, next.f1, next.f0, true);
    }

    /**
     * A timer of the current key ran Python and left a run waiting ({@code runId}, null: none):
     * a maintenance pass whose LLM calls are in flight. The key's inputs queue behind it.
     */
    void timerRan(Long runId, long timestamp) throws Exception {
        if (runId != null) {
            inputs.timerRunStarted(runId, host.currentKey());
            host.pendingPass().update(timestamp); // a restore runs it again (its timer is spent)
            host.schedulePoll();
        }
    }

    /** A watermark waits until the inputs that came before it have finished. */
    void processWatermark(long watermark) throws Exception {
        if (!inputs.hold(watermark)) {
            host.passWatermark(watermark);
        }
    }

    /**
     * After a restore: the maintenance passes that were waiting (keys in {@code passKeys}) run
     * again, then the keys with pending inputs (in {@code keys}, read from keyed state) run them
     * again from the first, as room allows, each behind its key's pass.
     */
    void restore(Iterator<K> keys, Iterator<K> passKeys) throws Exception {
        List<K> passes = new ArrayList<>();
        passKeys.forEachRemaining(passes::add);
        for (K key : passes) { // first: the key's inputs came after its pass
            host.setCurrentKey(key);
            Long timestamp = host.pendingPass().value();
            Long runId = timestamp == null ? null : host.restartPass(timestamp);
            if (runId == null) {
                host.pendingPass().clear();
            } else {
                inputs.timerRunStarted(runId, key);
                host.schedulePoll();
            }
        }
        List<K> restored = new ArrayList<>();
        keys.forEachRemaining(restored::add);
        for (K key : restored) {
            host.setCurrentKey(key);
            Iterable<Tuple2<Long, IN>> queued = host.pending().get();
            if (queued == null) {
                continue;
            }
            for (Tuple2<Long, IN> ignored : queued) {
                inputs.accept(key);
            }
            if (inputs.isBusy(key)) {
                inputs.markReady(key);
            }
        }
        startReady();
    }

    private void startReady() throws Exception {
        K key;
        while ((key = inputs.nextReady()) != null) {
            host.setCurrentKey(key);
            Tuple2<Long, IN> head = head();
            run(key, head.f1, head.f0, true);
        }
    }

    /** End of input: every input accepted finishes, and the held watermarks pass. */
    void drain() throws Exception {
        while (!inputs.idle()) {
            poll();
            if (!inputs.idle() && !mailbox.tryYield()) {
                Thread.sleep(1);
            }
        }
    }

    /** Backpressure: the task thread takes no input until there is room, picking up settled calls. */
    private void awaitRoom(BooleanSupplier room) throws Exception {
        while (!room.getAsBoolean()) {
            poll();
            if (!room.getAsBoolean() && !mailbox.tryYield()) {
                Thread.sleep(1);
            }
        }
    }

    private Tuple2<Long, IN> head() throws Exception {
        Iterator<Tuple2<Long, IN>> it = host.pending().get().iterator();
        return it.next();
    }

    private void removeHead() throws Exception {
        List<Tuple2<Long, IN>> rest = new ArrayList<>();
        host.pending().get().forEach(rest::add);
        if (rest.size() <= 1) {
            host.pending().clear();
        } else {
            host.pending().update(rest.subList(1, rest.size()));
        }
    }

    int runsInFlight() {
        return inputs.runsInFlight();
    }

    int inputsWaiting() {
        return inputs.inputsWaiting();
    }
}
