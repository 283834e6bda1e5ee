package io.flinkagentsmemory.operator;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The bookkeeping of an async agent's inputs on one subtask, apart from Flink so it can be tested
 * alone: which keys are busy (a run in flight or inputs queued behind one), which runs are in
 * flight, the two bounds that turn into backpressure, and the watermarks held back.
 *
 * <p>Rule for watermarks: a watermark passes once every input that arrived before it has finished
 * its run (as in Flink's ordered {@code AsyncWaitOperator}), so event-time timers and downstream
 * windows never see a watermark ahead of an output it covers.
 */
final class InFlightInputs<K> {

    private final int maxRuns;
    private final int maxQueued;
    /** Per busy key, the sequence numbers of its inputs in arrival order; the head's run is next or running. */
    private final Map<K, ArrayDeque<Long>> queues = new HashMap<>();
    /** Runs in flight: run id to key. */
    private final Map<Long, K> running = new HashMap<>();
    /** Runs in flight that a timer started (maintenance passes): they have no input. */
    private final Map<Long, K> timerRuns = new HashMap<>();
    /** Busy keys whose head input waits for a free run (restored keys, or no room when it came up). */
    private final ArrayDeque<K> ready = new ArrayDeque<>();
    /** Sequence numbers of inputs accepted and not finished, for the watermark rule. */
    private final TreeSet<Long> outstanding = new TreeSet<>();
    /** Watermarks held back, each with the sequence number of the first input after it. */
    private final ArrayDeque<Held> held = new ArrayDeque<>();
    private long nextSeq;

    private record Held(long watermark, long before) {}

    InFlightInputs(int maxRuns, int maxQueued) {
        if (maxRuns < 1 || maxQueued < maxRuns) {
            throw new IllegalArgumentException("need 1 <= maxRuns <= maxQueued, got " + maxRuns + ", " + maxQueued);
        }
        this.maxRuns = maxRuns;
        this.maxQueued = maxQueued;
    }

    boolean isBusy(K key) {
        return queues.containsKey(key) || timerRuns.containsValue(key);
    }

    /** Whether a timer's run (a maintenance pass) of {@code key} is in flight. */
    boolean hasTimerRun(K key) {
        return timerRuns.containsValue(key);
    }

    /** A timer started a run of {@code key} that waits: inputs of the key queue behind it. */
    void timerRunStarted(long runId, K key) {
        started(runId, key);
        timerRuns.put(runId, key);
    }

    /** Whether {@code runId} is a timer's run. */
    boolean isTimerRun(long runId) {
        return timerRuns.containsKey(runId);
    }

    /** Whether inputs of {@code key} wait in its queue. */
    boolean hasInputs(K key) {
        return queues.containsKey(key);
    }

    /** Room for one more run in flight. */
    boolean hasRunRoom() {
        return running.size() < maxRuns;
    }

    /** Room for one more input accepted and not finished. */
    boolean hasInputRoom() {
        return outstanding.size() < maxQueued;
    }

    /** An input of {@code key} is accepted: the key is busy until its inputs have finished. */
    void accept(K key) {
        long seq = nextSeq++;
        queues.computeIfAbsent(key, k -> new ArrayDeque<>()).add(seq);
        outstanding.add(seq);
    }

    void started(long runId, K key) {
        if (running.putIfAbsent(runId, key) != null) {
            throw new IllegalStateException("run " + runId + " is already in flight");
        }
    }

    /** The key of a run in flight; a run id never handed out is a bug on the Python side. */
    K keyOf(long runId) {
        K key = running.get(runId);
        if (key == null) {
            throw new IllegalStateException("Python reported run " + runId + ", which is not in flight");
        }
        return key;
    }

    void runEnded(long runId) {
        running.remove(runId);
        timerRuns.remove(runId);
    }

    /** The head input of {@code key} finished; returns whether more inputs of the key wait. */
    boolean finished(K key) {
        ArrayDeque<Long> queue = queues.get(key);
        if (queue == null || queue.isEmpty()) {
            throw new IllegalStateException("no input of key " + key + " is in flight");
        }
        outstanding.remove(queue.poll());
        if (queue.isEmpty()) {
            queues.remove(key);
            return false;
        }
        return true;
    }

    /** The head input of a busy key waits for room to run. */
    void markReady(K key) {
        ready.add(key);
    }

    /**
     * A busy key whose head input can start now, or null. A key whose timer run is in flight is
     * skipped: its head starts when that run ends.
     */
    K nextReady() {
        while (hasRunRoom() && !ready.isEmpty()) {
            K key = ready.poll();
            if (!hasTimerRun(key)) {
                return key;
            }
        }
        return null;
    }

    /** Whether {@code watermark} must wait (inputs before it are unfinished); it is then held. */
    boolean hold(long watermark) {
        if (outstanding.isEmpty() && held.isEmpty()) {
            return false;
        }
        held.add(new Held(watermark, nextSeq));
        return true;
    }

    /** The held watermarks that may pass now, oldest first. */
    List<Long> releasable() {
        List<Long> out = new ArrayList<>();
        while (!held.isEmpty() && (outstanding.isEmpty() || outstanding.first() >= held.peek().before())) {
            out.add(held.poll().watermark());
        }
        return out;
    }

    int runsInFlight() {
        return running.size();
    }

    int inputsWaiting() {
        return outstanding.size();
    }

    /** Nothing accepted unfinished, no watermark held, no run (a timer's included) in flight. */
    boolean idle() {
        return outstanding.isEmpty() && held.isEmpty() && running.isEmpty();
    }
}
