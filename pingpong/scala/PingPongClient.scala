// The Scala ping-pong client, seed 001's own shape: a Future per connection
// on Scala's global ExecutionContext, each connecting once (blocking
// java.net) and doing its pings one after another, the main thread awaiting
// them all, the clock running from before the first connection. Where it
// differs from the seed (docs/pingpong.md): each connection runs inside
// `blocking {}` (else the global pool runs only as many connections at once
// as there are cores); whole 4-byte replies are read and checked (the seed
// read one byte into a one-element array); pings that do not divide evenly
// among the connections are spread over them; the first failing connection
// ends the run at once. Like the C++, Go and Java clients: every round trip
// timed (System.nanoTime, into memory allocated before the run), an optional
// AES-128-GCM frame (--key, javax.crypto), a --timeout and one JSON line of
// figures (its pongs, its CPU time from just before the first connection to
// after the last pong).

import java.io.IOException
import java.net.{InetAddress, Socket}
import java.security.GeneralSecurityException
import java.util.concurrent.atomic.AtomicLong

import scala.concurrent.ExecutionContext.Implicits.global
import scala.concurrent.duration._
import scala.concurrent.{Await, Future, Promise, TimeoutException, blocking}

object PingPongClient {
  private val Program = "pingpong-scala-client"
  private val Usage = Seq(
    "usage: pingpong-scala-client --port=PORT [flags]",
    "Seed 001's ping-pong client (Scala): one JSON line of figures. A Future per connection",
    "on Scala's global ExecutionContext.",
    "  --port=PORT          the server's port (it prints it), required",
    "  --connections=N      1 to 10000 (default 100)",
    "  --pings=N            --connections to 100000000 (default 1000000)",
    "  --timeout=S          fail after S seconds, 1 to 86400 (default 600)",
    "  --key=HEX            AES-128-GCM key, 32 hex digits (plain when absent)",
    "  --version            the Scala library's version",
    "").mkString("\n")

  private val cryptoNanos = new AtomicLong
  private val answered = new AtomicLong
  private val finished = new AtomicLong

  private def nanos(d: Long): Int = math.min(d, Int.MaxValue.toLong).toInt

  private def nearestRank(sorted: Array[Int], q: Double): Int = {
    val rank = math.max(1, math.ceil(q * sorted.length).toInt)
    sorted(math.min(rank, sorted.length) - 1)
  }

