// Package seedpeer is cryptobench's Go peer: the seeds' AES workloads written
// with Go's standard library only (crypto/aes, crypto/cipher, encoding/base64,
// encoding/hex), measured by `go test -bench -benchmem` (seeds_test.go) and
// converted to Google Benchmark JSON by `cryptobench-results gotest`.
//
// Each workload exists in two forms, as cryptobench's pool axis defines them:
// pool off is the idiomatic code the seeds' programs are (new slices and
// strings every operation: make, append, EncodeToString); pool on reuses one
// goroutine's buffers. The known-answer checks (knownanswers.go) run these
// same functions, so a wrong mode, padding or codec fails before anything is
// measured.
package seedpeer

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand"
	"strconv"
)

// Seed 000's key and IV, ASCII, as its Java and Go programs have them.
var (
	Seed000Key = []byte("B31F2A75FBF94099")
	Seed000IV  = []byte("1234567890123456")
)

// Seed000PrefixLength is the random part of seed 000's message; the
// operation's counter follows it in decimal.
const Seed000PrefixLength = 100

const alphanumeric = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// RandomAlphanumeric returns n characters drawn uniformly from [0-9A-Za-z].
func RandomAlphanumeric(rng *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphanumeric[rng.Intn(len(alphanumeric))]
	}
	return string(b)
}

// PaddedLen is the length of n bytes after PKCS#7 padding (always at least
// one byte of padding).
func PaddedLen(n int) int { return (n/aes.BlockSize + 1) * aes.BlockSize }

// Pad returns a new slice: src followed by its PKCS#7 padding.
func Pad(src []byte) []byte {
	return PadInto(make([]byte, PaddedLen(len(src))), src)
}

// PadInto writes src and its PKCS#7 padding into dst, which must hold
// PaddedLen(len(src)) bytes, and returns that prefix of dst.
func PadInto(dst, src []byte) []byte {
	out := dst[:PaddedLen(len(src))]
	copy(out, src)
	pad := byte(len(out) - len(src))
	for i := len(src); i < len(out); i++ {
		out[i] = pad
	}
	return out
}

// ErrPadding: the decrypted data does not end in valid PKCS#7 padding.
var ErrPadding = errors.New("bad PKCS#7 padding")

// Unpad checks the PKCS#7 padding (1 to 16 bytes, every one equal to the
// count) and returns the message before it.
func Unpad(b []byte) ([]byte, error) {
	if len(b) == 0 || len(b)%aes.BlockSize != 0 {
		return nil, ErrPadding
	}
	n := int(b[len(b)-1])
	if n == 0 || n > aes.BlockSize {
		return nil, ErrPadding
	}
	for _, p := range b[len(b)-n:] {
		if int(p) != n {
			return nil, ErrPadding
		}
	}
	return b[:len(b)-n], nil
}

// EncryptECB encrypts whole blocks in ECB mode. Go offers no ECB mode (on
// purpose); like seed 003's go-crypto, it is Block.Encrypt on each block.
func EncryptECB(block cipher.Block, dst, src []byte) {
	for i := 0; i < len(src); i += aes.BlockSize {
		block.Encrypt(dst[i:i+aes.BlockSize], src[i:i+aes.BlockSize])
	}
}

// DecryptECB is EncryptECB's inverse.
func DecryptECB(block cipher.Block, dst, src []byte) {
	for i := 0; i < len(src); i += aes.BlockSize {
		block.Decrypt(dst[i:i+aes.BlockSize], src[i:i+aes.BlockSize])
	}
}

func wholeBlocks(ciphertext []byte) error {
	if len(ciphertext) == 0 || len(ciphertext)%aes.BlockSize != 0 {
		return fmt.Errorf("ciphertext of %d bytes is not whole blocks", len(ciphertext))
	}
	return nil
}

// Seed000Encrypt is seed 000's AesEncrypt, pool off: a new key schedule
// (aes.NewCipher), a padded copy, a new CBC encrypter and output slice, and
// the Base64 text as a new string.
func Seed000Encrypt(plain, key, iv []byte) (string, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return "", err
	}
	padded := Pad(plain)
	out := make([]byte, len(padded))
	cipher.NewCBCEncrypter(block, iv).CryptBlocks(out, padded)
	return base64.StdEncoding.EncodeToString(out), nil
}

// Seed000Decrypt is seed 000's AesDecrypt, pool off: Base64 into a new
// slice, another new key schedule, a new CBC decrypter and output slice.
func Seed000Decrypt(text string, key, iv []byte) ([]byte, error) {
	ciphertext, err := base64.StdEncoding.DecodeString(text)
	if err != nil {
		return nil, err
	}
	if err := wholeBlocks(ciphertext); err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	out := make([]byte, len(ciphertext))
	cipher.NewCBCDecrypter(block, iv).CryptBlocks(out, ciphertext)
	return Unpad(out)
}

