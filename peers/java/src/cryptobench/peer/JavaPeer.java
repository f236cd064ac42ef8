package cryptobench.peer;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import javax.crypto.Cipher;

/**
 * cryptobench's Java peer: the seeds' workloads with javax.crypto, measured and written as Google
 * Benchmark JSON that cryptobench-results reads like any run.
 *
 * <pre>
 * java -cp CLASSES cryptobench.peer.JavaPeer --suite=seed000 --benchmark_out=FILE
 *     [--benchmark_filter=REGEX] [--benchmark_repetitions=N] [--benchmark_min_time=S]
 *     [--warmup_time=S] [--threads=1,2] [--vectors=tests/vectors] [--jvm_flags="..."]
 *     [--suite_name=NAME] [--benchmark_list_tests]
 * </pre>
 *
 * <p>Like JMH's forks, every benchmark runs in a JVM of its own (so no benchmark's JIT profile
 * shapes another's), which checks the known answers, warms up for --warmup_time seconds, then
 * runs the repetitions back to back. Threads: each has its own state; the timed loop runs between
 * a start and a stop barrier, as cryptobench's C++ loop does. --suite_name is the cryptobench
 * suite recorded in the context (default: --suite). Exit: 0 done, 1 a known answer or a roundtrip
 * failed (nothing is written then), 2 a bad argument; stopped by a signal, the JVM's 128 + the
 * signal, its benchmark's JVM stopped with it (a shutdown hook; a benchmark's JVM also ends when
 * its standard input, a pipe from this JVM, closes).
 */
public final class JavaPeer {
  private JavaPeer() {}

  static final class UsageException extends Exception {
    private static final long serialVersionUID = 1L;

    UsageException(String message) {
      super(message);
    }
  }

  /** The command line, Google Benchmark's flag names where they exist. */
  static final class Options {
    String suite = "seed000";
    String suiteName;
    String filter = "";
    int repetitions = 1;
    double minTime = 0.5;
    double warmupTime = 1.0;
    List<Integer> threads;
    Path vectors = Path.of("tests/vectors");
    String out;
    boolean listTests;
    List<String> jvmFlags = new ArrayList<>();
    String child; // the benchmark a child JVM measures
    Path resultFile; // where a child writes its results
    // Tests only (not in the usage): one operation of every timed run gives a wrong output.
    boolean injectFault;

    static Options parse(String[] args) throws UsageException {
      Options o = new Options();
      for (String arg : args) {
        int eq = arg.indexOf('=');
        String name = eq < 0 ? arg : arg.substring(0, eq);
        String value = eq < 0 ? null : arg.substring(eq + 1);
        if (name.equals("--benchmark_list_tests") && (value == null || value.equals("true"))) {
          o.listTests = true;
          continue;
        }
        if (value == null) {
          throw new UsageException("unknown flag " + arg + " (flags are --name=value)");
        }
        switch (name) {
          case "--suite" -> o.suite = value;
          case "--suite_name" -> o.suiteName = value;
          case "--benchmark_filter" -> o.filter = value;
          case "--benchmark_repetitions" -> o.repetitions = positiveInt(name, value);
          case "--benchmark_min_time" -> o.minTime = seconds(name, value);
          case "--warmup_time" -> o.warmupTime = seconds(name, value);
          case "--threads" -> {
            o.threads = new ArrayList<>();
            for (String t : value.split(",")) {
              o.threads.add(positiveInt(name, t));
            }
          }
          case "--vectors" -> o.vectors = Path.of(value);
          case "--benchmark_out" -> o.out = value;
          case "--jvm_flags" -> {
            for (String f : value.trim().split("\\s+")) {
              if (!f.isEmpty()) {
                o.jvmFlags.add(f);
              }
            }
          }
          case "--child" -> o.child = value;
          case "--result_file" -> o.resultFile = Path.of(value);
          case "--inject-fault" -> {
            if (!value.equals("verify")) {
              throw new UsageException("--inject-fault=" + value + ": only 'verify'");
            }
            o.injectFault = true;
          }
          default -> throw new UsageException("unknown flag " + name);
        }
      }
      if (o.suiteName == null) {
        o.suiteName = o.suite;
      }
      return o;
    }

