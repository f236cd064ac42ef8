// The Go ping-pong client: seed 001's program, written anew with its shape
// kept (a goroutine per connection, each dialling once and doing its pings
// one after another, the clock running from before the first dial), plus
// what a benchmark needs: every reply checked, every round trip timed
// (monotonic clock, into memory allocated before the run), an optional
// AES-128-GCM frame (-key), a -timeout and one JSON line of figures: the
// pongs it received, its CPU time over the pings (getrusage from just
// before the first dial to after the last pong) and GOMAXPROCS among them.
package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"runtime"
	"sort"
	"time"

	"cryptobench/pingpong/frame"
)

const program = "pingpong-go-client"

type durations []uint32

func (d durations) Len() int           { return len(d) }
func (d durations) Less(i, j int) bool { return d[i] < d[j] }
func (d durations) Swap(i, j int)      { d[i], d[j] = d[j], d[i] }

// nanos: a round trip in ns, held in 32 bits (4.29 s at most).
func nanos(d time.Duration) uint32 {
	if d > math.MaxUint32 {
		return math.MaxUint32
	}
	return uint32(d)
}

func nearestRank(sorted durations, q float64) uint32 {
	rank := int(math.Max(1, math.Ceil(q*float64(len(sorted)))))
	if rank > len(sorted) {
		rank = len(sorted)
	}
	return sorted[rank-1]
}

type result struct {
	answered    int // pongs received and checked
	cryptoNanos int64
	err         error
}

// ping runs one connection: its pings, each round trip into samples.
func ping(port int, id uint32, samples []uint32, key []byte, results chan<- result) {
	conn, err := net.DialTCP("tcp4", nil, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port})
	if err != nil {
		results <- result{err: fmt.Errorf("cannot connect to 127.0.0.1:%d (connection %d): %v", port, id, err)}
		return
	}
	defer conn.Close()
	conn.SetNoDelay(true)
	var spent time.Duration
	if key == nil {
		var buf [frame.MessageSize]byte
		for i := range samples {
			start := time.Now()
			if _, err := conn.Write(frame.PingMessage); err != nil {
				results <- result{err: fmt.Errorf("connection %d, ping %d: write: %v", id, i, err)}
				return
			}
			if _, err := io.ReadFull(conn, buf[:]); err != nil {
				results <- result{err: fmt.Errorf("connection %d, pong %d: the server closed the connection or failed: %v", id, i, err)}
				return
			}
			if string(buf[:]) != "Pong" {
				results <- result{err: fmt.Errorf("connection %d, pong %d: the reply is not \"Pong\"", id, i)}
				return
			}
			samples[i] = nanos(time.Since(start))
		}
		results <- result{answered: len(samples)}
		return
	}
	c, err := frame.NewCipher(key)
	if err != nil {
		results <- result{err: err}
		return
	}
	var in, out [frame.SealedSize]byte
	for i := range samples {
		start := time.Now()
		c.Seal(out[:], id, frame.Ping, uint64(i), frame.PingMessage)
		sealed := time.Now()
		if _, err := conn.Write(out[:]); err != nil {
			results <- result{err: fmt.Errorf("connection %d, ping %d: write: %v", id, i, err)}
			return
		}
		if _, err := io.ReadFull(conn, in[:]); err != nil {
			results <- result{err: fmt.Errorf("connection %d, pong %d: the server closed the connection or failed: %v", id, i, err)}
			return
		}
		received := time.Now()
		if err := c.Open(in[:], id, frame.Pong, uint64(i), frame.PongMessage); err != nil {
			results <- result{err: fmt.Errorf("connection %d, pong %d: the pong %v", id, i, err)}
			return
		}
		end := time.Now()
		spent += sealed.Sub(start) + end.Sub(received)
		samples[i] = nanos(end.Sub(start))
	}
	results <- result{answered: len(samples), cryptoNanos: spent.Nanoseconds()}
}