  /** One connection's pings; round trips into samples[offset, offset + count). */
  def ping(port: Int, id: Int, samples: Array[Int], offset: Int, count: Int,
           key: Option[Array[Byte]]): Unit = {
    val socket =
      try new Socket(InetAddress.getLoopbackAddress, port)
      catch {
        case e: IOException =>
          throw new IOException(
            s"cannot connect to 127.0.0.1:$port (connection $id): ${e.getMessage}", e)
      }
    val where = s"connection $id, pong "
    var i = 0
    var op = "write"
    try {
      socket.setTcpNoDelay(true)
      val out = socket.getOutputStream
      val in = socket.getInputStream
      key match {
        case None =>
          val buffer = new Array[Byte](Frames.MessageSize)
          while (i < count) {
            val start = System.nanoTime()
            op = "write"
            out.write(Frames.PingMessage)
            op = "read"
            if (!Frames.readFully(in, buffer)) {
              throw new IOException(s"$where$i: the server closed the connection")
            }
            if (!Frames.sameBytes(buffer, Frames.PongMessage, Frames.MessageSize)) {
              throw new IOException(s"""$where$i: the reply is not "Pong"""")
            }
            samples(offset + i) = nanos(System.nanoTime() - start)
            answered.incrementAndGet()
            i += 1
          }
        case Some(k) =>
          val frames = new Frames(k)
          val ping = new Array[Byte](Frames.SealedSize)
          val pong = new Array[Byte](Frames.SealedSize)
          var spent = 0L
          while (i < count) {
            val start = System.nanoTime()
            frames.seal(ping, id, Frames.Ping, i, Frames.PingMessage)
            val sealedAt = System.nanoTime()
            op = "write"
            out.write(ping)
            op = "read"
            if (!Frames.readFully(in, pong)) {
              throw new IOException(s"$where$i: the server closed the connection")
            }
            val received = System.nanoTime()
            frames.open(pong, id, Frames.Pong, i, Frames.PongMessage).foreach { why =>
              throw new IOException(s"$where$i: the pong $why")
            }
            val end = System.nanoTime()
            spent += (sealedAt - start) + (end - received)
            samples(offset + i) = nanos(end - start)
            answered.incrementAndGet()
            i += 1
          }
          cryptoNanos.addAndGet(spent)
      }
    } catch {
      case e: IOException if !String.valueOf(e.getMessage).startsWith(where) =>
        throw new IOException(s"$where$i: ${Frames.ioWhy(e, "server", op)}", e)
    } finally {
      try socket.close() catch { case _: IOException => () }
    }
  }

  def main(args: Array[String]): Unit = {
    val flags = Frames.flags(Program, Usage, args,
      Set("port", "connections", "pings", "timeout", "key"))
    if (!flags.contains("port")) {
      Frames.fail(Program, 2, "--port is required (the server prints it)")
    }
    val port = Frames.number(Program, flags, "port", 0, 1, 65535).toInt
    val connections = Frames.number(Program, flags, "connections", 100, 1, 10000).toInt
    val pings = Frames.number(Program, flags, "pings", 1000000, 1, Frames.MaxPings).toInt
    val timeout = Frames.number(Program, flags, "timeout", 600, 1, 86400)
    if (pings < connections) {
      Frames.fail(Program, 2, s"--pings ($pings) must be at least --connections ($connections)")
    }
    val sealing = Frames.sealingFromFlags(Program, flags)
    val samples =
      try new Array[Int](pings)
      catch {
        case _: OutOfMemoryError =>
          Frames.fail(Program, 2, s"--pings=$pings needs ${(4L * pings) >> 20} MiB for its round " +
            "trips, more than the Java heap has (-Xmx): lower --pings")
      }
    // The first failure ends the run at once (the seed's Future.sequence would
    // wait for every connection before it, in order, to end first).
    val failure = Promise[Unit]()

    val cpuStart = Frames.cpuTime()
    val start = System.nanoTime()
    var offset = 0
    val futures = (0 until connections).map { id =>
      val count = pings / connections + (if (id < pings % connections) 1 else 0)
      val from = offset
      offset += count
      val f = Future {
        blocking { ping(port, id, samples, from, count, sealing.key) }
        finished.incrementAndGet()
      }
      f.onFailure { case e => failure.tryFailure(e) }
      f
    }
    try Await.result(Future.firstCompletedOf(Seq(Future.sequence(futures), failure.future)),
      timeout.seconds)
    catch {
      case _: TimeoutException =>
        Frames.fail(Program, 1, s"timed out after $timeout s: ${finished.get} of $connections " +
          "connections finished")
      case e @ (_: IOException | _: GeneralSecurityException | _: RuntimeException) =>
        Frames.fail(Program, 1, String.valueOf(e.getMessage))
    }
    val wall = System.nanoTime() - start
    val cpu = Frames.cpuSince(cpuStart)

    java.util.Arrays.sort(samples)
    val sum = samples.foldLeft(0.0)(_ + _)
    val isSealed = sealing.key.isDefined
    println(s"""{"role": "client", "impl": "${Frames.impl}", "java_version": """ +
      s""""${Frames.javaVersion}", "cipher": "${if (isSealed) "aes-128-gcm" else "none"}", """ +
      s""""backend": "${if (isSealed) "javax.crypto" else "none"}", "verified_against": """ +
      s""""${if (isSealed) "openssl (a known frame)" else ""}", "connections": $connections, """ +
      s""""pings": ${answered.get}, "wall_ns": $wall, "us_per_ping": """ +
      s"""${Frames.decimal(wall / 1000.0 / pings, 6)}, """ +
      s""""rtt_p50_ns": ${nearestRank(samples, 0.50)}, """ +
      s""""rtt_p90_ns": ${nearestRank(samples, 0.90)}, """ +
      s""""rtt_p99_ns": ${nearestRank(samples, 0.99)}, """ +
      s""""rtt_p999_ns": ${nearestRank(samples, 0.999)}, "rtt_max_ns": ${samples(pings - 1)}, """ +
      s""""rtt_mean_ns": ${Frames.decimal(sum / pings, 1)}, "crypto_ns": ${cryptoNanos.get}, """ +
      s""""crypto_isolated_ns_per_ping": ${Frames.decimal(sealing.isolatedNanos, 2)}, $cpu, """ +
      s""""peak_rss_kib": ${Frames.peakRssKib()}}""")
    System.out.flush()
    Runtime.getRuntime.halt(0)
  }
}
