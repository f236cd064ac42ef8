// Package frame is the wire format of seed 001's ping-pong, shared by the Go
// server and client; the C++ programs (pingpong/frame.h) and the Java peer
// speak the same.
//
// Plain: the client writes the 4 bytes "Ping", the server answers "Pong".
// Sealed with AES-128-GCM: each message is one 32-byte frame, nonce (12
// bytes) | ciphertext (4) | tag (16), no additional data. The nonce is the
// connection id (4 bytes, big-endian), the direction (1 byte: 0 ping, 1
// pong) and the ping's number on its connection (7 bytes, big-endian).
package frame

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"syscall"
	"time"
)

const (
	MessageSize = 4
	NonceSize   = 12
	TagSize     = 16
	SealedSize  = NonceSize + MessageSize + TagSize
	KeySize     = 16
	Ping        = 0
	Pong        = 1
)

var (
	PingMessage = []byte("Ping")
	PongMessage = []byte("Pong")

	ErrWrongNonce   = errors.New("has an unexpected nonce (replayed, reordered or of another connection)")
	ErrBadTag       = errors.New("does not authenticate (GCM tag mismatch)")
	ErrWrongMessage = errors.New("authenticates but is not the expected message")
)

// Nonce writes the nonce of (connection, direction, counter) into out[:12].
func Nonce(out []byte, connection uint32, direction byte, counter uint64) {
	binary.BigEndian.PutUint32(out[0:4], connection)
	out[4] = direction
	var c [8]byte
	binary.BigEndian.PutUint64(c[:], counter)
	copy(out[5:12], c[1:8])
}

// ReadNonce splits a nonce; ok is false for a direction byte other than 0 or 1.
func ReadNonce(nonce []byte) (connection uint32, direction byte, counter uint64, ok bool) {
	if nonce[4] > 1 {
		return 0, 0, 0, false
	}
	var c [8]byte
	copy(c[1:8], nonce[5:12])
	return binary.BigEndian.Uint32(nonce[0:4]), nonce[4], binary.BigEndian.Uint64(c[:]), true
}

// Cipher seals and opens frames with Go's crypto/aes GCM (one per goroutine).
type Cipher struct {
	aead  cipher.AEAD
	want  [NonceSize]byte
	plain [MessageSize]byte
}

func NewCipher(key []byte) (*Cipher, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Cipher{aead: aead}, nil
}

// Seal writes the frame of message under (connection, direction, counter)
// into frame[:SealedSize].
func (c *Cipher) Seal(frame []byte, connection uint32, direction byte, counter uint64, message []byte) {
	Nonce(frame[:NonceSize], connection, direction, counter)
	c.aead.Seal(frame[NonceSize:NonceSize], frame[:NonceSize], message, nil)
}

// Open accepts frame only with the nonce (connection, direction, counter), a
// tag that authenticates it and the plaintext message.
func (c *Cipher) Open(frame []byte, connection uint32, direction byte, counter uint64, message []byte) error {
	Nonce(c.want[:], connection, direction, counter)
	if !bytes.Equal(frame[:NonceSize], c.want[:]) {
		return ErrWrongNonce
	}
	plain, err := c.aead.Open(c.plain[:0], frame[:NonceSize], frame[NonceSize:SealedSize], nil)
	if err != nil {
		return ErrBadTag
	}
	if !bytes.Equal(plain, message) {
		return ErrWrongMessage
	}
	return nil
}

// ParseKey reads 32 hex digits.
func ParseKey(text string) ([]byte, error) {
	key, err := hex.DecodeString(text)
	if err != nil || len(key) != KeySize {
		return nil, errors.New("--key must be 32 hex digits")
	}
	return key, nil
}

// KeyFromFlag is the sealed set-up of a program from its -key flag: nil
// (plain) when empty; else the key, after the self-check (its timing of a
// ping's crypto alone is returned too). A bad key exits 2, a failed
// self-check 1, each with one line.
func KeyFromFlag(program, text string) (key []byte, isolated float64) {
	if text == "" {
		return nil, 0
	}
	key, err := ParseKey(text)
	if err != nil {
		Fail(program, 2, "%v", err)
	}
	if isolated, err = SelfCheck(); err != nil {
		Fail(program, 1, "%v", err)
	}
	return key, isolated
}

// MaxPings is the most pings a client takes (as in the C++ and Java
// programs): each round trip is kept, 4 bytes, so 400 MB at most.
const MaxPings = 100000000