    private static int positiveInt(String name, String value) throws UsageException {
      try {
        int n = Integer.parseInt(value);
        if (n >= 1) {
          return n;
        }
      } catch (NumberFormatException e) {
        // reported below
      }
      throw new UsageException(name + "=" + value + ": not a whole number >= 1");
    }

    private static double seconds(String name, String value) throws UsageException {
      String v = value.endsWith("s") ? value.substring(0, value.length() - 1) : value;
      try {
        double s = Double.parseDouble(v);
        if (s >= 0 && Double.isFinite(s)) {
          return s;
        }
      } catch (NumberFormatException e) {
        // reported below
      }
      throw new UsageException(name + "=" + value + ": not a number of seconds >= 0");
    }
  }

  public static void main(String[] args) {
    int status;
    try {
      Options o = Options.parse(args);
      status = o.child != null ? child(o) : parent(o);
    } catch (UsageException e) {
      System.err.println("java peer: " + e.getMessage());
      status = 2;
    } catch (Exception e) {
      System.err.println("java peer: " + e);
      status = 1;
    }
    System.exit(status);
  }

  static String backendName() {
    return "java-" + Runtime.version().feature();
  }

  // ---------------------------------------------------------------- the parent: runs the children

  /** The benchmark JVM running now, and its result file: the shutdown hook stops and removes. */
  private static volatile Process running;

  private static volatile Path runningResults;

