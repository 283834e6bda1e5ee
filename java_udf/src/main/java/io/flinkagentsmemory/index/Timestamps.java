package io.flinkagentsmemory.index;

import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;

/**
 * Python hands timestamps over as ISO-8601 strings (datetime.isoformat()); sorting by age needs
 * them as numbers. A string without offset is taken as UTC.
 */
final class Timestamps {

    private Timestamps() {}

    /** Epoch millis of an ISO-8601 timestamp, or 0 when none is given (sorts as oldest). */
    static long toEpochMillis(String iso) {
        if (iso == null || iso.isEmpty()) {
            return 0L;
        }
        try {
            return OffsetDateTime.parse(iso).toInstant().toEpochMilli();
        } catch (DateTimeParseException withoutOffset) {
            try {
                return LocalDateTime.parse(iso).toInstant(ZoneOffset.UTC).toEpochMilli();
            } catch (DateTimeParseException e) {
                throw new IllegalArgumentException("not an ISO-8601 timestamp: " + iso, e);
            }
        }
    }
}
