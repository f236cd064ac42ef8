package cryptobench.peer;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.SplittableRandom;
import javax.crypto.Cipher;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The seeds' workloads with javax.crypto. Pool off is the idiomatic code the seeds' programs are
 * (doFinal returning new arrays, encodeToString, new Strings); pool on gives each thread its own
 * buffers, reused (doFinal into an output array, encode into a byte array). The known-answer
 * checks (KnownAnswers) run these same classes.
 */
final class Workloads {
  private Workloads() {}

  /** One thread's operation. */
  interface Operation {
    /**
     * Runs operation {@code counter}; returns its plaintext bytes; throws on a mismatch. With
     * {@code tamper} (fault injection, tests only) the operation's output is made wrong, as a
     * broken cipher would make it, for its own checks to catch: a roundtrip's ciphertext (caught
     * by the roundtrip's comparison), an encryption's key from then on (caught by verifyLast).
     */
    long run(long counter, boolean tamper) throws GeneralSecurityException;

    /** After the timed loop: the last output decodes and decrypts to its plaintext. */
    void verifyLast() throws GeneralSecurityException;
  }

  /** A roundtrip or output that does not match. */
  static final class MismatchException extends GeneralSecurityException {
    private static final long serialVersionUID = 1L;

    MismatchException(String message) {
      super(message);
    }
  }

  static final String SEED000_KEY = "B31F2A75FBF94099";
  static final byte[] SEED000_IV = "1234567890123456".getBytes(StandardCharsets.US_ASCII);
  static final String ALPHANUMERIC =
      "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

  static String randomAlphanumeric(SplittableRandom rng, int n) {
    StringBuilder sb = new StringBuilder(n);
    for (int i = 0; i < n; i++) {
      sb.append(ALPHANUMERIC.charAt(rng.nextInt(ALPHANUMERIC.length())));
    }
    return sb.toString();
  }

  static byte[] randomBytes(SplittableRandom rng, int n) {
    byte[] b = new byte[n];
    rng.nextBytes(b);
    return b;
  }

  /** Another Base64 letter in the first place: the first ciphertext block decrypts wrong. */
  static String tamperBase64(String text) {
    return (text.charAt(0) == 'A' ? "B" : "A") + text.substring(1);
  }

  /** What a benchmark's threads share, drawn once per repetition. */
  static final class Inputs {
    final String prefix; // seed000
    final byte[] key; // seed002 (32 bytes), seed003 (16 bytes)
    final byte[] iv; // seed002
    final SplittableRandom rng;

    Inputs(Cell cell, SplittableRandom rng) {
      this.rng = rng;
      prefix = randomAlphanumeric(rng, Cell.SEED000_PREFIX);
      key = randomBytes(rng, cell.cipher().startsWith("aes-256") ? 32 : 16);
      iv = randomBytes(rng, 16);
    }
  }

  /** The operation of {@code cell} for one thread (its fresh data drawn from {@code rng}). */
  static Operation create(Cell cell, Inputs inputs, SplittableRandom rng)
      throws GeneralSecurityException {
    return switch (cell.scenario()) {
      case "seed000" -> cell.pool()
          ? new Seed000Pooled(inputs.prefix)
          : new Seed000Fresh(inputs.prefix);
      case "seed002" -> new Seed002(inputs.key, inputs.iv, randomBytes(rng, cell.size()));
      case "seed003" ->
          new Seed003(inputs.key, randomBytes(rng, cell.size()), cell.codec(), cell.pool());
      default -> throw new IllegalArgumentException("no such scenario: " + cell.scenario());
    };
  }

  /**
   * Seed 000, pool off, as its program: a thread-local Cipher, re-initialised with a new
   * SecretKeySpec (and IvParameterSpec) to encrypt and again to decrypt, the message a new String
   * (prefix + counter), Base64 as a String. Note: JDK 17's AESCrypt.init expands the key only when
   * its bytes differ from the last key's, so with the seed's fixed key the schedule is computed
   * once per thread; the re-initialisation costs the key objects and the comparison.
   */
  static final class Seed000Fresh implements Operation {
    private static final ThreadLocal<Cipher> CIPHER = ThreadLocal.withInitial(() -> {
      try {
        return Cipher.getInstance("AES/CBC/PKCS5Padding");
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException(e);
      }
    });
    private final String prefix;
    private String lastMessage;
    private String lastText;

