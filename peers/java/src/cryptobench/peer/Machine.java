package cryptobench.peer;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The machine, read as cryptobench's C++ binary reads it (host name, CPU model, vendor and the
 * CPU flags in its vocabulary), so the results tools can tell that the runs come from one
 * machine. The CPU model comes from the property cryptobench.cpu_model when it is set (tools/run-peers
 * sets it to the CPUID brand string the C++ binary records; the kernel's "model name" is the one of
 * the host a VM booted on, which a VM restored or moved elsewhere keeps).
 */
record Machine(String hostName, String model, String vendor, String flags, int cpus) {
  /** cryptobench's cpu_flags names, in its order (kernels/cpu_features.cc); Linux's too. */
  static final String[] FLAG_NAMES = {"sse4_1", "ssse3", "aes", "pclmulqdq", "avx", "avx2", "vaes",
      "vpclmulqdq", "avx512f", "avx512bw", "avx512vl", "sha_ni"};

  static Machine read() throws IOException {
    String host;
    try {
      host = Files.readString(Path.of("/proc/sys/kernel/hostname"), StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      host = InetAddress.getLocalHost().getHostName();
    }
    String model = "?";
    String vendor = "?";
    Set<String> have = new HashSet<>();
    boolean flagsSeen = false;
    int processors = 0; // Google Benchmark's num_cpus: the "processor" entries of /proc/cpuinfo
    for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"), StandardCharsets.UTF_8)) {
      int colon = line.indexOf(':');
      if (colon < 0) {
        continue;
      }
      String key = line.substring(0, colon).strip();
      String value = line.substring(colon + 1).strip();
      if (key.equals("processor")) {
        processors++;
      }
      if (key.equals("model name") && model.equals("?")) {
        model = value;
      }
      if (key.equals("vendor_id") && vendor.equals("?")) {
        vendor = value;
      }
      if (key.equals("flags") && !flagsSeen) {
        flagsSeen = true;
        have.addAll(List.of(value.split("\\s+")));
      }
    }
    List<String> flags = new ArrayList<>();
    for (String name : FLAG_NAMES) {
      if (have.contains(name)) {
        flags.add(name);
      }
    }
    String given = System.getProperty("cryptobench.cpu_model", "").strip();
    if (!given.isEmpty()) {
      model = given;
    }
    return new Machine(host, model, vendor, String.join(" ", flags), processors);
  }
}
