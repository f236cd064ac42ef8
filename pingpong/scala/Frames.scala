// Frames: the wire format of seed 001's ping-pong for the Scala peer, the
// same as the C++ (pingpong/frame.h), Go (go/frame) and Java (java/Frames.java)
// programs speak, and the peer's flags, failure line and resource figures.
//
// Plain: the client writes the 4 bytes "Ping", the server answers "Pong".
// Sealed with AES-128-GCM (the JDK's provider, javax.crypto): each message is
// one 32-byte frame, nonce (12 bytes) | ciphertext (4) | tag (16), no
// additional data. The nonce is the connection id (4 bytes, big-endian), the
// direction (1 byte: 0 ping, 1 pong) and the ping's number on its connection
// (7 bytes, big-endian).

import java.io.{IOException, InputStream}
import java.lang.management.ManagementFactory
import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Paths}
import java.security.GeneralSecurityException
import java.util.Locale
import javax.crypto.{AEADBadTagException, Cipher}
import javax.crypto.spec.{GCMParameterSpec, SecretKeySpec}

/** One connection's sealing and opening (a Cipher is not thread-safe: one per connection). */
final class Frames(keyBytes: Array[Byte]) {
  import Frames._

  private val cipher = Cipher.getInstance("AES/GCM/NoPadding")
  private val key = new SecretKeySpec(keyBytes, "AES")
  private val want = new Array[Byte](NonceSize)
  private val plain = new Array[Byte](MessageSize)

  /** Seals message under (connection, direction, counter) into frame[0..32). */
  def seal(frame: Array[Byte], connection: Int, direction: Int, counter: Long,
           message: Array[Byte]): Unit = {
    nonce(frame, connection, direction, counter)
    cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TagSize * 8, frame, 0, NonceSize))
    cipher.doFinal(message, 0, MessageSize, frame, NonceSize)
  }

  /** None when frame has the expected nonce, authenticates and holds message; else why not. */
  def open(frame: Array[Byte], connection: Int, direction: Int, counter: Long,
           message: Array[Byte]): Option[String] = {
    nonce(want, connection, direction, counter)
    if (!sameBytes(frame, want, NonceSize)) return Some(WrongNonce)
    cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TagSize * 8, frame, 0, NonceSize))
    try cipher.doFinal(frame, NonceSize, MessageSize + TagSize, plain, 0)
    catch { case _: AEADBadTagException => return Some(BadTag) }
    if (sameBytes(plain, message, MessageSize)) None else Some(WrongMessage)
  }
}

object Frames {
  val MessageSize = 4
  val NonceSize = 12
  val TagSize = 16
  val SealedSize: Int = NonceSize + MessageSize + TagSize
  val KeySize = 16
  val Ping = 0
  val Pong = 1
  val PingMessage: Array[Byte] = "Ping".getBytes(StandardCharsets.US_ASCII)
  val PongMessage: Array[Byte] = "Pong".getBytes(StandardCharsets.US_ASCII)
  /** The most pings a client takes (as the other programs): 4 bytes each, 400 MB at most. */
  val MaxPings = 100000000L

  val WrongNonce = "has an unexpected nonce (replayed, reordered or of another connection)"
  val BadTag = "does not authenticate (GCM tag mismatch)"
  val WrongMessage = "authenticates but is not the expected message"

  def sameBytes(a: Array[Byte], b: Array[Byte], n: Int): Boolean = {
    var i = 0
    while (i < n) {
      if (a(i) != b(i)) return false
      i += 1
    }
    true
  }

  def nonce(out: Array[Byte], connection: Int, direction: Int, counter: Long): Unit = {
    for (i <- 0 until 4) out(i) = (connection >>> (8 * (3 - i))).toByte
    out(4) = direction.toByte
    for (i <- 0 until 7) out(5 + i) = (counter >>> (8 * (6 - i))).toByte
  }

  /** The connection id of a first ping's nonce, or -1 when it is not (ping, counter 0). */
  def firstPingConnection(frame: Array[Byte]): Long = {
    if ((4 until NonceSize).exists(frame(_) != 0)) return -1L
    (0 until 4).foldLeft(0L)((id, i) => (id << 8) | (frame(i) & 0xffL))
  }