    Seed000Fresh(String prefix) {
      this.prefix = prefix;
      CIPHER.get(); // the thread's Cipher made before the timed loop, in this thread
    }

    static String encrypt(String message, String key, byte[] iv)
        throws GeneralSecurityException {
      SecretKeySpec keySpec = new SecretKeySpec(key.getBytes(StandardCharsets.US_ASCII), "AES");
      Cipher cipher = CIPHER.get();
      cipher.init(Cipher.ENCRYPT_MODE, keySpec, new IvParameterSpec(iv));
      byte[] encrypted = cipher.doFinal(message.getBytes(StandardCharsets.UTF_8));
      return Base64.getEncoder().encodeToString(encrypted);
    }

    static String decrypt(String text, String key, byte[] iv) throws GeneralSecurityException {
      SecretKeySpec keySpec = new SecretKeySpec(key.getBytes(StandardCharsets.US_ASCII), "AES");
      Cipher cipher = CIPHER.get();
      cipher.init(Cipher.DECRYPT_MODE, keySpec, new IvParameterSpec(iv));
      byte[] plain = cipher.doFinal(Base64.getDecoder().decode(text));
      return new String(plain, StandardCharsets.UTF_8);
    }

    @Override
    public long run(long counter, boolean tamper) throws GeneralSecurityException {
      String message = prefix + counter;
      String text = encrypt(message, SEED000_KEY, SEED000_IV);
      if (tamper) {
        text = tamperBase64(text);
      }
      String back = decrypt(text, SEED000_KEY, SEED000_IV);
      if (!message.equals(back)) {
        throw new MismatchException(
            "seed 000 roundtrip of message " + counter + " returned other text");
      }
      lastMessage = message;
      lastText = text;
      return message.length();
    }

    @Override
    public void verifyLast() throws GeneralSecurityException {
      if (lastText != null && !decrypt(lastText, SEED000_KEY, SEED000_IV).equals(lastMessage)) {
        throw new MismatchException(
            "seed 000: the last ciphertext does not decrypt to its message");
      }
    }
  }

  /**
   * Seed 000, pool on: the thread's own Cipher (re-initialised with a new SecretKeySpec twice per
   * operation, as pool off) and buffers: the message written into a byte array, doFinal into
   * output arrays, Base64 encoded into and decoded from byte arrays. A buffer of the exact length
   * Base64's array API needs is kept per length (the length changes only when the counter gains a
   * digit that adds a block).
   */
  static final class Seed000Pooled implements Operation {
    private static final int MAX_DIGITS = 20;
    private final Cipher cipher = Cipher.getInstance("AES/CBC/PKCS5Padding");
    private final byte[] key = SEED000_KEY.getBytes(StandardCharsets.US_ASCII);
    private final int prefixLength;
    private final byte[] message;
    private int messageLength;
    private final byte[][] ciphertexts = new byte[(Cell.SEED000_PREFIX + MAX_DIGITS) / 16 + 2][];
    private final byte[][] texts = new byte[ciphertexts.length][];
    private final byte[] decoded;
    private final byte[] plain;
    private byte[] lastText;

    Seed000Pooled(String prefix) throws GeneralSecurityException {
      prefixLength = prefix.length();
      message =
          Arrays.copyOf(prefix.getBytes(StandardCharsets.US_ASCII), prefixLength + MAX_DIGITS);
      decoded = new byte[ciphertexts.length * 16];
      plain = new byte[ciphertexts.length * 16];
    }