func main() {
	port := flag.Int("port", 0, "the server's port on 127.0.0.1 (required)")
	connections := flag.Int("connections", 100, "persistent connections, 1 to 10000")
	pings := flag.Int("pings", 1000000, "pings in all, spread evenly over the connections, -connections to 100000000")
	timeout := flag.Int("timeout", 600, "fail after this many seconds, 1 to 86400")
	keyText := flag.String("key", "", "AES-128-GCM key, 32 hex digits (plain when absent)")
	frame.ParseFlags(program, "Seed 001's ping-pong client (Go): one JSON line of figures.")
	switch {
	case *port < 1 || *port > 65535:
		frame.Fail(program, 2, "-port must be from 1 to 65535 (the server prints it)")
	case *connections < 1 || *connections > 10000:
		frame.Fail(program, 2, "-connections must be from 1 to 10000")
	case *pings < *connections || *pings > frame.MaxPings:
		frame.Fail(program, 2, "-pings must be from -connections to %d", frame.MaxPings)
	case *timeout < 1 || *timeout > 86400:
		frame.Fail(program, 2, "-timeout must be from 1 to 86400")
	}
	key, isolated := frame.KeyFromFlag(program, *keyText)
	frame.CheckAllocation(program, fmt.Sprintf("-pings=%d (4 bytes per round trip)", *pings), uint64(*pings)*4)
	samples := make(durations, *pings)
	results := make(chan result, *connections)
	expired := time.After(time.Duration(*timeout) * time.Second)

	userStart, systemStart := frame.CPUTime()
	start := time.Now()
	offset := 0
	for i := 0; i < *connections; i++ {
		n := *pings / *connections
		if i < *pings%*connections {
			n++
		}
		go ping(*port, uint32(i), samples[offset:offset+n], key, results)
		offset += n
	}
	var cryptoNanos int64
	answered := 0
	for i := 0; i < *connections; i++ {
		select {
		case r := <-results:
			if r.err != nil {
				frame.Fail(program, 1, "%v", r.err)
			}
			cryptoNanos += r.cryptoNanos
			answered += r.answered
		case <-expired:
			frame.Fail(program, 1, "timed out after %d s: %d of %d connections finished", *timeout, i, *connections)
		}
	}
	wall := time.Since(start)
	userEnd, systemEnd := frame.CPUTime()
	user, system := userEnd-userStart, systemEnd-systemStart

	sort.Sort(samples)
	sum := 0.0
	for _, s := range samples {
		sum += float64(s)
	}
	cipherName, backend := "none", "none"
	if key != nil {
		cipherName, backend = "aes-128-gcm", "go-crypto/aes"
	}
	n := float64(*pings)
	fmt.Printf("{\"role\": \"client\", \"impl\": \"go-%s\", \"gomaxprocs\": %d, \"cipher\": \"%s\", "+
		"\"backend\": \"%s\", \"verified_against\": \"%s\", \"connections\": %d, \"pings\": %d, "+
		"\"wall_ns\": %d, \"us_per_ping\": %.6f, \"rtt_p50_ns\": %d, \"rtt_p90_ns\": %d, "+
		"\"rtt_p99_ns\": %d, \"rtt_p999_ns\": %d, \"rtt_max_ns\": %d, \"rtt_mean_ns\": %.1f, "+
		"\"crypto_ns\": %d, \"crypto_isolated_ns_per_ping\": %.2f, \"cpu_ns\": %d, \"user_ns\": %d, "+
		"\"system_ns\": %d, \"peak_rss_kib\": %d}\n",
		runtime.Version()[2:], runtime.GOMAXPROCS(0), cipherName, backend,
		map[bool]string{true: "openssl (a known frame)", false: ""}[key != nil],
		*connections, answered, wall.Nanoseconds(), float64(wall.Nanoseconds())/1000/n,
		nearestRank(samples, 0.50), nearestRank(samples, 0.90), nearestRank(samples, 0.99),
		nearestRank(samples, 0.999), samples[len(samples)-1], sum/n, cryptoNanos, isolated,
		user+system, user, system, frame.PeakRSS())
}
