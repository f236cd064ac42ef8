package seedpeer

// The benchmarks, in seed 003's style: b.N loops, b.ReportAllocs, run with
// `-test.bench -test.benchmem`. Each sub-benchmark is named by cryptobench's
// key:value path (scenario and backend come from the function and the Go
// version; threads from -test.cpu), and -cryptobench.filter selects them by
// the full cryptobench name, with RE2 as the C++ binary's --benchmark_filter
// does. TestMain checks the known answers before anything runs and prints
// the context lines `cryptobench-results gotest` reads.

import (
	cryptorand "crypto/rand"
	"encoding/binary"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"crypto/aes"
	"crypto/cipher"
)

var (
	vectorsDir = flag.String("cryptobench.vectors", "../../tests/vectors",
		"the folder of cryptobench's test vectors (tests/vectors)")
	filterFlag = flag.String("cryptobench.filter", "",
		"RE2 over cryptobench benchmark names; a leading '-' runs those that do not match")
	suiteFlag = flag.String("cryptobench.suite", "seed000", "the suite name recorded in the context")
	listFlag  = flag.String("cryptobench.list", "",
		"print the names of this scenario's cells the filter selects at the -test.cpu counts, "+
			"one a line, and exit (2: a bad filter)")
	// Tests only: one operation of every timed run gives a wrong output,
	// which the operation's own checks must catch.
	injectFault = flag.String("cryptobench.inject-fault", "", "")
)

var (
	filter       *regexp.Regexp
	filterInvert bool
	// sink keeps outputs observable, so no work is optimised away.
	sink []byte
)

func TestMain(m *testing.M) {
	flag.Parse()
	pattern := *filterFlag
	if strings.HasPrefix(pattern, "-") {
		filterInvert, pattern = true, pattern[1:]
	}
	var err error
	if filter, err = regexp.Compile(pattern); err != nil {
		fmt.Fprintf(os.Stderr, "go peer: -cryptobench.filter: %v\n", err)
		os.Exit(2)
	}
	if *injectFault != "" && *injectFault != "verify" {
		fmt.Fprintf(os.Stderr, "go peer: -cryptobench.inject-fault=%s: only 'verify'\n", *injectFault)
		os.Exit(2)
	}
	if *listFlag != "" {
		cells, ok := scenarioCells[*listFlag]
		if !ok {
			fmt.Fprintf(os.Stderr, "go peer: -cryptobench.list=%s: the Go peer runs seed000, "+
				"seed002 and seed003\n", *listFlag)
			os.Exit(2)
		}
		for _, threads := range threadCounts() {
			for _, c := range cells() {
				if name := c.fullName(threads); filter.MatchString(name) != filterInvert {
					fmt.Println(name)
				}
			}
		}
		os.Exit(0)
	}
	summary, err := CheckKnownAnswers(*vectorsDir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "go peer: known-answer check failed, nothing measured: %v\n", err)
		os.Exit(1)
	}
	WriteContext(os.Stdout, *suiteFlag, summary)
	os.Exit(m.Run())
}

func TestKnownAnswers(t *testing.T) {
	if _, err := CheckKnownAnswers(*vectorsDir); err != nil {
		t.Fatal(err)
	}
}

// cell is one cryptobench benchmark (benchmarks/grid.h's naming).
type cell struct {
	scenario, cipher, op string
	size                 int
	codec                Codec
	pool                 bool
	key                  string
}

func (c cell) params() string {
	pool := "off"
	if c.pool {
		pool = "on"
	}
	return fmt.Sprintf("cipher:%s/op:%s/size:%d/codec:%s/pool:%s/key:%s", c.cipher, c.op, c.size,
		c.codec, pool, c.key)
}

func (c cell) fullName(threads int) string {
	return fmt.Sprintf("%s/backend:%s/%s/real_time/threads:%d", c.scenario, BackendName(), c.params(),
		threads)
}