    /** Writes message {@code counter} and returns its Base64 ciphertext (a reused array). */
    byte[] encrypt(long counter) throws GeneralSecurityException {
      messageLength = prefixLength + writeDecimal(message, prefixLength, counter);
      cipher.init(
          Cipher.ENCRYPT_MODE, new SecretKeySpec(key, "AES"), new IvParameterSpec(SEED000_IV));
      int blocks = cipher.getOutputSize(messageLength) / 16;
      byte[] ciphertext = ciphertexts[blocks];
      if (ciphertext == null) {
        ciphertext = new byte[blocks * 16];
        ciphertexts[blocks] = ciphertext;
        texts[blocks] = new byte[(blocks * 16 + 2) / 3 * 4];
      }
      int n = cipher.doFinal(message, 0, messageLength, ciphertext, 0);
      if (n != ciphertext.length) {
        throw new MismatchException("seed 000: " + n + " bytes of ciphertext");
      }
      Base64.getEncoder().encode(ciphertext, texts[blocks]);
      return texts[blocks];
    }

    /** Decodes and decrypts {@code text}, compared with the message encrypt wrote last. */
    void decryptAndCompare(byte[] text) throws GeneralSecurityException {
      int n = Base64.getDecoder().decode(text, decoded);
      cipher.init(
          Cipher.DECRYPT_MODE, new SecretKeySpec(key, "AES"), new IvParameterSpec(SEED000_IV));
      int m = cipher.doFinal(decoded, 0, n, plain, 0);
      if (!Arrays.equals(plain, 0, m, message, 0, messageLength)) {
        throw new MismatchException("seed 000 roundtrip of message "
            + new String(message, 0, messageLength, StandardCharsets.US_ASCII)
            + " returned other bytes");
      }
    }

    /** The counter in decimal at {@code at}; returns its digits. */
    static int writeDecimal(byte[] out, int at, long value) {
      int digits = 1;
      for (long v = value; v >= 10; v /= 10) {
        digits++;
      }
      for (int i = at + digits - 1; i >= at; i--) {
        out[i] = (byte) ('0' + value % 10);
        value /= 10;
      }
      return digits;
    }

    @Override
    public long run(long counter, boolean tamper) throws GeneralSecurityException {
      byte[] text = encrypt(counter);
      if (tamper) {
        text[0] = (byte) (text[0] == 'A' ? 'B' : 'A');
      }
      decryptAndCompare(text);
      lastText = text;
      return messageLength;
    }

    @Override
    public void verifyLast() throws GeneralSecurityException {
      if (lastText != null) {
        decryptAndCompare(lastText);
      }
    }
  }

  /**
   * Seed 002 (pool off, key cached): AES-256-CBC encryption of the thread's data into a new array
   * and its decryption, compared with the data. Each thread initialises an encrypting and a
   * decrypting Cipher once; doFinal returns a CBC cipher to its initial IV.
   */
  static final class Seed002 implements Operation {
    private final Cipher encrypt = Cipher.getInstance("AES/CBC/PKCS5Padding");
    private final Cipher decrypt = Cipher.getInstance("AES/CBC/PKCS5Padding");
    private final byte[] data;
    byte[] lastCiphertext;

