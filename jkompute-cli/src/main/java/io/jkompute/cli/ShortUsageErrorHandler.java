package io.jkompute.cli;

import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;

/**
 * A mistyped option gets its one-line error and where to look, not the whole usage text above it: the error is
 * what the user needs to see, and forty lines of options push it off the screen.
 */
final class ShortUsageErrorHandler implements IParameterExceptionHandler {
    @Override
    public int handleParseException(ParameterException e, String[] args) {
        CommandLine cmd = e.getCommandLine();
        PrintWriter err = cmd.getErr();
        String message = e.getMessage();
        if (e instanceof CommandLine.UnmatchedArgumentException u && cmd.getCommandSpec().parent() == null
                && !u.getUnmatched().isEmpty() && !u.getUnmatched().get(0).startsWith("-")) {
            // the top level takes no arguments: the first word was meant as a command
            message = "unknown command '" + u.getUnmatched().get(0) + "'";
        }
        err.println("error: " + message);
        CommandLine.UnmatchedArgumentException.printSuggestions(e, err);
        err.println("see '" + cmd.getCommandSpec().qualifiedName() + " --help'");
        err.flush();
        return Main.BAD_INPUT;
    }
}
