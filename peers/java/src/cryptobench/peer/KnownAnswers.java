package cryptobench.peer;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import javax.crypto.Cipher;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Known answers, checked in every JVM before it measures: NIST CAVP AESAVS multi-block message
 * records (tests/vectors/nist_cavp, read strictly) through the workloads' own transformations
 * (AES/ECB/PKCS5Padding, AES/CBC/PKCS5Padding), and fixed outputs of the whole operations
 * (padding, Base64, hex) that {@code openssl enc} produces for the same inputs, through the
 * workload classes themselves. The same inputs and outputs as the Go peer's knownanswers.go.
 */
final class KnownAnswers {
  private KnownAnswers() {}

  private static final HexFormat HEX = HexFormat.of();

  record Record(
      boolean encrypt, int count, byte[] key, byte[] iv, byte[] plaintext, byte[] ciphertext) {}

  /**
   * Reads an AESAVS ECB or CBC file: a section header before any record, each record COUNT then
   * KEY, IV (CBC only, required there), PLAINTEXT and CIPHERTEXT once each, whole blocks; anything
   * else is an error naming the line.
   */
  static List<Record> readAesvs(Path path, boolean withIv) throws IOException {
    List<Record> records = new ArrayList<>();
    String section = null;
    Integer count = null;
    byte[][] fields = new byte[4][]; // KEY, IV, PLAINTEXT, CIPHERTEXT
    List<String> lines = Files.readAllLines(path, StandardCharsets.US_ASCII);
    for (int number = 1; number <= lines.size() + 1; number++) {
      String line = number <= lines.size() ? lines.get(number - 1).strip() : "COUNT = end";
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String where = path + ":" + number + ": ";
      boolean header = line.equals("[ENCRYPT]") || line.equals("[DECRYPT]");
      String[] kv = line.split(" = ", 2);
      if (header || kv[0].equals("COUNT")) {
        if (count != null) {
          if (fields[0] == null || fields[2] == null || fields[3] == null
              || (withIv && fields[1] == null)) {
            throw new IOException(where + "record COUNT = " + count + " is incomplete");
          }
          if (fields[2].length != fields[3].length || fields[2].length % 16 != 0) {
            throw new IOException(
                where + "record COUNT = " + count + ": lengths are not equal whole blocks");
          }
          records.add(new Record(
              "[ENCRYPT]".equals(section), count, fields[0], fields[1], fields[2], fields[3]));
          count = null;
          fields = new byte[4][];
        }
        if (header) {
          section = line;
          continue;
        }
        if (number > lines.size()) {
          break;
        }
        if (section == null) {
          throw new IOException(where + "a record before [ENCRYPT] or [DECRYPT]");
        }
        if (kv.length != 2) {
          throw new IOException(where + "not 'NAME = value'");
        }
        try {
          count = Integer.parseInt(kv[1]);
        } catch (NumberFormatException e) {
          throw new IOException(where + "COUNT is not a number");
        }
        continue;
      }
      if (kv.length != 2) {
        throw new IOException(where + "not 'NAME = value': " + line);
      }
      if (count == null) {
        throw new IOException(where + kv[0] + " outside a record");
      }
      int index =
          switch (kv[0]) {
            case "KEY" -> 0;
            case "IV" -> 1;
            case "PLAINTEXT" -> 2;
            case "CIPHERTEXT" -> 3;
            default -> throw new IOException(where + "unknown attribute " + kv[0]);
          };
      if (index == 1 && !withIv) {
        throw new IOException(where + "an IV in an ECB file");
      }
      if (fields[index] != null) {
        throw new IOException(where + kv[0] + " given twice");
      }
      try {
        fields[index] = HEX.parseHex(kv[1]);
      } catch (IllegalArgumentException e) {
        throw new IOException(where + kv[0] + " is not hex");
      }
    }
    if (records.isEmpty()) {
      throw new IOException(path + ": no record");
    }
    return records;
  }

  /**
   * The workload's transformation of the record's plaintext must start with its ciphertext, and
   * decrypting that ciphertext, followed by the padding block encryption produced, must return
   * the plaintext.
   */
  private static void checkRecord(String transformation, Record r)
      throws GeneralSecurityException {
    SecretKeySpec key = new SecretKeySpec(r.key(), "AES");
    Cipher cipher = Cipher.getInstance(transformation);
    if (r.iv() != null) {
      cipher.init(Cipher.ENCRYPT_MODE, key, new IvParameterSpec(r.iv()));
    } else {
      cipher.init(Cipher.ENCRYPT_MODE, key);
    }
    byte[] out = cipher.doFinal(r.plaintext());
    int n = r.ciphertext().length;
    if (!Arrays.equals(out, 0, n, r.ciphertext(), 0, n)) {
      throw new GeneralSecurityException("COUNT = " + r.count() + ": ciphertext "
          + HEX.formatHex(out, 0, n) + ", expected " + HEX.formatHex(r.ciphertext()));
    }
    byte[] in = Arrays.copyOf(r.ciphertext(), out.length);
    System.arraycopy(out, n, in, n, 16);
    if (r.iv() != null) {
      cipher.init(Cipher.DECRYPT_MODE, key, new IvParameterSpec(r.iv()));
    } else {
      cipher.init(Cipher.DECRYPT_MODE, key);
    }
    if (!Arrays.equals(cipher.doFinal(in), r.plaintext())) {
      throw new GeneralSecurityException(
          "COUNT = " + r.count() + ": decryption does not return the plaintext");
    }
  }