// ParseFlags parses the command line (flags defined beforehand); -help
// prints the usage and exits 0; a bad flag or argument exits 2 with one
// line; -version prints the Go runtime's version (runtime.Version) and
// exits 0: the driver names the peer from it.
func ParseFlags(program, summary string) {
	version := flag.Bool("version", false, "print the Go version this program runs on and exit")
	flag.CommandLine.Init(program, flag.ContinueOnError)
	flag.CommandLine.SetOutput(io.Discard)
	flag.Usage = func() {}
	err := flag.CommandLine.Parse(os.Args[1:])
	if err == flag.ErrHelp {
		flag.CommandLine.SetOutput(os.Stdout)
		fmt.Printf("usage: %s [flags]\n%s\n", program, summary)
		flag.PrintDefaults()
		os.Exit(0)
	}
	if err != nil {
		Fail(program, 2, "%v (-help lists the flags)", err)
	}
	if flag.NArg() != 0 {
		Fail(program, 2, "unexpected argument '%s' (-help lists the flags)", flag.Arg(0))
	}
	if *version {
		fmt.Println(runtime.Version())
		os.Exit(0)
	}
}

// CPUTime is this process's user and system CPU time so far, in ns.
func CPUTime() (user, system int64) {
	var usage syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &usage)
	return usage.Utime.Nano(), usage.Stime.Nano()
}

// CheckAllocation exits 2, with one line, when bytes more cannot be
// allocated under this process's address-space limit (ulimit -v) or the
// memory the system has available: Go's runtime ends a failed allocation
// with a fatal error and a stack dump, never an error to handle.
func CheckAllocation(program, what string, bytes uint64) {
	const mib = 1 << 20
	var limit syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_AS, &limit) == nil && limit.Cur != ^uint64(0) {
		if used := statusKiB("/proc/self/status", "VmSize:") * 1024; used+bytes+64*mib > limit.Cur {
			Fail(program, 2, "%s needs %d MiB, more than this process's address-space limit "+
				"leaves (%d of %d MiB used): lower it", what, bytes/mib, used/mib, limit.Cur/mib)
		}
	}
	if available := statusKiB("/proc/meminfo", "MemAvailable:") * 1024; available > 0 && bytes > available {
		Fail(program, 2, "%s needs %d MiB, more than the %d MiB of memory available: lower it",
			what, bytes/mib, available/mib)
	}
}

// statusKiB is the "Name: N kB" figure of a /proc file, 0 when unreadable.
func statusKiB(path, name string) uint64 {
	text, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(text), "\n") {
		var kib uint64
		if strings.HasPrefix(line, name) {
			if n, _ := fmt.Sscanf(line[len(name):], "%d kB", &kib); n == 1 {
				return kib
			}
		}
	}
	return 0
}

// The self-check: the ping of connection 7, counter 3, under this key, as
// OpenSSL seals it (the C++ programs check every backend against another
// library's frames the same way).
var (
	testKey   = []byte("pingpong testkey")
	testFrame = "000000070000000000000003da57d4e283639f0bceeccd3f5508100357fb8af5"
)

// SelfCheck seals and opens the known frame and times a ping's crypto (two
// seals and two opens of 4-byte frames, best of 5 rounds), in ns.
func SelfCheck() (float64, error) {
	c, err := NewCipher(testKey)
	if err != nil {
		return 0, err
	}
	frame := make([]byte, SealedSize)
	c.Seal(frame, 7, Ping, 3, PingMessage)
	if hex.EncodeToString(frame) != testFrame {
		return 0, fmt.Errorf("crypto/aes seals the test frame as %x, OpenSSL as %s", frame, testFrame)
	}
	if err := c.Open(frame, 7, Ping, 3, PingMessage); err != nil {
		return 0, fmt.Errorf("the test frame does not open: %v", err)
	}
	frame[SealedSize-1] ^= 1
	if c.Open(frame, 7, Ping, 3, PingMessage) != ErrBadTag {
		return 0, errors.New("a frame with a flipped tag bit opens")
	}
	const rounds, perRound = 5, 4000
	best := time.Duration(1 << 62)
	for r := 0; r < rounds; r++ {
		start := time.Now()
		for i := 0; i < perRound; i++ {
			counter := uint64(r*perRound + i)
			c.Seal(frame, 1000, Ping, counter, PingMessage)
			ok := c.Open(frame, 1000, Ping, counter, PingMessage) == nil
			c.Seal(frame, 1000, Pong, counter, PongMessage)
			ok = ok && c.Open(frame, 1000, Pong, counter, PongMessage) == nil
			if !ok {
				return 0, errors.New("a seal or open failed while timed")
			}
		}
		if d := time.Since(start); d < best {
			best = d
		}
	}
	return float64(best.Nanoseconds()) / perRound, nil
}

// PeakRSS is this process's peak resident set in KiB (VmHWM), 0 when
// unreadable. Not getrusage's Maxrss: that also counts the RSS of whatever
// exec'd the program (a Python driver's would show as this program's).
func PeakRSS() int64 {
	return int64(statusKiB("/proc/self/status", "VmHWM:"))
}

// Fail prints "program: why" on stderr and exits with status.
func Fail(program string, status int, format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "%s: %s\n", program, strings.TrimSpace(fmt.Sprintf(format, args...)))
	os.Exit(status)
}
