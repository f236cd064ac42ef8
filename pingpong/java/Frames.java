// Frames: the wire format of seed 001's ping-pong for the Java peer, the same
// as the C++ (pingpong/frame.h) and Go (go/frame) programs speak.
//
// Plain: the client writes the 4 bytes "Ping", the server answers "Pong".
// Sealed with AES-128-GCM (javax.crypto): each message is one 32-byte frame,
// nonce (12 bytes) | ciphertext (4) | tag (16), no additional data. The nonce
// is the connection id (4 bytes, big-endian), the direction (1 byte: 0 ping,
// 1 pong) and the ping's number on its connection (7 bytes, big-endian).
// Also here: the peers' flag parser, failure line and resource figures.

import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

final class Frames {
  static final int MESSAGE_SIZE = 4;
  static final int NONCE_SIZE = 12;
  static final int TAG_SIZE = 16;
  static final int SEALED_SIZE = NONCE_SIZE + MESSAGE_SIZE + TAG_SIZE;
  static final int KEY_SIZE = 16;
  static final int PING = 0;
  static final int PONG = 1;
  static final byte[] PING_MESSAGE = "Ping".getBytes(StandardCharsets.US_ASCII);
  static final byte[] PONG_MESSAGE = "Pong".getBytes(StandardCharsets.US_ASCII);
  /** The most pings a client takes (as the C++ and Go programs): 4 bytes each, 400 MB at most. */
  static final long MAX_PINGS = 100_000_000L;

  /** Why a frame was refused; null when it was accepted. */
  static final String WRONG_NONCE =
      "has an unexpected nonce (replayed, reordered or of another connection)";
  static final String BAD_TAG = "does not authenticate (GCM tag mismatch)";
  static final String WRONG_MESSAGE = "authenticates but is not the expected message";

  private final Cipher cipher;
  private final SecretKeySpec key;
  private final byte[] want = new byte[NONCE_SIZE];
  private final byte[] plain = new byte[MESSAGE_SIZE];

  Frames(byte[] keyBytes) throws GeneralSecurityException {
    cipher = Cipher.getInstance("AES/GCM/NoPadding");
    key = new SecretKeySpec(keyBytes, "AES");
  }

  static void nonce(byte[] out, int connection, int direction, long counter) {
    for (int i = 0; i < 4; i++) {
      out[i] = (byte) (connection >>> (8 * (3 - i)));
    }
    out[4] = (byte) direction;
    for (int i = 0; i < 7; i++) {
      out[5 + i] = (byte) (counter >>> (8 * (6 - i)));
    }
  }

  /** The connection id of a first ping's nonce, or -1 when it is not (ping, counter 0). */
  static long firstPingConnection(byte[] frame) {
    for (int i = 4; i < NONCE_SIZE; i++) {
      if (frame[i] != 0) {
        return -1;
      }
    }
    return ((frame[0] & 0xffL) << 24) | ((frame[1] & 0xffL) << 16) | ((frame[2] & 0xffL) << 8)
        | (frame[3] & 0xffL);
  }

