package io.jkompute.cli;

import io.jkompute.JkomputeException;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.ParseResult;

/**
 * Errors a user can act on (a missing driver, a bad argument, a shader that does not compile) print as one clear
 * message; anything else keeps its stack trace, since it is a bug to report. Both are failures while running
 * (exit 1); bad input on the command line is {@link ShortUsageErrorHandler}'s.
 */
final class UserErrorHandler implements IExecutionExceptionHandler {
    @Override
    public int handleExecutionException(Exception e, CommandLine cli, ParseResult parsed) {
        if (io.jkompute.Shutdown.isStopping()) {
            // Ctrl-C or SIGTERM: the work was refused on purpose; the JVM exits with 130 or 143
            return StopSignal.report(cli.getErr());
        }
        if (e instanceof JkomputeException || e instanceof io.jkompute.cuda.CudaException || e instanceof IllegalArgumentException || e instanceof IllegalStateException
                || e instanceof java.io.UncheckedIOException) {
            cli.getErr().println("error: " + e.getMessage());
            return Main.FAILURE;
        }
        e.printStackTrace(cli.getErr());
        return Main.FAILURE;
    }
}
