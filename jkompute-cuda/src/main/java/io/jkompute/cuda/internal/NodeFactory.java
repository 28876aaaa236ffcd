package io.jkompute.cuda.internal;

import io.jkompute.cuda.DType;

/** The public entry to {@link Node}'s numpy-rule constructors (interface statics are not inherited). */
public final class NodeFactory {
    private NodeFactory() {}

    public static Node unary(Node.UnaryOp op, Node x) {
        return Node.unary(op, x);
    }

    public static Node binary(Node.BinaryOp op, Node a, Node b) {
        return Node.binary(op, a, b);
    }

    public static Node where(Node c, Node a, Node b) {
        return Node.where(c, a, b);
    }

    public static Node cast(Node x, DType t) {
        return Node.cast(x, t);
    }
}