// threadCounts: the thread counts this run measures, -test.cpu's list (the
// default: GOMAXPROCS). go test applies it inside each sub-benchmark, so a
// cell runs when the filter selects it at any of them; tools/run-peers runs
// the binary once per thread count, which makes the selection exact.
func threadCounts() []int {
	var counts []int
	if f := flag.Lookup("test.cpu"); f != nil {
		for _, text := range strings.Split(f.Value.String(), ",") {
			if n, err := strconv.Atoi(strings.TrimSpace(text)); err == nil && n > 0 {
				counts = append(counts, n)
			}
		}
	}
	if len(counts) == 0 {
		counts = []int{runtime.GOMAXPROCS(0)}
	}
	return counts
}

// runCell runs the cell as a sub-benchmark when the filter selects it.
func runCell(b *testing.B, c cell, body func(b *testing.B)) bool {
	for _, threads := range threadCounts() {
		if filter.MatchString(c.fullName(threads)) != filterInvert {
			b.Run(c.params(), body)
			return true
		}
	}
	return false
}

// skipIfNone: a benchmark function that runs no sub-benchmark would be
// measured itself; it is skipped instead.
func skipIfNone(b *testing.B, ran bool) {
	if !ran {
		b.Skip("no cell selected by -cryptobench.filter at these -test.cpu counts")
	}
}

func newRand() *rand.Rand {
	var seed [8]byte
	if _, err := cryptorand.Read(seed[:]); err != nil {
		panic(err)
	}
	return rand.New(rand.NewSource(int64(binary.LittleEndian.Uint64(seed[:]))))
}

func randomBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	rng.Read(b)
	return b
}

// tamperer hands out the one tampered operation of a timed run (with
// -cryptobench.inject-fault=verify; never otherwise).
type tamperer struct{ pending int32 }

func newTamperer() *tamperer {
	t := &tamperer{}
	if *injectFault == "verify" {
		t.pending = 1
	}
	return t
}

// take is true once per run, for the first operation that asks.
func (t *tamperer) take() bool {
	return atomic.LoadInt32(&t.pending) == 1 && atomic.CompareAndSwapInt32(&t.pending, 1, 0)
}

// scenarioCells: each scenario's cells in cryptobench's order (benchmarks/suites.cc).
var scenarioCells = map[string]func() []cell{
	"seed000": func() []cell {
		var out []cell
		for _, pool := range []bool{false, true} {
			out = append(out, cell{"seed000", "aes-128-cbc", "roundtrip", Seed000PrefixLength,
				CodecBase64, pool, "per-op"})
		}
		return out
	},
	"seed002": func() []cell {
		return []cell{{"seed002", "aes-256-cbc", "roundtrip", 1 << 20, CodecNone, false, "cached"}}
	},
	"seed003": func() []cell {
		var out []cell
		for _, codec := range Codecs {
			for _, pool := range []bool{false, true} {
				for size := 10; size <= 1000000; size *= 10 {
					out = append(out, cell{"seed003", "aes-128-ecb", "encrypt", size, codec, pool,
						"cached"})
				}
			}
		}
		return out
	},
}

// goroutineIndex hands each of RunParallel's goroutines its own state.
type goroutineIndex struct{ next int32 }

func (g *goroutineIndex) take() int { return int(atomic.AddInt32(&g.next, 1) - 1) }

// BenchmarkSeed000: seed 000's roundtrip (AES-128-CBC, Base64, a new key
// schedule per encryption and per decryption), every operation compared;
// threads:T is T goroutines (-test.cpu T).
func BenchmarkSeed000(b *testing.B) {
	ran := false
	for _, c := range scenarioCells["seed000"]() {
		pool := c.pool
		ran = runCell(b, c, func(b *testing.B) { benchSeed000(b, pool) }) || ran
	}
	skipIfNone(b, ran)
}

