// The Go ping-pong server: seed 001's program, written anew with its shape
// kept (a goroutine per connection, a 4-byte buffer, "Pong" written for each
// "Ping"), plus what a benchmark needs: 127.0.0.1 only, a free port (-port=0)
// printed first, whole messages read (io.ReadFull: a short read is never
// answered twice), every message checked, an optional AES-128-GCM frame
// (-key), an end (after -connections connections closed, on SIGINT/SIGTERM/
// SIGHUP, or a failure after -timeout seconds) and one JSON line of figures
// (with its CPU time over the pings: getrusage from just before its first
// accept to the end of its last connection).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"cryptobench/pingpong/frame"
)

const program = "pingpong-go-server"

type server struct {
	cipherKey   []byte
	answered    atomic.Uint64
	errors      atomic.Uint64
	cryptoNanos atomic.Int64
	finished    atomic.Uint64
	mu          sync.Mutex
	idsSeen     map[uint32]bool
	userStart   int64 // CPU time before the first accept
	systemStart int64
}

func (s *server) fault(number uint64, pings uint64, format string, args ...interface{}) {
	if s.errors.Add(1) <= 10 {
		fmt.Fprintf(os.Stderr, "%s: connection %d, ping %d: %s\n", program, number, pings,
			fmt.Sprintf(format, args...))
	}
}

func (s *server) handle(conn *net.TCPConn, number uint64, done chan<- struct{}) {
	defer func() { done <- struct{}{} }()
	defer conn.Close()
	conn.SetNoDelay(true)
	var pings uint64
	if s.cipherKey == nil {
		var buf [frame.MessageSize]byte
		for {
			if _, err := io.ReadFull(conn, buf[:]); err != nil {
				s.readError(err, number, pings)
				return
			}
			if string(buf[:]) != "Ping" {
				s.fault(number, pings, "the message is not \"Ping\"")
				return
			}
			if _, err := conn.Write(frame.PongMessage); err != nil {
				s.fault(number, pings, "write: %v", err)
				return
			}
			pings++
			s.answered.Add(1)
		}
	}
	c, err := frame.NewCipher(s.cipherKey)
	if err != nil {
		s.fault(number, pings, "%v", err)
		return
	}
	var in, out [frame.SealedSize]byte
	var id uint32
	var spent time.Duration
	defer func() { s.cryptoNanos.Add(spent.Nanoseconds()) }()
	for {
		if _, err := io.ReadFull(conn, in[:]); err != nil {
			s.readError(err, number, pings)
			return
		}
		start := time.Now()
		if pings == 0 {
			first, direction, counter, ok := frame.ReadNonce(in[:frame.NonceSize])
			if !ok || direction != frame.Ping || counter != 0 {
				s.fault(number, pings, "the first ping's nonce is not a ping's with counter 0")
				return
			}
			s.mu.Lock()
			used := s.idsSeen[first]
			s.idsSeen[first] = true
			s.mu.Unlock()
			if used {
				s.fault(number, pings, "connection id %d was used before (a nonce would repeat)", first)
				return
			}
			id = first
		}
		if err := c.Open(in[:], id, frame.Ping, pings, frame.PingMessage); err != nil {
			s.fault(number, pings, "the ping %v", err)
			return
		}
		c.Seal(out[:], id, frame.Pong, pings, frame.PongMessage)
		spent += time.Since(start)
		if _, err := conn.Write(out[:]); err != nil {
			s.fault(number, pings, "write: %v", err)
			return
		}
		pings++
		s.answered.Add(1)
	}
}

func (s *server) readError(err error, number, pings uint64) {
	switch {
	case err == io.EOF: // the client is done
	case errors.Is(err, io.ErrUnexpectedEOF):
		s.fault(number, pings, "the client closed the connection in the middle of a message")
	default:
		s.fault(number, pings, "read: %v", err)
	}
}

func (s *server) report() {
	userEnd, systemEnd := frame.CPUTime()
	user, system := userEnd-s.userStart, systemEnd-s.systemStart
	cipherName, backend := "none", "none"
	if s.cipherKey != nil {
		cipherName, backend = "aes-128-gcm", "go-crypto/aes"
	}
	fmt.Printf("{\"role\": \"server\", \"impl\": \"go-%s\", \"gomaxprocs\": %d, \"cipher\": \"%s\", "+
		"\"backend\": \"%s\", \"connections\": %d, \"pings\": %d, \"errors\": %d, \"crypto_ns\": %d, "+
		"\"cpu_ns\": %d, \"user_ns\": %d, \"system_ns\": %d, \"peak_rss_kib\": %d}\n",
		runtime.Version()[2:], runtime.GOMAXPROCS(0), cipherName, backend, s.finished.Load(),
		s.answered.Load(), s.errors.Load(), s.cryptoNanos.Load(), user+system, user, system,
		frame.PeakRSS())
}

func main() {
	port := flag.Int("port", 0, "port on 127.0.0.1, 0 to 65535 (0: a free one)")
	connections := flag.Uint64("connections", 0, "end after this many connections closed, up to 1000000 (0: when signalled)")
	timeout := flag.Int("timeout", 600, "fail after this many seconds, 1 to 86400")
	keyText := flag.String("key", "", "AES-128-GCM key, 32 hex digits (plain when absent)")
	frame.ParseFlags(program, "Seed 001's ping-pong server (Go) on 127.0.0.1: prints its port, then one JSON line of figures at the end.")
	switch {
	case *port < 0 || *port > 65535:
		frame.Fail(program, 2, "-port must be from 0 to 65535")
	case *connections > 1000000:
		frame.Fail(program, 2, "-connections must be from 0 to 1000000")
	case *timeout < 1 || *timeout > 86400:
		frame.Fail(program, 2, "-timeout must be from 1 to 86400")
	}
	s := &server{idsSeen: map[uint32]bool{}}
	s.cipherKey, _ = frame.KeyFromFlag(program, *keyText)
	listener, err := net.ListenTCP("tcp4", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: *port})
	if err != nil {
		frame.Fail(program, 1, "cannot listen on 127.0.0.1:%d: %v", *port, err)
	}
	fmt.Printf("listening on 127.0.0.1:%d\n", listener.Addr().(*net.TCPAddr).Port)

	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	expired := time.After(time.Duration(*timeout) * time.Second)
	done := make(chan struct{}, 64)
	s.userStart, s.systemStart = frame.CPUTime()
	go func() {
		var number uint64
		for {
			conn, err := listener.AcceptTCP()
			if err != nil {
				frame.Fail(program, 1, "accept: %v", err)
			}
			go s.handle(conn, number, done)
			number++
		}
	}()
	for *connections == 0 || s.finished.Load() < *connections {
		select {
		case <-done:
			s.finished.Add(1)
		case sig := <-signals:
			s.report()
			if *connections != 0 {
				os.Exit(128 + int(sig.(syscall.Signal)))
			}
			os.Exit(0)
		case <-expired:
			s.report()
			frame.Fail(program, 1, "timed out after %d s: %d of %d connections finished, %d pings answered",
				*timeout, s.finished.Load(), *connections, s.answered.Load())
		}
	}
	s.report()
	if n := s.errors.Load(); n > 0 {
		frame.Fail(program, 1, "%d protocol or crypto error(s); the run is not valid", n)
	}
}
