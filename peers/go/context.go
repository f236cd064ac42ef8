package seedpeer

// The run's context, printed by the test binary as configuration lines
// ("cryptobench.key: value", the benchfmt form of go test's own "goos:" and
// "cpu:" lines) for `cryptobench-results gotest`: the machine, measured here
// as the C++ binary measures it (so the tools can tell it is the same one),
// and what crypto/aes actually runs.

import (
	"bufio"
	"crypto/aes"
	"crypto/cipher"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"time"
)

// cpuFlagNames: cryptobench's cpu_flags vocabulary and order
// (kernels/cpu_features.cc), which are Linux's /proc/cpuinfo names.
var cpuFlagNames = []string{"sse4_1", "ssse3", "aes", "pclmulqdq", "avx", "avx2", "vaes",
	"vpclmulqdq", "avx512f", "avx512bw", "avx512vl", "sha_ni"}

// cpuInfo returns /proc/cpuinfo's vendor_id, the cryptobench flags its first
// "flags" line lists, and its count of "processor" entries (Google
// Benchmark's num_cpus, which runtime.NumCPU, the affinity mask, may not be).
func cpuInfo() (vendor, flags string, processors int) {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "?", "", runtime.NumCPU()
	}
	defer f.Close()
	have := map[string]bool{}
	scanner := bufio.NewScanner(f)
	scanner.Buffer(make([]byte, 1<<16), 1<<20)
	for scanner.Scan() {
		key, value, ok := strings.Cut(scanner.Text(), ":")
		if !ok {
			continue
		}
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		if key == "processor" {
			processors++
		}
		if key == "vendor_id" && vendor == "" {
			vendor = value
		}
		if key == "flags" && len(have) == 0 {
			for _, flag := range strings.Fields(value) {
				have[flag] = true
			}
		}
	}
	var in []string
	for _, name := range cpuFlagNames {
		if have[name] {
			in = append(in, name)
		}
	}
	return vendor, strings.Join(in, " "), processors
}

// BackendName is the peer's backend name: go-<major>.<minor>.
func BackendName() string {
	v := strings.TrimPrefix(runtime.Version(), "go")
	parts := strings.SplitN(v, ".", 3)
	if len(parts) >= 2 {
		return "go-" + parts[0] + "." + parts[1]
	}
	return "go-" + v
}

func buildSetting(key string) string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == key {
				return s.Value
			}
		}
	}
	return ""
}

// CodePath says what crypto/aes and crypto/cipher run here, from the types
// they return (not from what the documentation promises).
func CodePath() string {
	block, err := aes.NewCipher(make([]byte, 16))
	if err != nil {
		return "unknown: " + err.Error()
	}
	blockType := fmt.Sprintf("%T", block)
	aesPath := "pure Go (table lookups, no AES instructions)"
	if blockType != "*aes.aesCipher" {
		aesPath = "assembly: AES-NI on amd64 (encryptBlockAsm, decryptBlockAsm, expandKeyAsm), one block per call"
	}
	cbcPath := "crypto/cipher's generic CBC calling Block.Encrypt/Decrypt once per 16-byte block " +
		"(crypto/aes offers no CBC assembly here: Go 1.19 has cbcEncAble/cbcDecAble only on s390x " +
		"and ppc64)"
	if _, ok := block.(interface {
		NewCBCEncrypter(iv []byte) cipher.BlockMode
	}); ok {
		cbcPath = "crypto/aes's own CBC assembly (cbcEncAble/cbcDecAble)"
	}
	return fmt.Sprintf("crypto/aes block %s: %s; CBC: %s; ECB: Block.Encrypt on each block (Go has "+
		"no ECB mode; as seed 003's go-crypto)", blockType, aesPath, cbcPath)
}

// WriteContext prints the context lines; suite is cryptobench's suite name
// and knownAnswers what CheckKnownAnswers checked.
func WriteContext(w io.Writer, suite, knownAnswers string) {
	host, _ := os.Hostname()
	vendor, flags, processors := cpuInfo()
	amd64 := buildSetting("GOAMD64")
	if amd64 == "" && runtime.GOARCH == "amd64" {
		amd64 = "v1 (the default)"
	}
	lines := [][2]string{
		{"backend", BackendName()},
		{"date", time.Now().Format("2006-01-02T15:04:05-07:00")},
		{"host_name", host},
		{"executable", os.Args[0]},
		{"num_cpus", fmt.Sprint(processors)},
		{"cpu_vendor", vendor},
		{"cpu_flags", flags},
		{"cpu_flags_in_use", flags},
		{"cpu_mask", "none"},
		{"cryptobench_suite", suite},
		{"repetitions_interleaved", "false"},
		{"backend.library", "Go " + strings.TrimPrefix(runtime.Version(), "go") +
			" standard library (crypto/aes, crypto/cipher)"},
		{"backend.version", runtime.Version()},
		{"backend.code_path", CodePath()},
		{"backend.codec", "encoding/base64 (StdEncoding), encoding/hex"},
		{"backend.codec_source", "library"},
		{"backend.modes", "ecb,cbc"},
		{"backend.goos", runtime.GOOS},
		{"backend.goarch", runtime.GOARCH},
		{"backend.goamd64", amd64},
		{"backend.compiler", runtime.Compiler + " " + runtime.Version()},
		{"backend.known_answers", knownAnswers},
		{"backend.pool", "pool on: each goroutine's own buffers, made before b.RunParallel's loop " +
			"and reused (the semantics pool:on has for every backend); not sync.Pool, whose Get/Put " +
			"per operation measures sync.Pool itself (seed 003 found it slower). pool off: new " +
			"slices and strings per operation (make, append, EncodeToString), as the seeds' code"},
		{"backend.key_handling", "seed000 (key:per-op): aes.NewCipher before encrypting and " +
			"again before decrypting, as seed 000's AesEncrypt/AesDecrypt: two key schedules per " +
			"roundtrip (cryptobench's C++ backends set one up), pool on too (a cipher.Block cannot " +
			"be re-keyed); seed002/seed003 (key:cached): one aes.NewCipher per goroutine"},
		// Shown by the answer and the report next to the backend wherever a benchmark has key:per-op.
		{"backend.caveat.key=per-op", "two key schedules per roundtrip (aes.NewCipher to encrypt " +
			"and again to decrypt, as seed 000's program); the C++ backends' key:per-op sets up one"},
		{"backend.threads", "threads:T = -test.cpu T: GOMAXPROCS=T and T goroutines " +
			"(b.RunParallel, parallelism 1) sharing b.N, in every scenario (seed003's suite cells " +
			"are threads:1: one goroutine)"},
		{"backend.allocation_counting", "go test -benchmem: runtime.MemStats mallocs and bytes " +
			"over the timed run, all goroutines, / b.N, printed as whole numbers (B/op, allocs/op)"},
		{"backend.method", "go test -bench: b.N grown until the run lasts -test.benchtime, " +
			"-test.count repetitions back to back; ahead-of-time compiled, no JIT to warm up"},
		{"backend.timing", "ns/op = the run's wall time / b.N (all goroutines); no cycles_per_byte " +
			"or core_ghz: the peer does not measure the core clock"},
	}
	for _, kv := range lines {
		value := strings.Join(strings.Fields(kv[1]), " ") // one line
		fmt.Fprintf(w, "cryptobench.%s: %s\n", kv[0], value)
	}
}