  /**
   * A signal (SIGINT, SIGTERM, SIGHUP) ends this JVM through its shutdown hooks: this one stops
   * the benchmark's JVM (SIGTERM, then SIGKILL after 2 s), waits for it and removes its file.
   */
  static void stopChildOnExit() {
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      Process p = running;
      if (p != null) {
        p.destroy();
        try {
          if (!p.waitFor(2, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            p.waitFor(5, TimeUnit.SECONDS);
          }
        } catch (InterruptedException e) {
          p.destroyForcibly();
        }
      }
      Path file = runningResults;
      if (file != null) {
        try {
          Files.deleteIfExists(file);
        } catch (IOException e) {
          // the JVM is ending; a leftover temporary file is all that is lost
        }
      }
    }, "stop-benchmark-jvm"));
  }

  static int parent(Options o) throws Exception {
    int cores = Runtime.getRuntime().availableProcessors();
    List<Cell> cells;
    try {
      cells = Cell.suite(o.suite, cores, o.threads);
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
    String backend = backendName();
    Pattern filter;
    boolean invert = o.filter.startsWith("-");
    try {
      filter = Pattern.compile(invert ? o.filter.substring(1) : o.filter);
    } catch (PatternSyntaxException e) {
      throw new UsageException("--benchmark_filter: " + e.getDescription());
    }
    List<Cell> selected = new ArrayList<>();
    for (Cell c : cells) {
      if (filter.matcher(c.name(backend)).find() != invert) {
        selected.add(c);
      }
    }
    if (o.listTests) {
      for (Cell c : selected) {
        System.out.println(c.name(backend));
      }
      return 0;
    }
    if (selected.isEmpty()) {
      throw new UsageException(
          "--benchmark_filter=" + o.filter + " selects no benchmark of suite " + o.suite);
    }
    if (o.out == null) {
      throw new UsageException("--benchmark_out=FILE is required");
    }
    String knownAnswers;
    try {
      knownAnswers = KnownAnswers.check(o.vectors);
    } catch (IOException | GeneralSecurityException e) {
      System.err.println(
          "java peer: known-answer check failed, nothing measured: " + e.getMessage());
      return 1;
    }
    stopChildOnExit();

    List<String> entries = new ArrayList<>();
    Map<String, String> vm = null;
    TreeSet<String> intrinsics = new TreeSet<>();
    int failed = 0;
    int family = 0;
    for (Cell cell : selected) {
      String name = cell.name(backend);
      System.err.printf("java peer: %s%n", name);
      ChildRun run = runChild(o, cell, name);
      intrinsics.addAll(run.intrinsics);
      if (run.vm != null) {
        if (vm != null && !vm.equals(run.vm)) {
          throw new IllegalStateException(
              "the JVMs disagree on their options: " + vm + " and " + run.vm);
        }
        vm = run.vm;
      }
      if (run.error != null) {
        failed++;
        System.err.println("java peer: " + name + ": " + run.error);
      }
      for (String rep : run.repetitions) {
        entries.add(entry(name, family, o.repetitions, cell.threads(), rep));
      }
      family++;
    }
    if (failed > 0) {
      System.err.printf(
          "java peer: %d of %d benchmark(s) failed; nothing written to %s%n",
          failed, selected.size(), o.out);
      return 1;
    }
    Map<String, Object> context = context(o, backend, knownAnswers, vm, intrinsics);
    writeAtomically(Path.of(o.out), Json.document(context, entries));
    return 0;
  }

  record ChildRun(
      List<String> repetitions, Map<String, String> vm, TreeSet<String> intrinsics, String error) {}

  /** Runs one benchmark in a JVM of its own and reads what it wrote. */
  static ChildRun runChild(Options o, Cell cell, String name)
      throws IOException, InterruptedException {
    Path results = Files.createTempFile("cryptobench-java-peer", ".txt");
    runningResults = results;
    try {
      List<String> command = new ArrayList<>();
      command.add(ProcessHandle.current().info().command().orElse("java"));
      command.addAll(childJvmFlags(o));
      command.addAll(List.of("-cp", System.getProperty("java.class.path"),
          JavaPeer.class.getName(), "--child=" + name, "--result_file=" + results,
          "--vectors=" + o.vectors, "--benchmark_repetitions=" + o.repetitions,
          "--benchmark_min_time=" + o.minTime, "--warmup_time=" + o.warmupTime));
      if (o.injectFault) {
        command.add("--inject-fault=verify");
      }
      Process p = new ProcessBuilder(command).start();
      running = p;
      // Its standard input stays open while this JVM lives: the child ends at its end of file.
      OutputStream stdin = p.getOutputStream();
      TreeSet<String> intrinsics = new TreeSet<>();
      List<String> errors = new ArrayList<>();
      // The JIT's -XX:+PrintIntrinsics lines say which library methods compiled to stubs.
      Thread out = drain(p.getInputStream(), line -> {
        int at = line.indexOf("(intrinsic");
        if (at < 0) {
          return;
        }
        for (String token : line.substring(0, at).trim().split("\\s+")) {
          if (token.startsWith("com.sun.crypto.") || token.startsWith("java.util.Base64")) {
            intrinsics.add(token);
          }
        }
      });
      Thread err = drain(p.getErrorStream(), line -> {
        System.err.println("  " + line);
        errors.add(line);
      });
      int status = p.waitFor();
      running = null;
      stdin.close();
      out.join();
      err.join();
      List<String> repetitions = new ArrayList<>();
      Map<String, String> vm = null;
      for (String line : Files.readAllLines(results, StandardCharsets.UTF_8)) {
        if (line.startsWith("rep ")) {
          repetitions.add(line.substring(4));
        }
        if (line.startsWith("vm ")) {
          vm = new LinkedHashMap<>();
          for (String kv : line.substring(3).split(" ")) {
            int eq = kv.indexOf('=');
            vm.put(kv.substring(0, eq), kv.substring(eq + 1));
          }
        }
      }
      String error = null;
      if (status != 0) {
        error = errors.isEmpty()
            ? "the benchmark's JVM exited with status " + status
            : errors.get(errors.size() - 1);
      } else if (repetitions.size() != o.repetitions) {
        error = "the benchmark's JVM reported " + repetitions.size() + " of " + o.repetitions
            + " repetitions";
      }
      if (error != null) {
        repetitions.clear();
      }
      return new ChildRun(repetitions, vm, intrinsics, error);
    } finally {
      runningResults = null;
      Files.deleteIfExists(results);
    }
  }

  static List<String> childJvmFlags(Options o) {
    List<String> flags =
        new ArrayList<>(List.of("-XX:+UnlockDiagnosticVMOptions", "-XX:+PrintIntrinsics"));
    flags.addAll(o.jvmFlags);
    return flags;
  }

  interface LineSink {
    void accept(String line);
  }

  static Thread drain(InputStream in, LineSink sink) {
    Thread t = new Thread(() -> {
      try (BufferedReader r =
          new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          sink.accept(line);
        }
      } catch (IOException e) {
        // the child is gone; its status says what happened
      }
    });
    t.start();
    return t;
  }

  /** A Google Benchmark iteration entry from a child's "rep" line (public: tests call it). */
  public static String entry(String name, int family, int repetitions, int threads, String rep) {
    Map<String, Long> v = new LinkedHashMap<>();
    for (String kv : rep.split(" ")) {
      int eq = kv.indexOf('=');
      v.put(kv.substring(0, eq), Long.parseLong(kv.substring(eq + 1)));
    }
    long iterations = v.get("iterations");
    double wallSeconds = v.get("wall_ns") / 1e9;
    Map<String, Object> e = new LinkedHashMap<>();
    e.put("name", name);
    e.put("family_index", family);
    e.put("per_family_instance_index", 0);
    e.put("run_name", name);
    e.put("run_type", "iteration");
    e.put("repetitions", repetitions);
    e.put("repetition_index", v.get("index"));
    e.put("threads", threads);
    e.put("iterations", iterations);
    // Google Benchmark's times: real_time is the threads' mean loop time over all iterations;
    // cpu_time the threads' CPU time summed, over all iterations.
    e.put("real_time", (double) v.get("thread_ns") / threads / iterations);
    e.put("cpu_time", (double) v.get("cpu_ns") / iterations);
    e.put("time_unit", "ns");
    if (v.get("alloc_bytes") >= 0) {
      e.put("alloc_bytes_per_op", (double) v.get("alloc_bytes") / iterations);
    }
    e.put("warmup_seconds", v.get("warmup_ms") / 1000.0);
    // cryptobench's rates: all threads together over the wall time from the common start to the
    // last thread's end.
    e.put("bytes_per_second", v.get("bytes") / wallSeconds);
    e.put("items_per_second", iterations / wallSeconds);
    e.put("ops_per_ms", iterations / wallSeconds / 1000.0);
    return Json.object(e, 2);
  }

  static Map<String, Object> context(Options o, String backend, String knownAnswers,
      Map<String, String> vm, TreeSet<String> intrinsics) throws IOException {
    Machine machine = Machine.read();
    Map<String, Object> c = new LinkedHashMap<>();
    c.put("date",
        OffsetDateTime.now().format(DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ssxxx")));
    c.put("host_name", machine.hostName());
    c.put("executable", ProcessHandle.current().info().command().orElse("java") + " -cp "
        + System.getProperty("java.class.path") + " " + JavaPeer.class.getName());
    c.put("num_cpus", machine.cpus());
    c.put("cpu_model", machine.model());
    c.put("cpu_vendor", machine.vendor());
    c.put("cpu_flags", machine.flags());
    c.put("cpu_flags_in_use", machine.flags());
    c.put("cpu_mask", "none");
    c.put("cryptobench_suite", o.suiteName);
    c.put("repetitions_interleaved", "false");
    String b = "backend." + backend + ".";
    String provider;
    try {
      Cipher cipher = Cipher.getInstance("AES/CBC/PKCS5Padding");
      provider = cipher.getProvider().getName() + " " + cipher.getProvider().getVersionStr();
    } catch (GeneralSecurityException e) {
      provider = "?";
    }
    Runtime.Version version = Runtime.version();
    c.put(b + "library", System.getProperty("java.vm.vendor") + " OpenJDK "
        + version.version().get(0) + "." + version.interim() + "." + version.update()
        + " javax.crypto (" + provider + ")");
    c.put(b + "version", System.getProperty("java.runtime.version"));
    c.put(b + "runtime", System.getProperty("java.runtime.name") + " "
        + System.getProperty("java.runtime.version") + ", " + System.getProperty("java.vm.name")
        + " " + System.getProperty("java.vm.version") + " ("
        + System.getProperty("java.vm.vendor") + ", " + System.getProperty("java.vm.info") + ")");
    String flags =
        vm == null ? "not reported" : vm.toString().replaceAll("[{}]", "").replace(", ", " ");
    c.put(b + "hotspot_flags", flags);
    boolean aesIntrinsics = vm != null && "true".equals(vm.get("UseAESIntrinsics"));
    c.put(b + "code_path", (aesIntrinsics
            ? "HotSpot AES intrinsics on (UseAESIntrinsics=true)"
            : "HotSpot AES intrinsics off: SunJCE's Java AES (table lookups)")
        + "; SunJCE (AESCrypt, CipherBlockChaining, ElectronicCodeBook); methods the JIT "
        + "compiled to stubs in the measured JVMs (-XX:+PrintIntrinsics): "
        + (intrinsics.isEmpty() ? "none" : String.join(", ", intrinsics))
        + ". JDK 17 has ECB and vector CBC-decryption stubs only for AVX-512 VAES (UseAVX=3, "
        + "vaes), else AES-NI one block at a time; CBC encryption is a serial AES-NI chain");
    c.put(b + "codec", "java.util.Base64 (getEncoder/getDecoder; UseBASE64Intrinsics="
        + (vm == null ? "?" : vm.get("UseBASE64Intrinsics")) + "), java.util.HexFormat");
    c.put(b + "codec_source", "library");
    c.put(b + "modes", "ecb,cbc");
    c.put(b + "jvm_flags", String.join(" ", childJvmFlags(o))
        + " (the measured JVMs; -XX:+PrintIntrinsics prints only when the JIT compiles)");
    c.put(b + "known_answers", knownAnswers);
    c.put(b + "key_handling", "seed000 (key:per-op): the thread-local Cipher re-initialised "
        + "with a new SecretKeySpec to encrypt and again to decrypt, as seed 000's program; JDK "
        + "17's AESCrypt.init expands a key only when its bytes differ from the last key's "
        + "(MessageDigest.isEqual), so with the seed's fixed key the schedule is computed once "
        + "per thread and per op costs the key objects and a comparison (cryptobench's C++ "
        + "backends expand the key every op); seed002/seed003 (key:cached): Ciphers initialised "
        + "once per thread");
    // Shown by the answer and the report next to java-17 wherever a benchmark has key:per-op.
    c.put(b + "caveat.key=per-op",
        "the JDK does not re-expand a key whose bytes repeat: key:per-op runs no key schedule");
    c.put(b + "pool", "pool off: doFinal returning new arrays, Base64 encodeToString, "
        + "HexFormat.formatHex Strings, the seed-000 message a new String, as idiomatic code; "
        + "pool on: each thread's own arrays (doFinal into an output array, Base64 encode/decode "
        + "into byte arrays, hex into a reused StringBuilder); Cipher.init still allocates its "
        + "key and IV objects");
    c.put(b + "allocation_counting", "com.sun.management.ThreadMXBean"
        + ".getCurrentThreadAllocatedBytes of each thread around its timed loop, summed, / "
        + "operations: bytes only (alloc_bytes_per_op); the JVM does not count allocations, so "
        + "allocs_per_op is absent, not estimated; escape analysis removes some allocations the "
        + "source makes");
    c.put(b + "method", "one JVM per benchmark (as JMH's fork), the known answers checked in "
        + "it, warm-up (JIT compilation) with the benchmark's threads in slices until at least "
        + o.warmupTime + " s have passed and the last three slices' rates are within 5% (at most "
        + 5 * o.warmupTime + " s; each entry's warmup_seconds says how long), then "
        + o.repetitions + " repetition(s) of at least " + o.minTime + " s back to back (a "
        + "shorter one is re-run with more iterations, as Google Benchmark sizes a run); not "
        + "interleaved with other benchmarks");
    c.put(b + "timing", "System.nanoTime around each thread's loop between a start and a stop "
        + "barrier; real_time = the threads' mean loop time / all iterations; cpu_time = the "
        + "threads' CPU time (ThreadMXBean) summed / all iterations, as Google Benchmark's; "
        + "rates over the wall time from the common start to the last thread's end; no "
        + "cycles_per_byte or core_ghz: the peer does not measure the core clock");
    return c;
  }

  static void writeAtomically(Path target, String text) throws IOException {
    Path dir = target.toAbsolutePath().getParent();
    Path tmp = Files.createTempFile(dir, target.getFileName().toString() + ".", ".partial");
    try {
      Files.writeString(tmp, text, StandardCharsets.UTF_8);
      Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-r--r--"));
      Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  // ---------------------------------------------------------------- the child: measures one cell

  /** One timed run of all threads. */
  record Timing(
      long iterations, long threadNs, long wallNs, long cpuNs, long bytes, long allocBytes) {
    double meanThreadSeconds(int threads) {
      return threadNs / 1e9 / threads;
    }
  }

  /**
   * The child ends when its parent does: its standard input is a pipe from the parent, which
   * closes when the parent's JVM ends however it ends (SIGKILL too).
   */
  static void endWithParent() {
    Thread watch = new Thread(() -> {
      try {
        while (System.in.read() >= 0) {
          // the parent writes nothing; only the end of file matters
        }
      } catch (IOException e) {
        // the same: the parent is gone
      }
      System.err.println("the peer's parent JVM has ended: stopping");
      Runtime.getRuntime().halt(1);
    }, "end-with-parent");
    watch.setDaemon(true);
    watch.start();
  }

  static int child(Options o) throws Exception {
    endWithParent();
    Cell cell = Cell.parse(o.child);
    try {
      KnownAnswers.check(o.vectors);
    } catch (IOException | GeneralSecurityException e) {
      System.err.println("known-answer check failed, nothing measured: " + e.getMessage());
      return 1;
    }
    List<String> lines = new ArrayList<>();
    lines.add("vm " + hotspotFlags());
    int threads = cell.threads();
    SplittableRandom seeds = new SplittableRandom();
    try {
      Warmup warm = warmUp(cell, seeds, o);
      if (!warm.settled) {
        System.err.printf(
            "warm-up did not settle in %.1f s (the last rates, ops/s per thread: %s): "
                + "the figures may include JIT compilation or a busy machine%n",
            warm.seconds, warm.lastRates);
      }
      long perThread = iterationsFor(o.minTime, warm.last, threads);
      int attempts = 0;
      for (int rep = 0; rep < o.repetitions; ) {
        Timing t = runThreads(cell, seeds.split(), perThread, 0, o.injectFault);
        double seconds = t.meanThreadSeconds(threads);
        if (seconds < o.minTime && attempts < 10) { // a sizing run: more iterations, again
          // At least twice as many: while the JIT still speeds the loop up, the rate it
          // showed under-sizes the next loop too (seen with a 5 ms minimum time).
          perThread = Math.max(iterationsFor(o.minTime, t, threads), 2 * perThread);
          attempts++;
          continue;
        }
        lines.add(String.format("rep index=%d iterations=%d thread_ns=%d wall_ns=%d cpu_ns=%d "
                + "bytes=%d alloc_bytes=%d warmup_ms=%d",
            rep, t.iterations, t.threadNs, t.wallNs, t.cpuNs, t.bytes, t.allocBytes,
            Math.round(warm.seconds * 1000)));
        rep++;
        attempts = 0;
      }
    } catch (GeneralSecurityException e) {
      System.err.println("verification failed: " + e.getMessage());
      return 1;
    }
    Files.write(o.resultFile, lines, StandardCharsets.UTF_8);
    return 0;
  }

  /** The warm-up: how long it took, whether the rate settled, the last slice. */
  record Warmup(double seconds, boolean settled, String lastRates, Timing last) {}

  /**
   * Runs the benchmark in slices until the JIT has settled: at least --warmup_time seconds and the
   * last three slices' rates within 5% of each other, or 5 x --warmup_time at most (unsettled,
   * said on stderr). --warmup_time=0: one short slice, only to size the repetitions.
   */
  static Warmup warmUp(Cell cell, SplittableRandom seeds, Options o)
      throws GeneralSecurityException, InterruptedException {
    int threads = cell.threads();
    long sliceNs = (long) (Math.max(0.2, Math.min(o.minTime, 1.0)) * 1e9);
    if (o.warmupTime == 0) {
      sliceNs = (long) (Math.max(o.minTime, 0.001) * 1e9);
    }
    List<Double> rates = new ArrayList<>();
    double seconds = 0;
    while (true) {
      Timing t = runThreads(cell, seeds.split(), Long.MAX_VALUE, sliceNs, false);
      seconds += t.wallNs / 1e9;
      rates.add(t.iterations / Math.max(t.meanThreadSeconds(threads), 1e-9) / threads);
      List<Double> last = rates.subList(Math.max(0, rates.size() - 3), rates.size());
      double max = last.stream().mapToDouble(Double::doubleValue).max().getAsDouble();
      double min = last.stream().mapToDouble(Double::doubleValue).min().getAsDouble();
      boolean settled = last.size() == 3 && max <= 1.05 * min;
      String shown = last.stream()
          .map(r -> String.format("%.0f", r))
          .reduce((a, b) -> a + ", " + b)
          .orElse("");
      if (o.warmupTime == 0 || (seconds >= o.warmupTime && settled)) {
        return new Warmup(seconds, true, shown, t);
      }
      if (seconds >= 5 * o.warmupTime) {
        return new Warmup(seconds, false, shown, t);
      }
    }
  }

  /** Iterations per thread for a loop of 1.1 x minTime at the rate `t` shows. */
  static long iterationsFor(double minTime, Timing t, int threads) {
    double perOp = t.meanThreadSeconds(threads) / Math.max(1.0, (double) t.iterations / threads);
    return Math.max(1, (long) Math.ceil(1.1 * minTime / Math.max(perOp, 1e-12)));
  }

  static String hotspotFlags() {
    HotSpotDiagnosticMXBean hotspot =
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
    StringBuilder sb = new StringBuilder();
    for (String flag : new String[] {"UseAES", "UseAESIntrinsics", "UseAESCTRIntrinsics",
        "UseAVX", "UseBASE64Intrinsics", "UseG1GC", "MaxHeapSize"}) {
      String value;
      try {
        value = hotspot.getVMOption(flag).getValue();
      } catch (IllegalArgumentException e) {
        value = "n/a";
      }
      if (sb.length() > 0) {
        sb.append(' ');
      }
      sb.append(flag).append('=').append(value);
    }
    return sb.toString();
  }

  static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  static boolean allocationsCounted() {
    return THREADS.isThreadAllocatedMemorySupported() && THREADS.isThreadAllocatedMemoryEnabled();
  }

  /**
   * Runs `cell.threads()` threads, each with its own operation, `perThread` operations each (or,
   * with `durationNs` > 0, until that much time has passed: the warm-up). Every thread reaches both
   * barriers exactly once, even after an error, so none waits forever. With `injectFault` (tests
   * only), the first thread's operation halfway through its timed loop gives a wrong output,
   * which the operation's own checks must catch.
   */
  static Timing runThreads(Cell cell, SplittableRandom rng, long perThread, long durationNs,
      boolean injectFault) throws GeneralSecurityException, InterruptedException {
    int n = cell.threads();
    Workloads.Inputs inputs = new Workloads.Inputs(cell, rng.split());
    SplittableRandom[] threadRngs = new SplittableRandom[n];
    for (int i = 0; i < n; i++) {
      threadRngs[i] = rng.split();
    }
    CyclicBarrier start = new CyclicBarrier(n);
    CyclicBarrier stop = new CyclicBarrier(n);
    long[] ops = new long[n];
    long[] begin = new long[n];
    long[] end = new long[n];
    long[] last = new long[n];
    long[] cpu = new long[n];
    long[] alloc = new long[n];
    long[] bytes = new long[n];
    Throwable[] errors = new Throwable[n];
    boolean counting = allocationsCounted();
    Thread[] workers = new Thread[n];
    for (int k = 0; k < n; k++) {
      final int id = k;
      // No fault: the loop's first part runs to the end.
      final long faultAt = injectFault && id == 0 && durationNs == 0 ? perThread / 2 : perThread;
      workers[k] = new Thread(() -> {
        Workloads.Operation op = null;
        try {
          op = Workloads.create(cell, inputs, threadRngs[id]);
        } catch (Throwable e) {
          errors[id] = e;
        }
        await(start);
        long c0 = THREADS.getCurrentThreadCpuTime();
        long a0 = counting ? THREADS.getCurrentThreadAllocatedBytes() : 0;
        long t0 = System.nanoTime();
        long i = 0;
        long total = 0;
        try {
          if (op != null && durationNs > 0) {
            long deadline = t0 + durationNs;
            while (System.nanoTime() < deadline) {
              total += op.run(i++, false);
            }
          } else if (op != null) {
            for (; i < faultAt; i++) {
              total += op.run(i, false);
            }
            if (i < perThread) {
              total += op.run(i++, true);
            }
            for (; i < perThread; i++) {
              total += op.run(i, false);
            }
          }
        } catch (Throwable e) {
          errors[id] = e;
        }
        long t1 = System.nanoTime();
        long a1 = counting ? THREADS.getCurrentThreadAllocatedBytes() : 0;
        long c1 = THREADS.getCurrentThreadCpuTime();
        await(stop);
        last[id] = System.nanoTime();
        ops[id] = i;
        begin[id] = t0;
        end[id] = t1;
        cpu[id] = c1 - c0;
        alloc[id] = a1 - a0;
        bytes[id] = total;
        try {
          if (op != null && errors[id] == null) {
            op.verifyLast();
          }
        } catch (Throwable e) {
          errors[id] = e;
        }
      }, "peer-" + k);
      workers[k].start();
    }
    for (Thread w : workers) {
      w.join();
    }
    for (Throwable e : errors) {
      if (e instanceof GeneralSecurityException g) {
        throw g;
      }
      if (e != null) {
        throw new GeneralSecurityException(e.toString(), e);
      }
    }
    long iterations = Arrays.stream(ops).sum();
    long threadNs = 0;
    for (int i = 0; i < n; i++) {
      threadNs += end[i] - begin[i];
    }
    long wall = Arrays.stream(last).max().getAsLong() - Arrays.stream(begin).min().getAsLong();
    long allocBytes = counting ? Arrays.stream(alloc).sum() : -1;
    return new Timing(iterations, threadNs, wall, Arrays.stream(cpu).sum(),
        Arrays.stream(bytes).sum(), allocBytes);
  }

  static void await(CyclicBarrier barrier) {
    try {
      barrier.await();
    } catch (Exception e) {
      throw new IllegalStateException("a benchmark thread's barrier broke", e);
    }
  }
}
