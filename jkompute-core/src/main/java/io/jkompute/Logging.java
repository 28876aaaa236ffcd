package io.jkompute;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * jkompute logs through SLF4J under logger names {@code io.jkompute.*}. On top of the backend's own level,
 * jkompute keeps a threshold of its own so the level can be set from code ({@link #setLevel}) or by the
 * environment variable {@code JKOMPUTE_LOG_LEVEL} (a name or Kompute's number 0-5); the default is INFO.
 * Messages below the threshold are not even formatted.
 */
public final class Logging {
    private static volatile LogLevel level = initialLevel();

    private Logging() {}

    private static LogLevel initialLevel() {
        String env = System.getProperty("jkompute.log.level", System.getenv("JKOMPUTE_LOG_LEVEL"));
        if (env == null || env.isBlank()) {
            return LogLevel.INFO;
        }
        try {
            return LogLevel.parse(env);
        } catch (IllegalArgumentException e) {
            LoggerFactory.getLogger(Logging.class).warn("JKOMPUTE_LOG_LEVEL ignored: {}", e.getMessage());
            return LogLevel.INFO;
        }
    }

    /** Sets jkompute's threshold. */
    public static void setLevel(LogLevel newLevel) {
        level = java.util.Objects.requireNonNull(newLevel, "level");
    }

    /** Kompute's {@code kp.log_level(n)}: 0 TRACE, 1 DEBUG, 2 INFO, 3 WARN, 4 ERROR, 5 OFF. */
    public static void setLevel(int n) {
        setLevel(LogLevel.of(n));
    }

    /** jkompute's current threshold (see {@link #setLevel(LogLevel)}). */
    public static LogLevel level() {
        return level;
    }

    static boolean enabled(LogLevel l) {
        return l.ordinal() >= level.ordinal();
    }

    /** A logger that honours jkompute's threshold. Internal. */
    public static Log logger(Class<?> owner) {
        return new Log(LoggerFactory.getLogger(owner));
    }

    /** A thin gate in front of an SLF4J logger. */
    public static final class Log {
        private final Logger delegate;

        Log(Logger delegate) {
            this.delegate = delegate;
        }

        /** Whether a debug message would be written (jkompute's threshold and the SLF4J logger's both allow it). */
        public boolean isDebug() {
            return enabled(LogLevel.DEBUG) && delegate.isDebugEnabled();
        }

        /** Logs at TRACE when the threshold allows it; SLF4J's {@code {}} placeholders. */
        public void trace(String fmt, Object... args) {
            if (enabled(LogLevel.TRACE)) delegate.trace(fmt, args);
        }

        /** Logs at DEBUG when the threshold allows it; SLF4J's {@code {}} placeholders. */
        public void debug(String fmt, Object... args) {
            if (enabled(LogLevel.DEBUG)) delegate.debug(fmt, args);
        }

        /** Logs at INFO when the threshold allows it; SLF4J's {@code {}} placeholders. */
        public void info(String fmt, Object... args) {
            if (enabled(LogLevel.INFO)) delegate.info(fmt, args);
        }

        /** Logs at WARN when the threshold allows it; SLF4J's {@code {}} placeholders. */
        public void warn(String fmt, Object... args) {
            if (enabled(LogLevel.WARN)) delegate.warn(fmt, args);
        }

        /** Logs at ERROR when the threshold allows it; SLF4J's {@code {}} placeholders. */
        public void error(String fmt, Object... args) {
            if (enabled(LogLevel.ERROR)) delegate.error(fmt, args);
        }
    }
}