func benchSeed000(b *testing.B, pool bool) {
	prefix := RandomAlphanumeric(newRand(), Seed000PrefixLength)
	buffers := make([]*Seed000Pooled, runtime.GOMAXPROCS(0))
	for i := range buffers {
		buffers[i] = NewSeed000Pooled(prefix)
	}
	var index goroutineIndex
	var plaintextBytes int64
	fault := newTamperer()
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		pooled := buffers[index.take()]
		var counter uint64 // each goroutine counts its own operations, as the seed's threads do
		var total int64
		for pb.Next() {
			var n int
			var err error
			tamper := fault.take()
			if pool {
				n, err = pooled.Roundtrip(counter, Seed000Key, Seed000IV, tamper)
			} else {
				n, err = Seed000Fresh(prefix, counter, Seed000Key, Seed000IV, tamper)
			}
			if err != nil {
				b.Error(err)
				return
			}
			total += int64(n)
			counter++
		}
		atomic.AddInt64(&plaintextBytes, total)
	})
	b.ReportMetric(float64(plaintextBytes)/float64(b.N), "plaintext-B/op")
}

// BenchmarkSeed002: seed 002's AES-256-CBC roundtrip of 1 MiB, the data
// drawn afresh (outside the timing) each time go test calls the function
// (every repetition), every decryption compared.
func BenchmarkSeed002(b *testing.B) {
	c := scenarioCells["seed002"]()[0]
	skipIfNone(b, runCell(b, c, func(b *testing.B) { benchSeed002(b, c.size) }))
}

func benchSeed002(b *testing.B, size int) {
	rng := newRand()
	key, iv := randomBytes(rng, 32), randomBytes(rng, 16)
	type state struct {
		block cipher.Block
		data  []byte
	}
	states := make([]state, runtime.GOMAXPROCS(0))
	for i := range states {
		block, err := aes.NewCipher(key)
		if err != nil {
			b.Fatal(err)
		}
		states[i] = state{block, randomBytes(rng, size)}
	}
	var index goroutineIndex
	fault := newTamperer()
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		s := states[index.take()]
		var last []byte
		for pb.Next() {
			ciphertext, err := Seed002Roundtrip(s.block, iv, s.data, fault.take())
			if err != nil {
				b.Error(err)
				return
			}
			last = ciphertext
		}
		if len(last) > 0 {
			sink = last[:1]
		}
	})
	b.ReportMetric(float64(size), "plaintext-B/op")
}

// BenchmarkSeed003: seed 003's matrix, AES-128-ECB encryption of 10 B to
// 1 MB by 10x, codec none/base64/hex, pool off/on; the last output of every
// goroutine is decoded, decrypted and compared after the timed loop. Seed
// 003 ran a plain b.N loop with -cpu=4: one goroutine, whatever its "-4"
// suffix suggests; here threads:T is T goroutines of b.RunParallel, and the
// suite's cells are threads:1.
func BenchmarkSeed003(b *testing.B) {
	ran := false
	for _, c := range scenarioCells["seed003"]() {
		c := c
		ran = runCell(b, c, func(b *testing.B) { benchSeed003(b, c) }) || ran
	}
	skipIfNone(b, ran)
}

func benchSeed003(b *testing.B, c cell) {
	rng := newRand()
	key := randomBytes(rng, 16)
	states := make([]*Seed003, runtime.GOMAXPROCS(0))
	for i := range states {
		s, err := NewSeed003(key, randomBytes(rng, c.size), c.codec, c.pool)
		if err != nil {
			b.Fatal(err)
		}
		states[i] = s
	}
	var index goroutineIndex
	fault := newTamperer()
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		s := states[index.take()]
		for pb.Next() {
			s.Encrypt(fault.take())
		}
	})
	b.StopTimer()
	for _, s := range states {
		if !s.HasOutput() {
			continue // a goroutine that ran no operation
		}
		if err := s.Verify(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(c.size), "plaintext-B/op")
}
