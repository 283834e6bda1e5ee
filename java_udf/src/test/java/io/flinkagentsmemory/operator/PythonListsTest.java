package io.flinkagentsmemory.operator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class PythonListsTest {

    @Test
    void takesPemjasArrayAndListForms() {
        assertEquals(List.of("a", "b"), PythonLists.asList(new Object[] {"a", "b"}, "paths"));
        assertEquals(List.of("a"), PythonLists.asList(List.of("a"), "paths"));
    }

    @Test
    void namesWhatItGotInsteadOfAList() {
        IllegalStateException none = assertThrows(IllegalStateException.class,
                () -> PythonLists.asList(null, "an element's outputs"));
        assertEquals("Python returned None for an element's outputs, not a list", none.getMessage());
        IllegalStateException map = assertThrows(IllegalStateException.class,
                () -> PythonLists.asList(Map.of(), "paths"));
        assertTrue(map.getMessage().contains("for paths, not a list"), map.getMessage());
    }
}
