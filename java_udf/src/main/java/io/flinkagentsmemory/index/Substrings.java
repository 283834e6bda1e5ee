package io.flinkagentsmemory.index;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.lucene.util.automaton.Automaton;

/**
 * Automata accepting the terms that contain a text, for the {@code contains} and
 * {@code icontains} filters.
 *
 * <p>They are built deterministic (the Knuth-Morris-Pratt automaton of the text, one state per
 * matched prefix) rather than as {@code .*text.*} for Lucene to determinize: that costs
 * milliseconds per query, and a periodic text of a few hundred characters ("abab...") exceeds
 * Lucene's determinization budget, while this stays linear in the text.
 *
 * <p>Ignoring case compares code points as {@link String#equalsIgnoreCase} does: equal after
 * upper-casing and then lower-casing. So "k" also meets the Kelvin sign, and "ß" is not "ss"
 * (one letter never meets two).
 */
final class Substrings {

    private Substrings() {}

    /** The automaton of every string containing {@code text} (case-insensitively if asked). */
    static Automaton containing(String text, boolean ignoreCase) {
        int[] p = text.codePoints().map(c -> ignoreCase ? fold(c) : c).toArray();
        int n = p.length;
        int[] fail = failure(p);
        // Every code point that moves the automaton somewhere other than back to the start,
        // mapped to the (folded) pattern letter it stands for.
        TreeMap<Integer, Integer> letters = new TreeMap<>();
        for (int letter : Arrays.stream(p).distinct().toArray()) {
            for (int c : ignoreCase ? Folding.members(letter) : new int[] {letter}) {
                letters.put(c, letter);
            }
        }
        Automaton a = new Automaton();
        for (int i = 0; i <= n; i++) {
            a.createState();
        }
        a.setAccept(n, true);
        for (int i = 0; i < n; i++) {
            int next = 0;
            for (Map.Entry<Integer, Integer> e : letters.entrySet()) {
                int c = e.getKey();
                if (c > next) {
                    a.addTransition(i, 0, next, c - 1);
                }
                a.addTransition(i, step(p, fail, i, e.getValue()), c, c);
                next = c + 1;
            }
            if (next <= Character.MAX_CODE_POINT) {
                a.addTransition(i, 0, next, Character.MAX_CODE_POINT);
            }
        }
        a.addTransition(n, n, 0, Character.MAX_CODE_POINT);
        a.finishState();
        return a;
    }

    /** Knuth-Morris-Pratt failure function: fail[i] is the longest proper border of p[0..i). */
    private static int[] failure(int[] p) {
        int[] fail = new int[p.length + 1];
        for (int i = 1, k = 0; i < p.length; i++) {
            while (k > 0 && p[i] != p[k]) {
                k = fail[k];
            }
            if (p[i] == p[k]) {
                k++;
            }
            fail[i + 1] = k;
        }
        return fail;
    }

    /** The state after reading {@code letter} with {@code i} letters of the pattern matched. */
    private static int step(int[] p, int[] fail, int i, int letter) {
        int k = i;
        while (k > 0 && p[k] != letter) {
            k = fail[k];
        }
        return p[k] == letter ? k + 1 : 0;
    }

    /** The case-insensitive identity of a code point. */
    static int fold(int c) {
        return Character.toLowerCase(Character.toUpperCase(c));
    }

    /** Code points from here on have no case (planes 2 to 16: ideographs, private use). */
    static final int CASELESS_FROM = 0x20000;

    /** Which code points fold to the same letter; built on first use (one pass over planes 0-1). */
    private static final class Folding {

        private static final Map<Integer, int[]> MEMBERS = build();

        static int[] members(int folded) {
            int[] m = MEMBERS.get(folded);
            return m == null ? new int[] {folded} : m;
        }

        private static Map<Integer, int[]> build() {
            Map<Integer, List<Integer>> byFold = new HashMap<>();
            for (int c = 0; c < CASELESS_FROM; c++) {
                int f = fold(c);
                if (f != c) {
                    byFold.computeIfAbsent(f, k -> new ArrayList<>(List.of(k))).add(c);
                }
            }
            Map<Integer, int[]> members = new HashMap<>();
            byFold.forEach((f, cs) -> members.put(f, cs.stream().mapToInt(Integer::intValue).toArray()));
            return members;
        }
    }
}
