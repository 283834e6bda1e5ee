package io.flinkagentsmemory.inspect;

import java.util.ArrayList;
import java.util.List;

import org.apache.flink.runtime.checkpoint.OperatorState;

/**
 * Which memory-agent operator of a savepoint to inspect. A job that applies several agents has
 * one MemoryAgentOperator per agent, each with its own memory: taking one silently would show
 * the wrong agent's memory, so with several the user names one with {@value #OPTION}, by its uid
 * (set with {@code .uid(...)} on the agent's stream), its name (the package names it
 * {@code agent:ClassName}) or its operator id (hex, as the errors list it).
 */
final class OperatorChoice {

    /** The CLI option: the errors name it, so the user knows what to pass. */
    static final String OPTION = "--operator";

    private OperatorChoice() {}

    /** How the savepoint's metadata names one operator: id (hex), and uid and name when recorded. */
    record OperatorRef(String id, String uid, String name) {

        static OperatorRef of(OperatorState op) {
            return new OperatorRef(op.getOperatorID().toHexString(), op.getOperatorUid().orElse(null),
                    op.getOperatorName().orElse(null));
        }

        boolean isNamed(String wanted) {
            return wanted.equals(uid) || wanted.equals(name) || wanted.equalsIgnoreCase(id);
        }

        /** {@code agent:Foo (uid foo, id 3f2a...)}: every handle the user can pass. */
        String label() {
            return (name != null ? name : "unnamed operator") + " (" + (uid != null ? "uid " + uid + ", " : "")
                    + "id " + id + ")";
        }
    }

    /**
     * The index in {@code memory} (non-empty: a savepoint without one is another job's) of the
     * operator to inspect: the only one when {@code wanted} is null, else the one it names.
     * {@code others} are the savepoint's operators without agent memory, for a clearer error.
     */
    static int choose(String path, List<OperatorRef> memory, List<OperatorRef> others, String wanted)
            throws InspectionException {
        if (memory.isEmpty()) {
            throw new IllegalArgumentException("no memory-agent operator to choose from");
        }
        if (wanted == null || wanted.isEmpty()) {
            if (memory.size() == 1) {
                return 0;
            }
            throw new InspectionException("the savepoint at " + path + " holds " + memory.size()
                    + " memory-agent operators (the job applies several agents): " + labels(memory)
                    + "; choose one with " + OPTION + " UID_OR_NAME (its uid, its name or its operator id)");
        }
        List<Integer> matches = new ArrayList<>();
        for (int i = 0; i < memory.size(); i++) {
            if (memory.get(i).isNamed(wanted)) {
                matches.add(i);
            }
        }
        if (matches.size() == 1) {
            return matches.get(0);
        }
        String asked = OPTION + " '" + wanted + "'";
        if (matches.size() > 1) {
            throw new InspectionException(asked + " names " + matches.size() + " memory-agent operators of the "
                    + "savepoint at " + path + ": " + labels(matches.stream().map(memory::get).toList())
                    + "; choose one by its uid or operator id");
        }
        List<OperatorRef> named = others.stream().filter(o -> o.isNamed(wanted)).toList();
        String what = named.isEmpty()
                ? " names no operator of the savepoint at " + path
                : " names " + labels(named) + " of the savepoint at " + path + ", which holds no agent memory (no "
                        + "keyed state '" + MemoryOperatorState.SHORT_TERM + "')";
        throw new InspectionException(asked + what + "; its memory-agent operator" + (memory.size() == 1 ? " is " : "s are ")
                + labels(memory));
    }

    private static String labels(List<OperatorRef> refs) {
        return String.join(", ", refs.stream().map(OperatorRef::label).toList());
    }
}
