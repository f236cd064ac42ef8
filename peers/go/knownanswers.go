package seedpeer

// Known answers, checked before anything is measured: NIST CAVP AESAVS
// multi-block message records (tests/vectors/nist_cavp, read strictly), run
// through the workloads' own ECB and CBC code with PKCS#7 padding, and fixed
// outputs of the whole operations (padding, Base64, hex) that
// `openssl enc` produces for the same inputs.

import (
	"bufio"
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// AesvsRecord is one record of an AESAVS .rsp file.
type AesvsRecord struct {
	Encrypt                        bool // [ENCRYPT] or [DECRYPT] section
	Count                          int
	Key, IV, Plaintext, Ciphertext []byte
}

// ReadAesvs reads an AESAVS ECB or CBC known-answer file strictly: a
// section header before any record, each record COUNT then KEY, IV (CBC
// only, required there), PLAINTEXT and CIPHERTEXT once each, whole blocks;
// anything else is an error naming the line.
func ReadAesvs(path string, withIV bool) ([]AesvsRecord, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var records []AesvsRecord
	section := ""
	var current *AesvsRecord
	finish := func(line int) error {
		if current == nil {
			return nil
		}
		r := current
		if r.Key == nil || r.Plaintext == nil || r.Ciphertext == nil || (withIV && r.IV == nil) {
			return fmt.Errorf("%s:%d: record COUNT = %d is incomplete", path, line, r.Count)
		}
		if len(r.Plaintext) != len(r.Ciphertext) || len(r.Plaintext)%aes.BlockSize != 0 {
			return fmt.Errorf("%s:%d: record COUNT = %d: lengths are not equal whole blocks", path, line, r.Count)
		}
		records = append(records, *r)
		current = nil
		return nil
	}
	scanner := bufio.NewScanner(f)
	scanner.Buffer(make([]byte, 1<<16), 1<<22)
	number := 0
	for scanner.Scan() {
		number++
		line := strings.TrimSpace(scanner.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
			continue
		case line == "[ENCRYPT]" || line == "[DECRYPT]":
			if err := finish(number); err != nil {
				return nil, err
			}
			section = line
			continue
		}
		name, value, ok := strings.Cut(line, " = ")
		if !ok {
			return nil, fmt.Errorf("%s:%d: not 'NAME = value': %q", path, number, line)
		}
		if name == "COUNT" {
			if err := finish(number); err != nil {
				return nil, err
			}
			if section == "" {
				return nil, fmt.Errorf("%s:%d: a record before [ENCRYPT] or [DECRYPT]", path, number)
			}
			count, err := strconv.Atoi(value)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: COUNT %q is not a number", path, number, value)
			}
			current = &AesvsRecord{Encrypt: section == "[ENCRYPT]", Count: count}
			continue
		}
		if current == nil {
			return nil, fmt.Errorf("%s:%d: %s outside a record", path, number, name)
		}
		bytesValue, err := hex.DecodeString(value)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %s is not hex", path, number, name)
		}
		var field *[]byte
		switch name {
		case "KEY":
			field = &current.Key
		case "IV":
			if !withIV {
				return nil, fmt.Errorf("%s:%d: an IV in an ECB file", path, number)
			}
			field = &current.IV
		case "PLAINTEXT":
			field = &current.Plaintext
		case "CIPHERTEXT":
			field = &current.Ciphertext
		default:
			return nil, fmt.Errorf("%s:%d: unknown attribute %s", path, number, name)
		}
		if *field != nil {
			return nil, fmt.Errorf("%s:%d: %s given twice", path, number, name)
		}
		*field = bytesValue
	}
	if err := scanner.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if err := finish(number); err != nil {
		return nil, err
	}
	if len(records) == 0 {
		return nil, fmt.Errorf("%s: no record", path)
	}
	return records, nil
}