// Tampering (fault injection, tests only): an operation given tamper=true
// makes its own output wrong, as a broken cipher would, for its own checks to
// catch: a roundtrip's ciphertext (its comparison catches it), an
// encryption's key from then on (Verify catches it).

// tamperBase64 puts another Base64 letter first: the first ciphertext block
// decrypts to other bytes; the padding, in the last block, stays valid.
func tamperBase64(text []byte) {
	if text[0] == 'A' {
		text[0] = 'B'
	} else {
		text[0] = 'A'
	}
}

// Seed000Fresh is seed 000's operation, pool off: the message built as a new
// string (prefix + counter), encrypted, encoded, decoded, decrypted and
// compared, every step allocating as the seed's program does.
func Seed000Fresh(prefix string, counter uint64, key, iv []byte, tamper bool) (int, error) {
	message := []byte(prefix + strconv.FormatUint(counter, 10))
	text, err := Seed000Encrypt(message, key, iv)
	if err != nil {
		return 0, err
	}
	if tamper {
		b := []byte(text)
		tamperBase64(b)
		text = string(b)
	}
	plain, err := Seed000Decrypt(text, key, iv)
	if err != nil {
		return 0, err
	}
	if !bytes.Equal(plain, message) {
		return 0, fmt.Errorf("seed 000 roundtrip of message %d returned other bytes", counter)
	}
	return len(message), nil
}

// Seed000Pooled is seed 000's operation, pool on: one goroutine's buffers,
// sized once for the longest counter. Go cannot re-key a cipher.Block, so
// every operation still calls aes.NewCipher (twice, as the seed does: to
// encrypt and to decrypt) and makes its CBC encrypter and decrypter: those
// allocations are the API's, not the buffers'.
type Seed000Pooled struct {
	prefixLength                                      int
	message, padded, ciphertext, text, decoded, plain []byte
}

// NewSeed000Pooled makes the buffers for messages prefix + a counter.
func NewSeed000Pooled(prefix string) *Seed000Pooled {
	longest := len(prefix) + 20 // the digits of the largest uint64
	s := &Seed000Pooled{prefixLength: len(prefix)}
	s.message = append(make([]byte, 0, longest), prefix...)
	s.padded = make([]byte, PaddedLen(longest))
	s.ciphertext = make([]byte, PaddedLen(longest))
	s.text = make([]byte, base64.StdEncoding.EncodedLen(PaddedLen(longest)))
	s.decoded = make([]byte, PaddedLen(longest))
	s.plain = make([]byte, PaddedLen(longest))
	return s
}

// Encrypt writes message `counter` and returns its Base64 ciphertext (a
// view of the buffers, valid until the next call).
func (s *Seed000Pooled) Encrypt(counter uint64, key, iv []byte) ([]byte, error) {
	s.message = strconv.AppendUint(s.message[:s.prefixLength], counter, 10)
	padded := PadInto(s.padded, s.message)
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	ciphertext := s.ciphertext[:len(padded)]
	cipher.NewCBCEncrypter(block, iv).CryptBlocks(ciphertext, padded)
	text := s.text[:base64.StdEncoding.EncodedLen(len(ciphertext))]
	base64.StdEncoding.Encode(text, ciphertext)
	return text, nil
}

// DecryptAndCompare decodes and decrypts `text` and compares the plaintext
// with the message Encrypt wrote last.
func (s *Seed000Pooled) DecryptAndCompare(text, key, iv []byte) error {
	n, err := base64.StdEncoding.Decode(s.decoded, text)
	if err != nil {
		return err
	}
	if err := wholeBlocks(s.decoded[:n]); err != nil {
		return err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return err
	}
	cipher.NewCBCDecrypter(block, iv).CryptBlocks(s.plain[:n], s.decoded[:n])
	plain, err := Unpad(s.plain[:n])
	if err != nil {
		return err
	}
	if !bytes.Equal(plain, s.message) {
		return fmt.Errorf("seed 000 roundtrip of message %q returned other bytes", s.message)
	}
	return nil
}

// Roundtrip is the whole pooled operation; it returns the message length.
func (s *Seed000Pooled) Roundtrip(counter uint64, key, iv []byte, tamper bool) (int, error) {
	text, err := s.Encrypt(counter, key, iv)
	if err != nil {
		return 0, err
	}
	if tamper {
		tamperBase64(text)
	}
	if err := s.DecryptAndCompare(text, key, iv); err != nil {
		return 0, err
	}
	return len(s.message), nil
}

