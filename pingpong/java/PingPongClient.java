// The Java ping-pong client, a port of seed 001's programs: a thread per
// connection, each connecting once and doing its pings one after another
// (4-byte buffer), the clock running from before the first connection. Like
// the C++ and Go clients: every reply checked, every round trip timed
// (System.nanoTime, into memory allocated before the run), an optional
// AES-128-GCM frame (--key, javax.crypto), a --timeout and one JSON line of
// figures: the pongs it received, and its CPU time over the pings (the
// process's, from just before the first connection to after the last pong).

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

public final class PingPongClient {
  private static final String PROGRAM = "pingpong-java-client";
  private static final String USAGE = String.join("\n",
      "usage: pingpong-java-client --port=PORT [flags]",
      "Seed 001's ping-pong client (Java): one JSON line of figures.",
      "  --port=PORT          the server's port (it prints it), required",
      "  --connections=N      1 to 10000 (default 100)",
      "  --pings=N            --connections to 100000000 (default 1000000)",
      "  --timeout=S          fail after S seconds, 1 to 86400 (default 600)",
      "  --key=HEX            AES-128-GCM key, 32 hex digits (plain when absent)",
      "  --version            the Java runtime's version", "");

  private static int nanos(long d) {
    return (int) Math.min(d, Integer.MAX_VALUE);
  }

  private static int nearestRank(int[] sorted, double q) {
    int rank = (int) Math.max(1, Math.ceil(q * sorted.length));
    return sorted[Math.min(rank, sorted.length) - 1];
  }

