// The Java ping-pong server, a port of seed 001's programs: a thread per
// connection, a 4-byte buffer, "Pong" written for each "Ping", ending the
// connection at end of stream. Like the C++ and Go servers: 127.0.0.1 only,
// a free port (--port=0) printed first, whole messages read and checked, an
// optional AES-128-GCM frame (--key, javax.crypto), an end (after
// --connections connections closed, on SIGINT/SIGTERM/SIGHUP, or a failure
// after --timeout seconds) and one JSON line of figures (with its CPU time
// over the pings: the process's, from just before its first accept to the
// end of its last connection).

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

public final class PingPongServer {
  private static final String PROGRAM = "pingpong-java-server";
  private static final String USAGE = String.join("\n",
      "usage: pingpong-java-server [flags]",
      "Seed 001's ping-pong server (Java) on 127.0.0.1: prints its port, then one JSON line of",
      "figures at the end.",
      "  --port=PORT          0 to 65535 (default 0: a free port)",
      "  --connections=N      end after N connections have closed, 0 to 1000000",
      "                       (default 0: serve until signalled)",
      "  --timeout=S          fail after S seconds, 1 to 86400 (default 600)",
      "  --key=HEX            AES-128-GCM key, 32 hex digits (plain when absent)",
      "  --version            the Java runtime's version", "");

  private final byte[] key;
  private final AtomicLong answered = new AtomicLong();
  private final AtomicLong errors = new AtomicLong();
  private final AtomicLong cryptoNanos = new AtomicLong();
  private final AtomicLong finished = new AtomicLong();
  private final Semaphore ended = new Semaphore(0);
  private final Set<Long> idsSeen = new HashSet<>();
  private final AtomicBoolean reported = new AtomicBoolean();
  private volatile long[] cpuStart = Frames.cpuTime();

  private PingPongServer(byte[] key) {
    this.key = key;
  }

  private void fault(long number, long pings, String why) {
    if (errors.incrementAndGet() <= 10) {
      System.err.println(PROGRAM + ": connection " + number + ", ping " + pings + ": " + why);
    }
  }

  private void handle(Socket socket, long number) {
    long pings = 0;
    long spent = 0;
    try (socket) {
      socket.setTcpNoDelay(true);
      InputStream in = socket.getInputStream();
      OutputStream out = socket.getOutputStream();
      if (key == null) {
        byte[] buf = new byte[Frames.MESSAGE_SIZE];
        while (Frames.readFully(in, buf)) {
          if (!Arrays.equals(buf, Frames.PING_MESSAGE)) {
            fault(number, pings, "the message is not \"Ping\"");
            return;
          }
          out.write(Frames.PONG_MESSAGE);
          pings++;
          answered.incrementAndGet();
        }
        return;
      }
      Frames frames = new Frames(key);
      byte[] buf = new byte[Frames.SEALED_SIZE];
      byte[] reply = new byte[Frames.SEALED_SIZE];
      int id = 0;
      while (Frames.readFully(in, buf)) {
        long start = System.nanoTime();
        if (pings == 0) {
          long first = Frames.firstPingConnection(buf);
          boolean fresh;
          synchronized (idsSeen) {
            fresh = first >= 0 && idsSeen.add(first);
          }
          if (!fresh) {
            fault(number, pings, first < 0 ? "the first ping's nonce is not a ping's with counter 0"
                : "connection id " + first + " was used before (a nonce would repeat)");
            return;
          }
          id = (int) first;
        }
        String refused = frames.open(buf, id, Frames.PING, pings, Frames.PING_MESSAGE);
        if (refused != null) {
          fault(number, pings, "the ping " + refused);
          return;
        }
        frames.seal(reply, id, Frames.PONG, pings, Frames.PONG_MESSAGE);
        spent += System.nanoTime() - start;
        out.write(reply);
        pings++;
        answered.incrementAndGet();
      }
    } catch (IOException | GeneralSecurityException e) {
      fault(number, pings, e.getMessage());
    } finally {
      cryptoNanos.addAndGet(spent);
      finished.incrementAndGet();
      ended.release();
    }
  }

  private void report() {
    if (!reported.compareAndSet(false, true)) {
      return;
    }
    String cpu = Frames.cpuSince(cpuStart);
    System.out.println("{\"role\": \"server\", \"impl\": \"java-"
        + System.getProperty("java.version") + "\", \"cipher\": \""
        + (key == null ? "none" : "aes-128-gcm") + "\", \"backend\": \""
        + (key == null ? "none" : "javax.crypto") + "\", \"connections\": " + finished.get()
        + ", \"pings\": " + answered.get() + ", \"errors\": " + errors.get() + ", \"crypto_ns\": "
        + cryptoNanos.get() + ", " + cpu + ", \"peak_rss_kib\": " + Frames.peakRssKib() + "}");
    System.out.flush();
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> flags =
        Frames.flags(PROGRAM, USAGE, args, Set.of("port", "connections", "timeout", "key"));
    int port = (int) Frames.number(PROGRAM, flags, "port", 0, 0, 65535);
    long connections = Frames.number(PROGRAM, flags, "connections", 0, 0, 1_000_000);
    long timeout = Frames.number(PROGRAM, flags, "timeout", 600, 1, 86_400);
    PingPongServer server = new PingPongServer(Frames.sealingFromFlags(PROGRAM, flags).key());
    ServerSocket listener = new ServerSocket();
    listener.setReuseAddress(true);
    try {
      listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 4096);
    } catch (IOException e) {
      Frames.fail(PROGRAM, 1, "cannot listen on 127.0.0.1:" + port + ": " + e.getMessage());
    }
    System.out.println("listening on 127.0.0.1:" + listener.getLocalPort());
    System.out.flush();

    // SIGINT, SIGTERM, SIGHUP: the JVM runs this hook; the figures, then the
    // status (0 when serving until signalled, else 128 + the signal, as the JVM does).
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      if (!server.reported.get()) {
        server.report();
        if (connections == 0) {
          Runtime.getRuntime().halt(0);
        }
      }
    }));
    Thread acceptor = new Thread(() -> {
      long number = 0;
      while (true) {
        Socket socket;
        try {
          socket = listener.accept();
        } catch (IOException e) {
          Frames.fail(PROGRAM, 1, "accept: " + e.getMessage());
          return;
        }
        final long n = number++;
        Thread t = new Thread(() -> server.handle(socket, n), "connection-" + n);
        t.setDaemon(true);
        t.start();
      }
    }, "acceptor");
    acceptor.setDaemon(true);
    server.cpuStart = Frames.cpuTime(); // before the first accept
    acceptor.start();

    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeout);
    while (connections == 0 || server.finished.get() < connections) {
      long left = deadline - System.nanoTime();
      if (left <= 0 || !server.ended.tryAcquire(left, TimeUnit.NANOSECONDS)) {
        server.report();
        Frames.fail(PROGRAM, 1, "timed out after " + timeout + " s: " + server.finished.get()
            + " of " + connections + " connections finished, " + server.answered.get()
            + " pings answered");
      }
    }
    server.report();
    if (server.errors.get() > 0) {
      Frames.fail(PROGRAM, 1, server.errors.get()
          + " protocol or crypto error(s); the run is not valid");
    }
    Runtime.getRuntime().halt(0);
  }
}