// Seed002Roundtrip is seed 002's operation (pool off, key cached): AES-CBC
// encryption of `data` into new slices and its decryption, compared with the
// original; it returns the ciphertext. The key schedule (`block`) belongs to
// the goroutine; a CBC encrypter and decrypter are made per operation, as Go
// sets the IV only there.
func Seed002Roundtrip(block cipher.Block, iv, data []byte, tamper bool) ([]byte, error) {
	padded := Pad(data)
	ciphertext := make([]byte, len(padded))
	cipher.NewCBCEncrypter(block, iv).CryptBlocks(ciphertext, padded)
	if tamper {
		ciphertext[0] ^= 1
	}
	decrypted := make([]byte, len(ciphertext))
	cipher.NewCBCDecrypter(block, iv).CryptBlocks(decrypted, ciphertext)
	plain, err := Unpad(decrypted)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(plain, data) {
		return nil, errors.New("seed 002 roundtrip returned other bytes")
	}
	return ciphertext, nil
}

// Codec: the text encoding of the ciphertext inside an operation.
type Codec string

const (
	CodecNone   Codec = "none"
	CodecBase64 Codec = "base64"
	CodecHex    Codec = "hex"
)

// Codecs in cryptobench's order.
var Codecs = []Codec{CodecNone, CodecBase64, CodecHex}

// Seed003 is seed 003's operation: AES-ECB encryption of a plaintext, with
// PKCS#7 padding, optionally Base64 or hex encoded, under a key scheduled
// once (key:cached). Pool off: a padded copy, a new output slice and a new
// string, as go-crypto's plain variants; pool on: this goroutine's buffers
// (Encode into a reused slice).
type Seed003 struct {
	block                   cipher.Block // encrypts
	key                     []byte       // Verify decrypts under it
	codec                   Codec
	pool                    bool
	plain                   []byte
	padded, ciphertext, out []byte // pool on
	lastText                string // pool off, base64 or hex
	lastBytes               []byte // the last output as bytes (ciphertext, or the pooled text)
}

// NewSeed003 schedules the key and makes the pooled buffers.
func NewSeed003(key, plain []byte, codec Codec, pool bool) (*Seed003, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	s := &Seed003{block: block, key: append([]byte(nil), key...), codec: codec, pool: pool,
		plain: plain}
	if pool {
		n := PaddedLen(len(plain))
		s.padded = make([]byte, n)
		s.ciphertext = make([]byte, n)
		switch codec {
		case CodecBase64:
			s.out = make([]byte, base64.StdEncoding.EncodedLen(n))
		case CodecHex:
			s.out = make([]byte, hex.EncodedLen(n))
		}
	}
	return s, nil
}

// Encrypt is one operation.
func (s *Seed003) Encrypt(tamper bool) {
	if tamper { // another key from now on: the last output no longer decrypts
		other := append([]byte(nil), s.key...)
		other[0] ^= 1
		s.block, _ = aes.NewCipher(other)
	}
	if !s.pool {
		padded := Pad(s.plain)
		ciphertext := make([]byte, len(padded))
		EncryptECB(s.block, ciphertext, padded)
		switch s.codec {
		case CodecBase64:
			s.lastText = base64.StdEncoding.EncodeToString(ciphertext)
		case CodecHex:
			s.lastText = hex.EncodeToString(ciphertext)
		default:
			s.lastBytes = ciphertext
		}
		return
	}
	padded := PadInto(s.padded, s.plain)
	EncryptECB(s.block, s.ciphertext, padded)
	switch s.codec {
	case CodecBase64:
		base64.StdEncoding.Encode(s.out, s.ciphertext)
		s.lastBytes = s.out
	case CodecHex:
		hex.Encode(s.out, s.ciphertext)
		s.lastBytes = s.out
	default:
		s.lastBytes = s.ciphertext
	}
}

// HasOutput: an operation has run.
func (s *Seed003) HasOutput() bool { return s.lastBytes != nil || s.lastText != "" }

// Output is the last operation's output: the ciphertext, or its text.
func (s *Seed003) Output() []byte {
	if !s.pool && s.codec != CodecNone {
		return []byte(s.lastText)
	}
	return s.lastBytes
}

// Verify decodes the last output, decrypts it and compares it with the
// plaintext.
func (s *Seed003) Verify() error {
	out := s.Output()
	var ciphertext []byte
	var err error
	switch s.codec {
	case CodecBase64:
		ciphertext, err = base64.StdEncoding.DecodeString(string(out))
	case CodecHex:
		ciphertext, err = hex.DecodeString(string(out))
	default:
		ciphertext = out
	}
	if err != nil {
		return fmt.Errorf("seed 003: the %s output does not decode: %v", s.codec, err)
	}
	if err := wholeBlocks(ciphertext); err != nil {
		return err
	}
	block, err := aes.NewCipher(s.key)
	if err != nil {
		return err
	}
	decrypted := make([]byte, len(ciphertext))
	DecryptECB(block, decrypted, ciphertext)
	plain, err := Unpad(decrypted)
	if err != nil {
		return fmt.Errorf("seed 003: the output does not decrypt: %v", err)
	}
	if !bytes.Equal(plain, s.plain) {
		return errors.New("seed 003: the output does not decrypt to the plaintext")
	}
	return nil
}