  // Fixed known answers: `openssl enc` of the same inputs (PKCS#7 padding).
  static final String SEED000_PREFIX = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
      + "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZab";
  static final long SEED000_COUNTER = 1234567;
  static final String SEED000_BASE64 =
      "ZI/DiKKxxneVrWyQCMacXGE6Jbtt0DAzNJ94ftMc9kQMSrOR1c+ltDqfbei7Qy1w"
      + "jgDU0lDtWfH4lZ72HcyAW0DQqy8tZq6nu5TSAo1X7RzH7d3vhI1cuz4HOAqsS1PmfrONfk6+V+NYbXP1auSgYw==";
  static final String ECB_KEY = "000102030405060708090a0b0c0d0e0f";
  // "0123456789" (one block) and two equal blocks (equal ciphertext blocks: ECB, not CBC):
  // {plaintext, hex, Base64}.
  static final String[][] ECB = {
    {"0123456789", "1791d43fe172faba305dbdb829214793", "F5HUP+Fy+rowXb24KSFHkw=="},
    {
      "0123456789abcdef0123456789abcdef",
      "281567ab2f4cf0d73d3198225b8b8393281567ab2f4cf0d73d3198225b8b8393"
          + "954f64f2e4e86e9eee82d20216684899",
      "KBVnqy9M8Nc9MZgiW4uDkygVZ6svTPDXPTGYIluLg5OVT2Ty5Ohunu6C0gIWaEiZ"
    },
  };
  static final String CBC256_KEY =
      "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
  static final String CBC256_IV = "f0e0d0c0b0a090807060504030201000";
  static final String CBC256_PLAIN = "seed 002: forty bytes of AES-256 input!!";
  static final String CBC256_HEX =
      "36e82df696a14f048de4ee1f2d940260efa41fe1849f71ef88f78e3f432643fe"
      + "909866b77958ac3e5c76bba7e9d902f9";

  private static void fixedAnswers() throws GeneralSecurityException {
    // Seed 000, pool off and on.
    String message = SEED000_PREFIX + SEED000_COUNTER;
    String key = Workloads.SEED000_KEY;
    byte[] iv = Workloads.SEED000_IV;
    String text = Workloads.Seed000Fresh.encrypt(message, key, iv);
    if (!text.equals(SEED000_BASE64)) {
      throw new GeneralSecurityException(
          "seed 000 (pool off): Base64 ciphertext " + text + ", expected " + SEED000_BASE64);
    }
    if (!Workloads.Seed000Fresh.decrypt(text, key, iv).equals(message)) {
      throw new GeneralSecurityException(
          "seed 000 (pool off): the known ciphertext does not decrypt to its message");
    }
    Workloads.Seed000Pooled pooled = new Workloads.Seed000Pooled(SEED000_PREFIX);
    byte[] pooledText = pooled.encrypt(SEED000_COUNTER);
    if (!new String(pooledText, StandardCharsets.US_ASCII).equals(SEED000_BASE64)) {
      throw new GeneralSecurityException("seed 000 (pool on): Base64 ciphertext "
          + new String(pooledText, StandardCharsets.US_ASCII) + ", expected " + SEED000_BASE64);
    }
    pooled.decryptAndCompare(pooledText);
    // Seed 003: every codec and pool.
    for (String[] c : ECB) {
      for (String codec : Cell.CODECS) {
        for (boolean pool : new boolean[] {false, true}) {
          Workloads.Seed003 s = new Workloads.Seed003(
              HEX.parseHex(ECB_KEY), c[0].getBytes(StandardCharsets.US_ASCII), codec, pool);
          s.run(0, false);
          String expected = codec.equals("base64") ? c[2] : c[1];
          if (!s.outputText().equals(expected)) {
            throw new GeneralSecurityException("seed 003 (codec " + codec + ", pool "
                + (pool ? "on" : "off") + ") of \"" + c[0] + "\": " + s.outputText()
                + ", expected " + expected);
          }
          s.verifyLast();
        }
      }
    }
    // Seed 002.
    Workloads.Seed002 s = new Workloads.Seed002(HEX.parseHex(CBC256_KEY),
        HEX.parseHex(CBC256_IV), CBC256_PLAIN.getBytes(StandardCharsets.US_ASCII));
    s.run(0, false);
    if (!HEX.formatHex(s.lastCiphertext).equals(CBC256_HEX)) {
      throw new GeneralSecurityException(
          "seed 002: ciphertext " + HEX.formatHex(s.lastCiphertext) + ", expected " + CBC256_HEX);
    }
  }

  /** Runs every check; returns what was checked, or throws naming the first failure. */
  static String check(Path vectors) throws IOException, GeneralSecurityException {
    Object[][] files = {
      {"nist_cavp/ECB/ECBMMT128.rsp", "AES/ECB/PKCS5Padding", false},
      {"nist_cavp/CBC/CBCMMT128.rsp", "AES/CBC/PKCS5Padding", true},
      {"nist_cavp/CBC/CBCMMT256.rsp", "AES/CBC/PKCS5Padding", true},
    };
    int records = 0;
    for (Object[] f : files) {
      Path path = vectors.resolve((String) f[0]);
      for (Record r : readAesvs(path, (Boolean) f[2])) {
        try {
          checkRecord((String) f[1], r);
        } catch (GeneralSecurityException e) {
          throw new GeneralSecurityException(path + ": " + e.getMessage(), e);
        }
        records++;
      }
    }
    fixedAnswers();
    return records + " NIST CAVP AESAVS records (ECBMMT128, CBCMMT128, CBCMMT256) through the "
        + "workloads' transformations (AES/ECB/PKCS5Padding, AES/CBC/PKCS5Padding), and fixed "
        + "`openssl enc` outputs of the seed-000 roundtrip (both pools), seed 003's ECB with every "
        + "codec and pool, and seed 002's AES-256-CBC, in every JVM before it measures; every "
        + "roundtrip is compared in the timed loop";
  }
}
