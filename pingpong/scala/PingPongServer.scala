// The Scala ping-pong server, seed 001's own shape: blocking java.net sockets,
// the main thread accepting, and a Future per connection on Scala's global
// ExecutionContext. Where it differs from the seed (docs/pingpong.md):
// every handler runs inside `blocking {}`, so the global pool adds a thread
// for each connection blocked in a read (without it, the pool runs as many
// handlers as there are cores, and the other connections wait); whole 4-byte
// messages are read and checked (the seed read into a one-element array and
// answered "Pong" per read); a connection ends at its end of stream (the
// seed's `while (s.isConnected)` never ends). Like the C++, Go and Java
// servers: 127.0.0.1 only, a free port (--port=0) printed first, an optional
// AES-128-GCM frame (--key, javax.crypto), an end (after --connections
// connections closed, on SIGINT/SIGTERM/SIGHUP, or a failure after --timeout
// seconds) and one JSON line of figures (its CPU time from just before its
// first accept to the end of its last connection).

import java.io.IOException
import java.net.{InetAddress, InetSocketAddress, ServerSocket, Socket}
import java.security.GeneralSecurityException
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.{AtomicBoolean, AtomicLong}

import scala.concurrent.ExecutionContext.Implicits.global
import scala.concurrent.{Future, blocking}

object PingPongServer {
  private val Program = "pingpong-scala-server"
  private val Usage = Seq(
    "usage: pingpong-scala-server [flags]",
    "Seed 001's ping-pong server (Scala) on 127.0.0.1: prints its port, then one JSON line of",
    "figures at the end. A Future per connection on Scala's global ExecutionContext.",
    "  --port=PORT          0 to 65535 (default 0: a free port)",
    "  --connections=N      end after N connections have closed, 0 to 1000000",
    "                       (default 0: serve until signalled)",
    "  --timeout=S          fail after S seconds, 1 to 86400 (default 600)",
    "  --key=HEX            AES-128-GCM key, 32 hex digits (plain when absent)",
    "  --version            the Scala library's version",
    "").mkString("\n")

  private var key: Option[Array[Byte]] = None
  private var connections = 0L
  private val answered = new AtomicLong
  private val errors = new AtomicLong
  private val cryptoNanos = new AtomicLong
  private val finished = new AtomicLong
  private val idsSeen = scala.collection.mutable.Set.empty[Long]
  private val reported = new AtomicBoolean
  @volatile private var cpuStart = Frames.cpuTime()

  private def fault(number: Long, pings: Long, why: String): Unit =
    if (errors.incrementAndGet() <= 10) {
      System.err.println(s"$Program: connection $number, ping $pings: $why")
    }

  /** One connection, to its end of stream (or its first fault). */
  def handleClient(s: Socket, number: Long): Unit = {
    var pings = 0L
    var spent = 0L
    var op = "read"
    try {
      s.setTcpNoDelay(true)
      val in = s.getInputStream
      val out = s.getOutputStream
      key match {
        case None =>
          val buffer = new Array[Byte](Frames.MessageSize)
          var open = true
          while (open && Frames.readFully(in, buffer)) {
            if (!Frames.sameBytes(buffer, Frames.PingMessage, Frames.MessageSize)) {
              fault(number, pings, "the message is not \"Ping\"")
              open = false
            } else {
              op = "write"
              out.write(Frames.PongMessage)
              op = "read"
              pings += 1
              answered.incrementAndGet()
            }
          }
        case Some(k) =>
          val frames = new Frames(k)
          val buffer = new Array[Byte](Frames.SealedSize)
          val reply = new Array[Byte](Frames.SealedSize)
          var id = 0
          var open = true
          while (open && Frames.readFully(in, buffer)) {
            val start = System.nanoTime()
            if (pings == 0) {
              val first = Frames.firstPingConnection(buffer)
              val fresh = first >= 0 && idsSeen.synchronized(idsSeen.add(first))
              if (!fresh) {
                fault(number, pings,
                  if (first < 0) "the first ping's nonce is not a ping's with counter 0"
                  else s"connection id $first was used before (a nonce would repeat)")
                open = false
              }
              id = first.toInt
            }
            if (open) {
              frames.open(buffer, id, Frames.Ping, pings, Frames.PingMessage) match {
                case Some(why) =>
                  fault(number, pings, s"the ping $why")
                  open = false
                case None =>
                  frames.seal(reply, id, Frames.Pong, pings, Frames.PongMessage)
                  spent += System.nanoTime() - start
                  op = "write"
                  out.write(reply)
                  op = "read"
                  pings += 1
                  answered.incrementAndGet()
              }
            }
          }
      }
    } catch {
      case e: IOException => fault(number, pings, Frames.ioWhy(e, "client", op))
      case e: GeneralSecurityException => fault(number, pings, String.valueOf(e.getMessage))
      case e: RuntimeException => fault(number, pings, e.toString) // counted, never lost in a Future
    } finally {
      try s.close() catch { case _: IOException => () }
      cryptoNanos.addAndGet(spent)
      if (finished.incrementAndGet() == connections) end()
    }
  }

