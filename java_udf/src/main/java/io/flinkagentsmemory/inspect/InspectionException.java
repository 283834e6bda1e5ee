package io.flinkagentsmemory.inspect;

/** A savepoint the inspector cannot read, with a message that names the problem for the page. */
public final class InspectionException extends Exception {

    public InspectionException(String message) {
        super(message);
    }

    public InspectionException(String message, Throwable cause) {
        super(message, cause);
    }
}
