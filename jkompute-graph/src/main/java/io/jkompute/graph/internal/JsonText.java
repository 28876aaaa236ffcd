package io.jkompute.graph.internal;

/**
 * JSON string literals for the statistics reports (the graph's and jkompute-net's link counts): the reports are a few
 * fixed shapes written by hand, so a JSON library would be a dependency for one escaping rule.
 */
public final class JsonText {
    private JsonText() {
    }

    /** {@code s} as a JSON string: quotes, backslashes and control characters escaped. */
    public static String quote(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            switch (ch) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (ch < 0x20) {
                        sb.append(String.format("\\u%04x", (int) ch));
                    } else {
                        sb.append(ch);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }
}
