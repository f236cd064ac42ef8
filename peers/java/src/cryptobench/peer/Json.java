package cryptobench.peer;

import java.util.List;
import java.util.Map;

/** The little JSON the peer writes: objects of strings, numbers and booleans, never NaN. */
final class Json {
  private Json() {}

  static String string(String s) {
    StringBuilder sb = new StringBuilder("\"");
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        default -> {
          if (c < 0x20) {
            sb.append(String.format("\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    return sb.append('"').toString();
  }

  static String value(Object v) {
    if (v instanceof String s) {
      return string(s);
    }
    if (v instanceof Boolean || v instanceof Integer || v instanceof Long) {
      return v.toString();
    }
    if (v instanceof Double d) {
      if (!Double.isFinite(d)) {
        throw new IllegalArgumentException("not a finite number: " + d);
      }
      return d.toString();
    }
    throw new IllegalArgumentException("no JSON for " + v);
  }

  /** An object, its fields one per line at `indent` spaces. */
  static String object(Map<String, ?> fields, int indent) {
    String pad = " ".repeat(indent);
    StringBuilder sb = new StringBuilder("{\n");
    int i = 0;
    for (Map.Entry<String, ?> e : fields.entrySet()) {
      sb.append(pad).append("  ").append(string(e.getKey())).append(": ");
      sb.append(value(e.getValue()));
      sb.append(++i < fields.size() ? ",\n" : "\n");
    }
    return sb.append(pad).append('}').toString();
  }

  /** Google Benchmark's document: {"context": {...}, "benchmarks": [...]}. */
  static String document(Map<String, ?> context, List<String> benchmarks) {
    StringBuilder sb = new StringBuilder("{\n  \"context\": ").append(object(context, 2));
    sb.append(",\n  \"benchmarks\": [\n");
    for (int i = 0; i < benchmarks.size(); i++) {
      sb.append("  ").append(benchmarks.get(i)).append(i + 1 < benchmarks.size() ? ",\n" : "\n");
    }
    return sb.append("  ]\n}\n").toString();
  }
}