// checkPaddedRecord: `encrypt` (the workload's mode, with PKCS#7) of the
// record's plaintext must start with its ciphertext, and `decrypt` of that
// ciphertext, followed by the padding block `encrypt` produced, must give the
// plaintext back.
func checkPaddedRecord(r AesvsRecord, encrypt func(dst, src []byte), decrypt func(dst, src []byte)) error {
	padded := Pad(r.Plaintext)
	out := make([]byte, len(padded))
	encrypt(out, padded)
	if !bytes.Equal(out[:len(r.Ciphertext)], r.Ciphertext) {
		return fmt.Errorf("COUNT = %d: ciphertext %x, expected %x", r.Count, out[:len(r.Ciphertext)], r.Ciphertext)
	}
	in := append(append([]byte{}, r.Ciphertext...), out[len(r.Ciphertext):]...)
	plain := make([]byte, len(in))
	decrypt(plain, in)
	got, err := Unpad(plain)
	if err != nil || !bytes.Equal(got, r.Plaintext) {
		return fmt.Errorf("COUNT = %d: decryption does not return the plaintext", r.Count)
	}
	return nil
}

// nistFiles: the AESAVS multi-block message files for the modes and key
// sizes the workloads use.
var nistFiles = []struct {
	path string
	cbc  bool
}{
	{"nist_cavp/ECB/ECBMMT128.rsp", false},
	{"nist_cavp/CBC/CBCMMT128.rsp", true},
	{"nist_cavp/CBC/CBCMMT256.rsp", true},
}

// Fixed known answers: `openssl enc` of the same inputs (PKCS#7 padding).
const (
	// AES-128-CBC, seed 000's key and IV: a 100-character prefix + counter 1234567, Base64.
	knownSeed000Prefix  = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZab"
	knownSeed000Counter = 1234567
	knownSeed000Base64  = "ZI/DiKKxxneVrWyQCMacXGE6Jbtt0DAzNJ94ftMc9kQMSrOR1c+ltDqfbei7Qy1wjgDU0lDtWfH4lZ72HcyAW0DQqy8tZq6nu5TSAo1X7RzH7d3vhI1cuz4HOAqsS1PmfrONfk6+V+NYbXP1auSgYw=="
	// AES-128-ECB, key 000102..0f: "0123456789" (one block), and two equal
	// blocks (equal ciphertext blocks: ECB, not CBC).
	knownEcbKey        = "000102030405060708090a0b0c0d0e0f"
	knownEcbShortPlain = "0123456789"
	knownEcbShortHex   = "1791d43fe172faba305dbdb829214793"
	knownEcbShortB64   = "F5HUP+Fy+rowXb24KSFHkw=="
	knownEcbTwinPlain  = "0123456789abcdef0123456789abcdef"
	knownEcbTwinHex    = "281567ab2f4cf0d73d3198225b8b8393281567ab2f4cf0d73d3198225b8b8393954f64f2e4e86e9eee82d20216684899"
	knownEcbTwinB64    = "KBVnqy9M8Nc9MZgiW4uDkygVZ6svTPDXPTGYIluLg5OVT2Ty5Ohunu6C0gIWaEiZ"
	// AES-256-CBC, key 000102..1f, IV f0e0..00: 40 bytes.
	knownCbc256Key   = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	knownCbc256IV    = "f0e0d0c0b0a090807060504030201000"
	knownCbc256Plain = "seed 002: forty bytes of AES-256 input!!"
	knownCbc256Hex   = "36e82df696a14f048de4ee1f2d940260efa41fe1849f71ef88f78e3f432643fe909866b77958ac3e5c76bba7e9d902f9"
)

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// CheckKnownAnswers runs every check and says what it checked, or returns
// the first failure.
func CheckKnownAnswers(vectorsDir string) (string, error) {
	records := 0
	for _, file := range nistFiles {
		path := filepath.Join(vectorsDir, file.path)
		rs, err := ReadAesvs(path, file.cbc)
		if err != nil {
			return "", err
		}
		for _, r := range rs {
			block, err := aes.NewCipher(r.Key)
			if err != nil {
				return "", fmt.Errorf("%s: COUNT = %d: %v", path, r.Count, err)
			}
			encrypt := func(dst, src []byte) { EncryptECB(block, dst, src) }
			decrypt := func(dst, src []byte) { DecryptECB(block, dst, src) }
			if file.cbc {
				encrypt = func(dst, src []byte) { cipher.NewCBCEncrypter(block, r.IV).CryptBlocks(dst, src) }
				decrypt = func(dst, src []byte) { cipher.NewCBCDecrypter(block, r.IV).CryptBlocks(dst, src) }
			}
			if err := checkPaddedRecord(r, encrypt, decrypt); err != nil {
				return "", fmt.Errorf("%s: %v", path, err)
			}
			records++
		}
	}
	if err := checkFixedAnswers(); err != nil {
		return "", err
	}
	return fmt.Sprintf("%d NIST CAVP AESAVS records (ECBMMT128, CBCMMT128, CBCMMT256) through the "+
		"workloads' ECB and CBC code with PKCS#7, and fixed `openssl enc` outputs of the seed-000 "+
		"roundtrip (both pools), seed 003's ECB with every codec and pool, and seed 002's "+
		"AES-256-CBC, before measuring; every roundtrip is compared in the timed loop", records), nil
}