  def hex(bytes: Array[Byte]): String = bytes.map(b => "%02x".format(b & 0xff)).mkString

  /** 32 hex digits as 16 bytes; None otherwise. */
  def parseKey(text: String): Option[Array[Byte]] = {
    if (text.length != 2 * KeySize || !text.forall(c => Character.digit(c, 16) >= 0)) None
    else Some(text.grouped(2).map(pair => Integer.parseInt(pair, 16).toByte).toArray)
  }

  /** A program's sealed set-up: its key (None: plain) and a ping's crypto alone, in ns. */
  final case class Sealing(key: Option[Array[Byte]], isolatedNanos: Double)

  /**
   * The sealed set-up from --key: plain without it; else the key, after the self-check. A bad key
   * exits 2, a failed self-check 1, each with one line.
   */
  def sealingFromFlags(program: String, flags: Map[String, String]): Sealing =
    flags.get("key") match {
      case None => Sealing(None, 0)
      case Some(text) =>
        val key = parseKey(text).getOrElse(fail(program, 2, "--key must be 32 hex digits"))
        val isolated =
          try selfCheck()
          catch { case e: GeneralSecurityException => fail(program, 1, e.getMessage) }
        Sealing(Some(key), isolated)
    }

  // The ping of connection 7, counter 3, under this key, as OpenSSL seals it.
  private val TestKey = "pingpong testkey".getBytes(StandardCharsets.US_ASCII)
  private val TestFrame = "000000070000000000000003da57d4e283639f0bceeccd3f5508100357fb8af5"

  /**
   * Seals and opens the known frame, refuses it with a flipped tag bit, and times a ping's crypto
   * (two seals and two opens of 4-byte frames, best of 5 rounds), in ns.
   */
  def selfCheck(): Double = {
    val f = new Frames(TestKey)
    val frame = new Array[Byte](SealedSize)
    f.seal(frame, 7, Ping, 3, PingMessage)
    val got = hex(frame)
    if (got != TestFrame) {
      throw new GeneralSecurityException(
        s"javax.crypto seals the test frame as $got, OpenSSL as $TestFrame")
    }
    if (f.open(frame, 7, Ping, 3, PingMessage).isDefined) {
      throw new GeneralSecurityException("the test frame does not open")
    }
    frame(SealedSize - 1) = (frame(SealedSize - 1) ^ 1).toByte
    if (f.open(frame, 7, Ping, 3, PingMessage) != Some(BadTag)) {
      throw new GeneralSecurityException("a frame with a flipped tag bit opens")
    }
    val rounds = 5
    val perRound = 4000
    var best = Long.MaxValue
    for (r <- 0 until rounds) {
      val start = System.nanoTime()
      for (i <- 0 until perRound) {
        val counter = r.toLong * perRound + i
        f.seal(frame, 1000, Ping, counter, PingMessage)
        var ok = f.open(frame, 1000, Ping, counter, PingMessage).isEmpty
        f.seal(frame, 1000, Pong, counter, PongMessage)
        ok &= f.open(frame, 1000, Pong, counter, PongMessage).isEmpty
        if (!ok) throw new GeneralSecurityException("a seal or open failed while timed")
      }
      best = math.min(best, System.nanoTime() - start)
    }
    best.toDouble / perRound
  }

  /**
   * Reads exactly buf.length bytes (the seed read once into a one-element array and answered
   * every read); false at a clean end of stream before the first byte.
   */
  def readFully(in: InputStream, buf: Array[Byte]): Boolean = {
    var have = 0
    while (have < buf.length) {
      val n = in.read(buf, have, buf.length - have)
      if (n < 0) {
        if (have == 0) return false
        throw new IOException("the peer closed the connection in the middle of a message")
      }
      have += n
    }
    true
  }

