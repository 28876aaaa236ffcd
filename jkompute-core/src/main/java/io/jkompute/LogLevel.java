package io.jkompute;

/** jkompute's log levels; the numbers are Kompute's ({@code kp.log_level(n)}): TRACE=0 … ERROR=4, OFF=5. */
public enum LogLevel {
    /** The finest detail (Kompute's 0). */
    TRACE,
    /** Diagnostic detail, such as the device chosen (1). */
    DEBUG,
    /** Notable events (2). */
    INFO,
    /** Something wrong that does not stop the program (3). */
    WARN,
    /** Failures (4). */
    ERROR,
    /** No logging at all (5). */
    OFF;

    /** The level for Kompute's number: 0 TRACE, 1 DEBUG, 2 INFO, 3 WARN, 4 ERROR, 5 OFF. */
    public static LogLevel of(int n) {
        if (n < 0 || n >= values().length) {
            throw new IllegalArgumentException("log level must be 0 (TRACE) to 5 (OFF), got " + n);
        }
        return values()[n];
    }

    /** Parses a name ({@code debug}) or a number ({@code 1}). */
    public static LogLevel parse(String s) {
        String t = s.trim();
        if (!t.isEmpty() && Character.isDigit(t.charAt(0))) {
            return of(Integer.parseInt(t));
        }
        try {
            return valueOf(t.toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown log level '" + s + "': use TRACE, DEBUG, INFO, WARN, ERROR, OFF or 0-5");
        }
    }
}