  /** Seals message under (connection, direction, counter) into frame[0..32). */
  void seal(byte[] frame, int connection, int direction, long counter, byte[] message)
      throws GeneralSecurityException {
    nonce(frame, connection, direction, counter);
    cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_SIZE * 8, frame, 0, NONCE_SIZE));
    cipher.doFinal(message, 0, MESSAGE_SIZE, frame, NONCE_SIZE);
  }

  /** null when frame has the expected nonce, authenticates and holds message; else why not. */
  String open(byte[] frame, int connection, int direction, long counter, byte[] message)
      throws GeneralSecurityException {
    nonce(want, connection, direction, counter);
    if (!Arrays.equals(frame, 0, NONCE_SIZE, want, 0, NONCE_SIZE)) {
      return WRONG_NONCE;
    }
    cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_SIZE * 8, frame, 0, NONCE_SIZE));
    try {
      cipher.doFinal(frame, NONCE_SIZE, MESSAGE_SIZE + TAG_SIZE, plain, 0);
    } catch (AEADBadTagException e) {
      return BAD_TAG;
    }
    return Arrays.equals(plain, message) ? null : WRONG_MESSAGE;
  }

  static byte[] parseKey(String text) {
    try {
      byte[] key = HexFormat.of().parseHex(text);
      if (key.length == KEY_SIZE) {
        return key;
      }
    } catch (IllegalArgumentException e) {
      // said below
    }
    throw new IllegalArgumentException("--key must be 32 hex digits");
  }

  /** A program's sealed set-up: its key (null: plain) and a ping's crypto alone, in ns. */
  record Sealing(byte[] key, double isolatedNanos) {}

  /**
   * The sealed set-up from --key: plain without it; else the key, after the self-check. A bad key
   * exits 2, a failed self-check 1, each with one line.
   */
  static Sealing sealingFromFlags(String program, Map<String, String> flags) {
    if (!flags.containsKey("key")) {
      return new Sealing(null, 0);
    }
    byte[] key = null;
    double isolated = 0;
    try {
      key = parseKey(flags.get("key"));
    } catch (IllegalArgumentException e) {
      fail(program, 2, e.getMessage());
    }
    try {
      isolated = selfCheck();
    } catch (GeneralSecurityException e) {
      fail(program, 1, e.getMessage());
    }
    return new Sealing(key, isolated);
  }

  // The ping of connection 7, counter 3, under this key, as OpenSSL seals it.
  private static final byte[] TEST_KEY = "pingpong testkey".getBytes(StandardCharsets.US_ASCII);
  private static final String TEST_FRAME =
      "000000070000000000000003da57d4e283639f0bceeccd3f5508100357fb8af5";

  /**
   * Seals and opens the known frame and times a ping's crypto (two seals and two opens of 4-byte
   * frames, best of 5 rounds), in ns.
   */
  static double selfCheck() throws GeneralSecurityException {
    Frames f = new Frames(TEST_KEY);
    byte[] frame = new byte[SEALED_SIZE];
    f.seal(frame, 7, PING, 3, PING_MESSAGE);
    String sealed = HexFormat.of().formatHex(frame);
    if (!sealed.equals(TEST_FRAME)) {
      throw new GeneralSecurityException(
          "javax.crypto seals the test frame as " + sealed + ", OpenSSL as " + TEST_FRAME);
    }
    if (f.open(frame, 7, PING, 3, PING_MESSAGE) != null) {
      throw new GeneralSecurityException("the test frame does not open");
    }
    frame[SEALED_SIZE - 1] ^= 1;
    if (f.open(frame, 7, PING, 3, PING_MESSAGE) != BAD_TAG) {
      throw new GeneralSecurityException("a frame with a flipped tag bit opens");
    }
    final int rounds = 5;
    final int perRound = 4000;
    long best = Long.MAX_VALUE;
    for (int r = 0; r < rounds; r++) {
      long start = System.nanoTime();
      for (int i = 0; i < perRound; i++) {
        long counter = (long) r * perRound + i;
        f.seal(frame, 1000, PING, counter, PING_MESSAGE);
        boolean ok = f.open(frame, 1000, PING, counter, PING_MESSAGE) == null;
        f.seal(frame, 1000, PONG, counter, PONG_MESSAGE);
        ok &= f.open(frame, 1000, PONG, counter, PONG_MESSAGE) == null;
        if (!ok) {
          throw new GeneralSecurityException("a seal or open failed while timed");
        }
      }
      best = Math.min(best, System.nanoTime() - start);
    }
    return (double) best / perRound;
  }

  /** Reads exactly buf.length bytes; false at a clean end of stream before the first. */
  static boolean readFully(InputStream in, byte[] buf) throws IOException {
    int have = 0;
    while (have < buf.length) {
      int n = in.read(buf, have, buf.length - have);
      if (n < 0) {
        if (have == 0) {
          return false;
        }
        throw new IOException("the peer closed the connection in the middle of a message");
      }
      have += n;
    }
    return true;
  }

  /** Prints "program: why" on stderr and exits with status. */
  static void fail(String program, int status, String why) {
    System.out.flush();
    System.err.println(program + ": " + why);
    System.err.flush();
    Runtime.getRuntime().halt(status);
  }

  /**
   * "--name=value" flags from a fixed set, each at most once. --help prints `usage` and exits 0;
   * --version prints the Java runtime's version (the driver names the peer from it) and exits 0.
   */
  static Map<String, String> flags(String program, String usage, String[] args, Set<String> known) {
    Map<String, String> out = new HashMap<>();
    for (String arg : args) {
      if (arg.equals("--help") || arg.equals("-h")) {
        System.out.print(usage);
        System.out.flush();
        Runtime.getRuntime().halt(0);
      }
      if (arg.equals("--version")) {
        System.out.println(System.getProperty("java.version"));
        System.out.flush();
        Runtime.getRuntime().halt(0);
      }
      int eq = arg.indexOf('=');
      String name = arg.startsWith("--") && eq > 2 ? arg.substring(2, eq) : null;
      if (name == null || !known.contains(name)) {
        fail(program, 2, "unknown argument '" + arg + "' (--help lists the flags)");
      } else if (out.put(name, arg.substring(eq + 1)) != null) {
        fail(program, 2, "--" + name + " given twice");
      }
    }
    return out;
  }

  static long number(String program, Map<String, String> flags, String name, long fallback,
      long low, long high) {
    String text = flags.get(name);
    if (text == null) {
      return fallback;
    }
    try {
      long value = Long.parseLong(text);
      if (value >= low && value <= high) {
        return value;
      }
    } catch (NumberFormatException e) {
      // said below
    }
    fail(program, 2, "--" + name + " must be a whole number from " + low + " to " + high
        + ", not '" + text + "'");
    return fallback;
  }

  /**
   * This process's CPU time so far, in ns: {user + system (the process's MX bean), user, system
   * (/proc/self/stat, in clock ticks of 10 ms)}.
   */
  static long[] cpuTime() {
    long[] out = new long[3];
    java.lang.management.OperatingSystemMXBean bean = ManagementFactory.getOperatingSystemMXBean();
    if (bean instanceof com.sun.management.OperatingSystemMXBean os) {
      out[0] = Math.max(os.getProcessCpuTime(), 0);
    }
    try {
      String stat = Files.readString(Path.of("/proc/self/stat"));
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      long tick = 10_000_000L; // ns per clock tick at Linux's USER_HZ of 100
      out[1] = Long.parseLong(fields[11]) * tick;
      out[2] = Long.parseLong(fields[12]) * tick;
    } catch (IOException | RuntimeException e) {
      // the split stays 0
    }
    if (out[0] == 0) {
      out[0] = out[1] + out[2];
    }
    return out;
  }

  /** {cpu, user, system} ns from `start` (cpuTime()) to now, as JSON fields. */
  static String cpuSince(long[] start) {
    long[] end = cpuTime();
    return "\"cpu_ns\": " + (end[0] - start[0]) + ", \"user_ns\": " + (end[1] - start[1])
        + ", \"system_ns\": " + (end[2] - start[2]);
  }

  /** This process's peak RSS (VmHWM) in KiB, 0 when unreadable. */
  static long peakRssKib() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmHWM:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", ""));
        }
      }
    } catch (IOException | RuntimeException e) {
      // 0: the driver polls the server's RSS itself
    }
    return 0;
  }
}