  /** One connection's pings; round trips into samples[offset, offset + count). */
  private static void ping(int port, int id, int[] samples, int offset, int count, byte[] key,
      AtomicLong cryptoNanos, AtomicLong answered) throws IOException, GeneralSecurityException {
    Socket socket;
    try {
      socket = new Socket(InetAddress.getLoopbackAddress(), port);
    } catch (IOException e) {
      throw new IOException("cannot connect to 127.0.0.1:" + port + " (connection " + id + "): "
          + e.getMessage(), e);
    }
    try (socket) {
      socket.setTcpNoDelay(true);
      InputStream in = socket.getInputStream();
      OutputStream out = socket.getOutputStream();
      String where = "connection " + id + ", pong ";
      if (key == null) {
        byte[] buf = new byte[Frames.MESSAGE_SIZE];
        for (int i = 0; i < count; i++) {
          long start = System.nanoTime();
          out.write(Frames.PING_MESSAGE);
          if (!Frames.readFully(in, buf)) {
            throw new IOException(where + i + ": the server closed the connection");
          }
          if (!Arrays.equals(buf, Frames.PONG_MESSAGE)) {
            throw new IOException(where + i + ": the reply is not \"Pong\"");
          }
          samples[offset + i] = nanos(System.nanoTime() - start);
          answered.incrementAndGet();
        }
        return;
      }
      Frames frames = new Frames(key);
      byte[] ping = new byte[Frames.SEALED_SIZE];
      byte[] pong = new byte[Frames.SEALED_SIZE];
      long spent = 0;
      for (int i = 0; i < count; i++) {
        long start = System.nanoTime();
        frames.seal(ping, id, Frames.PING, i, Frames.PING_MESSAGE);
        long sealed = System.nanoTime();
        out.write(ping);
        if (!Frames.readFully(in, pong)) {
          throw new IOException(where + i + ": the server closed the connection");
        }
        long received = System.nanoTime();
        String refused = frames.open(pong, id, Frames.PONG, i, Frames.PONG_MESSAGE);
        if (refused != null) {
          throw new IOException(where + i + ": the pong " + refused);
        }
        long end = System.nanoTime();
        spent += (sealed - start) + (end - received);
        samples[offset + i] = nanos(end - start);
        answered.incrementAndGet();
      }
      cryptoNanos.addAndGet(spent);
    }
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> flags = Frames.flags(
        PROGRAM, USAGE, args, Set.of("port", "connections", "pings", "timeout", "key"));
    if (!flags.containsKey("port")) {
      Frames.fail(PROGRAM, 2, "--port is required (the server prints it)");
    }
    int port = (int) Frames.number(PROGRAM, flags, "port", 0, 1, 65535);
    int connections = (int) Frames.number(PROGRAM, flags, "connections", 100, 1, 10_000);
    int pings = (int) Frames.number(PROGRAM, flags, "pings", 1_000_000, 1, Frames.MAX_PINGS);
    long timeout = Frames.number(PROGRAM, flags, "timeout", 600, 1, 86_400);
    if (pings < connections) {
      Frames.fail(PROGRAM, 2, "--pings (" + pings + ") must be at least --connections ("
          + connections + ")");
    }
    Frames.Sealing sealing = Frames.sealingFromFlags(PROGRAM, flags);
    final byte[] key = sealing.key();
    int[] samples = null;
    try {
      samples = new int[pings];
    } catch (OutOfMemoryError e) {
      Frames.fail(PROGRAM, 2, "--pings=" + pings + " needs " + (4L * pings >> 20)
          + " MiB for its round trips, more than the Java heap has (-Xmx): lower --pings");
    }
    final int[] times = samples;
    AtomicLong cryptoNanos = new AtomicLong();
    AtomicLong answered = new AtomicLong();
    AtomicReference<String> failure = new AtomicReference<>();
    CountDownLatch done = new CountDownLatch(connections);
    Thread[] threads = new Thread[connections];
    int offset = 0;
    for (int i = 0; i < connections; i++) {
      final int id = i;
      final int from = offset;
      final int count = pings / connections + (i < pings % connections ? 1 : 0);
      offset += count;
      threads[i] = new Thread(() -> {
        try {
          ping(port, id, times, from, count, key, cryptoNanos, answered);
        } catch (IOException | GeneralSecurityException | RuntimeException e) {
          failure.compareAndSet(null, e.getMessage());
          while (done.getCount() > 0) {
            done.countDown();  // wakes main at once
          }
          return;
        }
        done.countDown();
      }, "connection-" + i);
      threads[i].setDaemon(true);
    }

    long[] cpuStart = Frames.cpuTime();
    long start = System.nanoTime();
    for (Thread t : threads) {
      t.start();
    }
    if (!done.await(timeout, TimeUnit.SECONDS)) {
      Frames.fail(PROGRAM, 1, "timed out after " + timeout + " s: "
          + (connections - done.getCount()) + " of " + connections + " connections finished");
    }
    if (failure.get() != null) {
      Frames.fail(PROGRAM, 1, failure.get());
    }
    long wall = System.nanoTime() - start;
    String cpu = Frames.cpuSince(cpuStart);

    Arrays.sort(samples);
    double sum = 0;
    for (int s : samples) {
      sum += s;
    }
    String cipher = key == null ? "none" : "aes-128-gcm";
    System.out.println("{\"role\": \"client\", \"impl\": \"java-"
        + System.getProperty("java.version") + "\", \"cipher\": \"" + cipher + "\", \"backend\": \""
        + (key == null ? "none" : "javax.crypto") + "\", \"verified_against\": \""
        + (key == null ? "" : "openssl (a known frame)") + "\", \"connections\": " + connections
        + ", \"pings\": " + answered.get() + ", \"wall_ns\": " + wall + ", \"us_per_ping\": "
        + String.format(Locale.ROOT, "%.6f", wall / 1000.0 / pings) + ", \"rtt_p50_ns\": "
        + nearestRank(samples, 0.50) + ", \"rtt_p90_ns\": " + nearestRank(samples, 0.90)
        + ", \"rtt_p99_ns\": " + nearestRank(samples, 0.99) + ", \"rtt_p999_ns\": "
        + nearestRank(samples, 0.999) + ", \"rtt_max_ns\": " + samples[pings - 1]
        + ", \"rtt_mean_ns\": " + String.format(Locale.ROOT, "%.1f", sum / pings)
        + ", \"crypto_ns\": " + cryptoNanos.get() + ", \"crypto_isolated_ns_per_ping\": "
        + String.format(Locale.ROOT, "%.2f", sealing.isolatedNanos()) + ", " + cpu
        + ", \"peak_rss_kib\": " + Frames.peakRssKib() + "}");
    System.out.flush();
    Runtime.getRuntime().halt(0);
  }
}
