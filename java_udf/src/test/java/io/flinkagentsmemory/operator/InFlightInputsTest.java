package io.flinkagentsmemory.operator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class InFlightInputsTest {

    @Test
    void aKeyStaysBusyUntilItsLastInputFinishes() {
        InFlightInputs<String> inputs = new InFlightInputs<>(2, 8);
        inputs.accept("a");
        inputs.started(1, "a");
        inputs.accept("a");
        assertTrue(inputs.isBusy("a"));
        assertFalse(inputs.isBusy("b"));
        inputs.runEnded(1);
        assertTrue(inputs.finished("a"), "the second input waits");
        assertFalse(inputs.finished("a"));
        assertFalse(inputs.isBusy("a"));
        assertTrue(inputs.idle());
    }

    @Test
    void runsAndInputsAreBounded() {
        InFlightInputs<String> inputs = new InFlightInputs<>(1, 2);
        inputs.accept("a");
        inputs.started(7, "a");
        assertFalse(inputs.hasRunRoom());
        assertTrue(inputs.hasInputRoom());
        inputs.accept("a");
        assertFalse(inputs.hasInputRoom());
        assertEquals("a", inputs.keyOf(7));
        assertThrows(IllegalStateException.class, () -> inputs.keyOf(8));
        assertThrows(IllegalArgumentException.class, () -> new InFlightInputs<String>(4, 2));
    }

    @Test
    void aReadyKeyStartsOnlyWhenARunIsFree() {
        InFlightInputs<String> inputs = new InFlightInputs<>(1, 4);
        inputs.accept("a");
        inputs.started(1, "a");
        inputs.accept("b");
        inputs.markReady("b");
        assertNull(inputs.nextReady());
        inputs.runEnded(1);
        assertEquals("b", inputs.nextReady());
    }

    @Test
    void aWatermarkWaitsForTheInputsBeforeItOnly() {
        InFlightInputs<String> inputs = new InFlightInputs<>(4, 8);
        assertFalse(inputs.hold(5), "nothing in flight: it passes at once");
        inputs.accept("a");
        inputs.started(1, "a");
        assertTrue(inputs.hold(10));
        inputs.accept("b"); // after the watermark
        inputs.started(2, "b");
        assertTrue(inputs.hold(20));
        assertEquals(List.of(), inputs.releasable());
        inputs.runEnded(1);
        inputs.finished("a");
        assertEquals(List.of(10L), inputs.releasable(), "b came after 10, not before");
        inputs.runEnded(2);
        inputs.finished("b");
        assertEquals(List.of(20L), inputs.releasable());
        assertTrue(inputs.idle());
    }

    @Test
    void aTimersRunKeepsItsKeyBusyAndItsReadyHeadWaitsForIt() {
        InFlightInputs<String> inputs = new InFlightInputs<>(2, 8);
        inputs.timerRunStarted(5, "a");
        assertTrue(inputs.isBusy("a"), "inputs of a key under maintenance queue behind it");
        assertTrue(inputs.isTimerRun(5));
        assertFalse(inputs.hasInputs("a"));
        inputs.accept("a");
        inputs.markReady("a");
        assertNull(inputs.nextReady(), "its head starts when the pass ends, not before");
        inputs.runEnded(5);
        assertFalse(inputs.isTimerRun(5));
        assertTrue(inputs.hasInputs("a"));
        assertTrue(inputs.isBusy("a"));
        assertTrue(inputs.hold(9), "a timer's run holds no watermark, the queued input does");
    }
}
