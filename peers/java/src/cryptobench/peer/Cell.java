package cryptobench.peer;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One cryptobench benchmark the Java peer runs, named as the C++ suites name theirs
 * (benchmarks/grid.h): {@code seed000/backend:java-17/cipher:aes-128-cbc/op:roundtrip/size:100/
 * codec:base64/pool:off/key:per-op/real_time/threads:1}.
 */
record Cell(String scenario, String cipher, String op, int size, String codec, boolean pool,
    String key, int threads) {
  static final int SEED000_PREFIX = 100;
  static final int SEED002_SIZE = 1 << 20;
  static final String[] CODECS = {"none", "base64", "hex"};

  String params() {
    return "cipher:" + cipher + "/op:" + op + "/size:" + size + "/codec:" + codec
        + "/pool:" + (pool ? "on" : "off") + "/key:" + key;
  }

  String name(String backend) {
    return scenario + "/backend:" + backend + "/" + params() + "/real_time/threads:" + threads;
  }

  /** The cell a full name denotes (the child JVM is given its name). */
  static Cell parse(String name) {
    String[] parts = name.split("/");
    Map<String, String> p = new LinkedHashMap<>();
    for (int i = 1; i < parts.length; i++) {
      int colon = parts[i].indexOf(':');
      if (colon > 0) {
        p.put(parts[i].substring(0, colon), parts[i].substring(colon + 1));
      }
    }
    for (String k : new String[] {"cipher", "op", "size", "codec", "pool", "key", "threads"}) {
      if (!p.containsKey(k)) {
        throw new IllegalArgumentException("not a peer benchmark name: " + name);
      }
    }
    return new Cell(parts[0], p.get("cipher"), p.get("op"), Integer.parseInt(p.get("size")),
        p.get("codec"), p.get("pool").equals("on"), p.get("key"),
        Integer.parseInt(p.get("threads")));
  }

  /** Thread counts 1, 2, 4, ... up to and including 2 x cores (suites.cc's thread_ladder). */
  static List<Integer> threadLadder(int cores) {
    List<Integer> out = new ArrayList<>();
    for (int t = 1; t < 2 * cores; t *= 2) {
      out.add(t);
    }
    out.add(2 * cores);
    return out;
  }

  static List<Integer> oneToTwiceCores(int cores) {
    List<Integer> out = new ArrayList<>();
    for (int t = 1; t <= 2 * cores; t++) {
      out.add(t);
    }
    return out;
  }

  /**
   * The suite's cells in the C++ suite's order (benchmarks/suites.cc); {@code threads}, when not
   * null, replaces every scenario's thread counts.
   */
  static List<Cell> suite(String suite, int cores, List<Integer> threads) {
    List<Cell> cells = new ArrayList<>();
    switch (suite) {
      case "seed000" -> {
        for (boolean pool : new boolean[] {false, true}) {
          for (int t : threads != null ? threads : oneToTwiceCores(cores)) {
            cells.add(new Cell("seed000", "aes-128-cbc", "roundtrip", SEED000_PREFIX, "base64",
                pool, "per-op", t));
          }
        }
      }
      case "seed002" -> {
        for (int t : threads != null ? threads : threadLadder(cores)) {
          cells.add(new Cell(
              "seed002", "aes-256-cbc", "roundtrip", SEED002_SIZE, "none", false, "cached", t));
        }
      }
      case "seed003" -> {
        for (String codec : CODECS) {
          for (boolean pool : new boolean[] {false, true}) {
            for (int size = 10; size <= 1_000_000; size *= 10) {
              for (int t : threads != null ? threads : List.of(1)) {
                cells.add(
                    new Cell("seed003", "aes-128-ecb", "encrypt", size, codec, pool, "cached", t));
              }
            }
          }
        }
      }
      default -> throw new IllegalArgumentException(
          "--suite=" + suite + ": the Java peer runs seed000, seed002 and seed003");
    }
    return cells;
  }
}