  /** An I/O failure in words: a reset said as the C++ programs say it. */
  def ioWhy(e: IOException, peer: String, op: String): String = {
    val text = String.valueOf(e.getMessage)
    val lower = text.toLowerCase(Locale.ROOT)
    if (lower.contains("reset")) s"the $peer reset the connection ($op: $text)"
    else if (lower.contains("broken pipe")) s"the $peer closed the connection ($op: $text)"
    else text
  }

  /** Prints "program: why" on stderr and exits with status. */
  def fail(program: String, status: Int, why: String): Nothing = {
    System.out.flush()
    System.err.println(s"$program: $why")
    System.err.flush()
    Runtime.getRuntime.halt(status)
    throw new IllegalStateException("halt returned")
  }

  /** The Scala library's version, as --version prints it (the driver names the peer from it). */
  def scalaVersion: String = scala.util.Properties.versionNumberString

  /**
   * "--name=value" flags from a fixed set, each at most once. --help prints `usage` and exits 0;
   * --version prints the Scala library's version and exits 0.
   */
  def flags(program: String, usage: String, args: Array[String],
            known: Set[String]): Map[String, String] = {
    var out = Map.empty[String, String]
    for (arg <- args) {
      if (arg == "--help" || arg == "-h") {
        System.out.print(usage)
        System.out.flush()
        Runtime.getRuntime.halt(0)
      }
      if (arg == "--version") {
        System.out.println(scalaVersion)
        System.out.flush()
        Runtime.getRuntime.halt(0)
      }
      val eq = arg.indexOf('=')
      val name = if (arg.startsWith("--") && eq > 2) arg.substring(2, eq) else ""
      if (!known.contains(name)) {
        fail(program, 2, s"unknown argument '$arg' (--help lists the flags)")
      }
      if (out.contains(name)) fail(program, 2, s"--$name given twice")
      out += name -> arg.substring(eq + 1)
    }
    out
  }

  def number(program: String, flags: Map[String, String], name: String, fallback: Long,
             low: Long, high: Long): Long = flags.get(name) match {
    case None => fallback
    case Some(text) =>
      val value = try Some(text.toLong) catch { case _: NumberFormatException => None }
      value.filter(v => v >= low && v <= high).getOrElse(
        fail(program, 2, s"--$name must be a whole number from $low to $high, not '$text'"))
  }

  /**
   * This process's CPU time so far, in ns: (user + system by the process's MX bean, user, system
   * from /proc/self/stat, in clock ticks of 10 ms).
   */
  def cpuTime(): (Long, Long, Long) = {
    val whole = ManagementFactory.getOperatingSystemMXBean match {
      case os: com.sun.management.OperatingSystemMXBean => math.max(os.getProcessCpuTime, 0L)
      case _ => 0L
    }
    val tick = 10000000L // ns per clock tick at Linux's USER_HZ of 100
    val (user, system) =
      try {
        val stat = readText("/proc/self/stat")
        val fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ")
        (fields(11).toLong * tick, fields(12).toLong * tick)
      } catch { case _: Exception => (0L, 0L) }
    (if (whole == 0) user + system else whole, user, system)
  }

  /** (cpu, user, system) ns from `start` (cpuTime()) to now, as JSON fields. */
  def cpuSince(start: (Long, Long, Long)): String = {
    val end = cpuTime()
    s""""cpu_ns": ${end._1 - start._1}, "user_ns": ${end._2 - start._2}, """ +
      s""""system_ns": ${end._3 - start._3}"""
  }

  private def readText(path: String): String =
    new String(Files.readAllBytes(Paths.get(path)), StandardCharsets.UTF_8)

  /** This process's peak RSS (VmHWM) in KiB, 0 when unreadable. */
  def peakRssKib(): Long =
    try {
      val line = readText("/proc/self/status").split("\n").find(_.startsWith("VmHWM:"))
      line.map(_.replaceAll("[^0-9]", "").toLong).getOrElse(0L)
    } catch { case _: Exception => 0L }

  def decimal(value: Double, places: Int): String = s"%.${places}f".formatLocal(Locale.ROOT, value)

  /** What a program writes as "impl": scala-2.11.12. */
  def impl: String = s"scala-$scalaVersion"

  def javaVersion: String = System.getProperty("java.version")
}
