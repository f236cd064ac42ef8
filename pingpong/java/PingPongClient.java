// The Java ping-pong client, a port of seed 001's programs: a thread per
// connection, each connecting once and doing its pings one after another
// (4-byte buffer), the clock running from before the first connection. Like
// the C++ and Go clients: every reply checked, every round trip timed
// (System.nanoTime, into memory allocated before the run), an optional
// AES-128-GCM frame (--key, javax.crypto), a --timeout and one JSON line of
// figures.

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

  private static int nanos(long d) {
    return (int) Math.min(d, Integer.MAX_VALUE);
  }

  private static int nearestRank(int[] sorted, double q) {
    int rank = (int) Math.max(1, Math.ceil(q * sorted.length));
    return sorted[Math.min(rank, sorted.length) - 1];
  }

  /** One connection's pings; round trips into samples[offset, offset + count). */
  private static void ping(int port, int id, int[] samples, int offset, int count, byte[] key,
      AtomicLong cryptoNanos) throws IOException, GeneralSecurityException {
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
      }
      cryptoNanos.addAndGet(spent);
    }
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> flags =
        Frames.flags(PROGRAM, args, Set.of("port", "connections", "pings", "timeout", "key"));
    if (!flags.containsKey("port")) {
      Frames.fail(PROGRAM, 2, "--port is required (the server prints it)");
    }
    int port = (int) Frames.number(PROGRAM, flags, "port", 0, 1, 65535);
    int connections = (int) Frames.number(PROGRAM, flags, "connections", 100, 1, 10_000);
    int pings = (int) Frames.number(PROGRAM, flags, "pings", 1_000_000, 1, 1_000_000_000);
    long timeout = Frames.number(PROGRAM, flags, "timeout", 600, 1, 86_400);
    if (pings < connections) {
      Frames.fail(PROGRAM, 2, "--pings (" + pings + ") must be at least --connections ("
          + connections + ")");
    }
    byte[] key = null;
    double isolated = 0;
    if (flags.containsKey("key")) {
      try {
        key = Frames.parseKey(flags.get("key"));
      } catch (IllegalArgumentException e) {
        Frames.fail(PROGRAM, 2, e.getMessage());
      }
      try {
        isolated = Frames.selfCheck();
      } catch (GeneralSecurityException e) {
        Frames.fail(PROGRAM, 1, e.getMessage());
      }
    }
    final byte[] sealKey = key;
    int[] samples = new int[pings];
    AtomicLong cryptoNanos = new AtomicLong();
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
          ping(port, id, samples, from, count, sealKey, cryptoNanos);
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

    long[] r = Frames.resources();
    Arrays.sort(samples);
    double sum = 0;
    for (int s : samples) {
      sum += s;
    }
    String cipher = key == null ? "none" : "aes-128-gcm";
    System.out.println("{\"role\": \"client\", \"impl\": \"java-" + System.getProperty("java.version")
        + "\", \"cipher\": \"" + cipher + "\", \"backend\": \""
        + (key == null ? "none" : "javax.crypto") + "\", \"verified_against\": \""
        + (key == null ? "" : "openssl (a known frame)") + "\", \"connections\": " + connections
        + ", \"pings\": " + pings + ", \"wall_ns\": " + wall + ", \"us_per_ping\": "
        + String.format(Locale.ROOT, "%.6f", wall / 1000.0 / pings) + ", \"rtt_p50_ns\": "
        + nearestRank(samples, 0.50) + ", \"rtt_p90_ns\": " + nearestRank(samples, 0.90)
        + ", \"rtt_p99_ns\": " + nearestRank(samples, 0.99) + ", \"rtt_p999_ns\": "
        + nearestRank(samples, 0.999) + ", \"rtt_max_ns\": " + samples[pings - 1]
        + ", \"rtt_mean_ns\": " + String.format(Locale.ROOT, "%.1f", sum / pings) + ", \"crypto_ns\": "
        + cryptoNanos.get() + ", \"crypto_isolated_ns_per_ping\": "
        + String.format(Locale.ROOT, "%.2f", isolated) + ", \"user_ns\": " + r[0] + ", \"system_ns\": " + r[1]
        + ", \"peak_rss_kib\": " + r[2] + "}");
    System.out.flush();
    Runtime.getRuntime().halt(0);
  }
}
