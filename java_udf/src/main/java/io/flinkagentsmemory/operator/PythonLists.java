package io.flinkagentsmemory.operator;

import java.util.Arrays;
import java.util.List;

/** What PEMJA hands over for a Python list or tuple: an array or a List, depending on its contents. */
final class PythonLists {

    private PythonLists() {
    }

    /** {@code value} as a List; an IllegalStateException naming {@code what} if it is neither. */
    static List<?> asList(Object value, String what) {
        if (value instanceof Object[] array) {
            return Arrays.asList(array);
        }
        if (value instanceof List<?> list) {
            return list;
        }
        if (value instanceof long[] longs) {
            return Arrays.stream(longs).boxed().toList();
        }
        throw new IllegalStateException("Python returned "
                + (value == null ? "None" : value.getClass().getName()) + " for " + what + ", not a list");
    }
}