func checkFixedAnswers() error {
	// Seed 000, pool off and on.
	message := []byte(knownSeed000Prefix + strconv.Itoa(knownSeed000Counter))
	text, err := Seed000Encrypt(message, Seed000Key, Seed000IV)
	if err != nil || text != knownSeed000Base64 {
		return fmt.Errorf("seed 000 (pool off): Base64 ciphertext %q, expected %q (%v)", text, knownSeed000Base64, err)
	}
	if plain, err := Seed000Decrypt(text, Seed000Key, Seed000IV); err != nil || !bytes.Equal(plain, message) {
		return fmt.Errorf("seed 000 (pool off): the known ciphertext does not decrypt to its message (%v)", err)
	}
	pooled := NewSeed000Pooled(knownSeed000Prefix)
	pooledText, err := pooled.Encrypt(knownSeed000Counter, Seed000Key, Seed000IV)
	if err != nil || string(pooledText) != knownSeed000Base64 {
		return fmt.Errorf("seed 000 (pool on): Base64 ciphertext %q, expected %q (%v)", pooledText, knownSeed000Base64, err)
	}
	if err := pooled.DecryptAndCompare(pooledText, Seed000Key, Seed000IV); err != nil {
		return fmt.Errorf("seed 000 (pool on): %v", err)
	}
	// Seed 003: every codec and pool.
	for _, c := range []struct{ plain, hexText, base64Text string }{
		{knownEcbShortPlain, knownEcbShortHex, knownEcbShortB64},
		{knownEcbTwinPlain, knownEcbTwinHex, knownEcbTwinB64},
	} {
		expected := map[Codec]string{CodecNone: c.hexText, CodecBase64: c.base64Text, CodecHex: c.hexText}
		for _, codec := range Codecs {
			for _, pool := range []bool{false, true} {
				s, err := NewSeed003(mustHex(knownEcbKey), []byte(c.plain), codec, pool)
				if err != nil {
					return err
				}
				s.Encrypt(false)
				got := string(s.Output())
				if codec == CodecNone {
					got = hex.EncodeToString(s.Output())
				}
				if got != expected[codec] {
					return fmt.Errorf("seed 003 (codec %s, pool %v) of %q: %q, expected %q", codec, pool, c.plain, got, expected[codec])
				}
				if err := s.Verify(); err != nil {
					return err
				}
			}
		}
	}
	// Seed 002.
	block, err := aes.NewCipher(mustHex(knownCbc256Key))
	if err != nil {
		return err
	}
	ciphertext, err := Seed002Roundtrip(block, mustHex(knownCbc256IV), []byte(knownCbc256Plain), false)
	if err != nil || hex.EncodeToString(ciphertext) != knownCbc256Hex {
		return fmt.Errorf("seed 002: ciphertext %x, expected %s (%v)", ciphertext, knownCbc256Hex, err)
	}
	return nil
}