    Seed002(byte[] key, byte[] iv, byte[] data) throws GeneralSecurityException {
      encrypt.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key, "AES"), new IvParameterSpec(iv));
      decrypt.init(Cipher.DECRYPT_MODE, new SecretKeySpec(key, "AES"), new IvParameterSpec(iv));
      this.data = data;
    }

    @Override
    public long run(long counter, boolean tamper) throws GeneralSecurityException {
      byte[] ciphertext = encrypt.doFinal(data);
      if (tamper) {
        ciphertext[0] ^= 1;
      }
      byte[] plain = decrypt.doFinal(ciphertext);
      if (!Arrays.equals(plain, data)) {
        throw new MismatchException("seed 002 roundtrip returned other bytes");
      }
      lastCiphertext = ciphertext;
      return data.length;
    }

    @Override
    public void verifyLast() throws GeneralSecurityException {
      if (lastCiphertext != null && !Arrays.equals(decrypt.doFinal(lastCiphertext), data)) {
        throw new MismatchException("seed 002: the last ciphertext does not decrypt to the data");
      }
    }
  }

  /**
   * Seed 003: AES-128-ECB encryption (PKCS#7) under a key set once, the ciphertext optionally as
   * Base64 or hex. Pool off: doFinal's new array, encodeToString / HexFormat.formatHex's new
   * String; pool on: doFinal into the thread's array, Base64 into a byte array, hex appended to a
   * reused StringBuilder.
   */
  static final class Seed003 implements Operation {
    private static final HexFormat HEX = HexFormat.of();
    private final Cipher cipher = Cipher.getInstance("AES/ECB/PKCS5Padding");
    private final SecretKeySpec key;
    private final byte[] plain;
    private final String codec;
    private final boolean pool;
    private final byte[] ciphertext;
    private final byte[] base64;
    private final StringBuilder hex;
    private Object lastOutput; // byte[] or CharSequence

    Seed003(byte[] key, byte[] plain, String codec, boolean pool)
        throws GeneralSecurityException {
      this.key = new SecretKeySpec(key, "AES");
      cipher.init(Cipher.ENCRYPT_MODE, this.key);
      this.plain = plain;
      this.codec = codec;
      this.pool = pool;
      int n = cipher.getOutputSize(plain.length);
      ciphertext = pool ? new byte[n] : null;
      base64 = pool && codec.equals("base64") ? new byte[(n + 2) / 3 * 4] : null;
      hex = pool && codec.equals("hex") ? new StringBuilder(2 * n) : null;
    }

    @Override
    public long run(long counter, boolean tamper) throws GeneralSecurityException {
      if (tamper) { // another key from now on: the last output no longer decrypts
        byte[] other = key.getEncoded();
        other[0] ^= 1;
        cipher.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(other, "AES"));
      }
      if (!pool) {
        byte[] out = cipher.doFinal(plain);
        lastOutput =
            switch (codec) {
              case "base64" -> Base64.getEncoder().encodeToString(out);
              case "hex" -> HEX.formatHex(out);
              default -> out;
            };
        return plain.length;
      }
      cipher.doFinal(plain, 0, plain.length, ciphertext, 0);
      switch (codec) {
        case "base64" -> {
          Base64.getEncoder().encode(ciphertext, base64);
          lastOutput = base64;
        }
        case "hex" -> {
          hex.setLength(0);
          HEX.formatHex(hex, ciphertext);
          lastOutput = hex;
        }
        default -> lastOutput = ciphertext;
      }
      return plain.length;
    }

    /** The last output as text (Base64, hex) or as hex of the ciphertext (codec none). */
    String outputText() {
      if (lastOutput instanceof byte[] bytes) {
        return codec.equals("base64")
            ? new String(bytes, StandardCharsets.US_ASCII)
            : HEX.formatHex(bytes);
      }
      return lastOutput.toString();
    }

    @Override
    public void verifyLast() throws GeneralSecurityException {
      if (lastOutput == null) {
        return;
      }
      String text = outputText();
      byte[] out;
      try {
        out =
            switch (codec) {
              case "base64" -> Base64.getDecoder().decode(text);
              default -> HEX.parseHex(text);
            };
      } catch (IllegalArgumentException e) {
        throw new MismatchException(
            "seed 003: the " + codec + " output does not decode: " + e.getMessage());
      }
      Cipher decrypt = Cipher.getInstance("AES/ECB/PKCS5Padding");
      decrypt.init(Cipher.DECRYPT_MODE, key);
      byte[] back;
      try {
        back = decrypt.doFinal(out);
      } catch (GeneralSecurityException e) { // a wrong key's output fails the padding check
        throw new MismatchException("seed 003: the output does not decrypt: " + e.getMessage());
      }
      if (!Arrays.equals(back, plain)) {
        throw new MismatchException("seed 003: the output does not decrypt to the plaintext");
      }
    }
  }
}
