package io.jkompute.graph;

/** GXF's scheduling condition types; the executor AND-combines them with precedence NEVER > WAIT_EVENT > WAIT > WAIT_TIME > READY. */
public enum SchedulingConditionType {
    /** Will never run again; the entity is stopped. */
    NEVER,
    /** Ready to run now. */
    READY,
    /** May run in the future; nothing says when. */
    WAIT,
    /** Run at or after a target time. */
    WAIT_TIME,
    /** Parked until an event notification. */
    WAIT_EVENT;

    /** Precedence when AND-combining: higher wins. */
    int andRank() {
        return switch (this) {
            case NEVER -> 4;
            case WAIT_EVENT -> 3;
            case WAIT -> 2;
            case WAIT_TIME -> 1;
            case READY -> 0;
        };
    }
}