  private def report(): Unit = if (reported.compareAndSet(false, true)) {
    val cpu = Frames.cpuSince(cpuStart)
    val cipher = if (key.isEmpty) "none" else "aes-128-gcm"
    val backend = if (key.isEmpty) "none" else "javax.crypto"
    println(s"""{"role": "server", "impl": "${Frames.impl}", "java_version": """ +
      s""""${Frames.javaVersion}", "cipher": "$cipher", "backend": "$backend", """ +
      s""""connections": ${finished.get}, "pings": ${answered.get}, "errors": ${errors.get}, """ +
      s""""crypto_ns": ${cryptoNanos.get}, $cpu, "peak_rss_kib": ${Frames.peakRssKib()}}""")
    System.out.flush()
  }

  /** The last connection has closed: the figures, then exit 0, or 1 after a fault. */
  private def end(): Unit = {
    report()
    if (errors.get > 0) {
      Frames.fail(Program, 1, s"${errors.get} protocol or crypto error(s); the run is not valid")
    }
    Runtime.getRuntime.halt(0)
  }

  def main(args: Array[String]): Unit = {
    val flags = Frames.flags(Program, Usage, args, Set("port", "connections", "timeout", "key"))
    val port = Frames.number(Program, flags, "port", 0, 0, 65535).toInt
    connections = Frames.number(Program, flags, "connections", 0, 0, 1000000)
    val timeout = Frames.number(Program, flags, "timeout", 600, 1, 86400)
    key = Frames.sealingFromFlags(Program, flags).key
    val server = new ServerSocket()
    server.setReuseAddress(true)
    try server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress, port), 4096)
    catch {
      case e: IOException =>
        Frames.fail(Program, 1, s"cannot listen on 127.0.0.1:$port: ${e.getMessage}")
    }
    println(s"listening on 127.0.0.1:${server.getLocalPort}")
    System.out.flush()

    // SIGINT, SIGTERM, SIGHUP: the JVM runs this hook; the figures, then the
    // status (0 when serving until signalled, else 128 + the signal, as the JVM does).
    Runtime.getRuntime.addShutdownHook(new Thread(new Runnable {
      def run(): Unit = if (!reported.get) {
        report()
        if (connections == 0) Runtime.getRuntime.halt(0)
      }
    }))
    val watchdog = new Thread(new Runnable {
      def run(): Unit = {
        Thread.sleep(TimeUnit.SECONDS.toMillis(timeout))
        report()
        Frames.fail(Program, 1, s"timed out after $timeout s: ${finished.get} of $connections " +
          s"connections finished, ${answered.get} pings answered")
      }
    }, "timeout")
    watchdog.setDaemon(true)
    watchdog.start()

    cpuStart = Frames.cpuTime() // before the first accept
    var number = 0L
    while (true) {
      val s: Socket =
        try server.accept()
        catch { case e: IOException => Frames.fail(Program, 1, s"accept: ${e.getMessage}") }
      val n = number
      number += 1
      Future { blocking { handleClient(s, n) } }
    }
  }
}
