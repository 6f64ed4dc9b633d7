import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from "node:crypto";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Encrypts secrets at rest (API keys, platform credentials, webhook secrets) with AES-256-GCM
 * under the master key. Each ciphertext is bound to its purpose (`context`, such as the key's
 * public prefix) so that one row's ciphertext cannot be swapped into another.
 */
export class SecretBox {
  readonly #key: Buffer;

  constructor(masterKey: Buffer) {
    if (masterKey.length !== 32) throw new Error("The master key must be 32 bytes");
    this.#key = masterKey;
  }

  static fromText(text: string): SecretBox {
    const bytes = /^[0-9a-fA-F]{64}$/.test(text)
      ? Buffer.from(text, "hex")
      : Buffer.from(text, "base64");
    return new SecretBox(bytes);
  }

  encrypt(plain: string, context: string): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.#key, iv);
    cipher.setAAD(Buffer.from(context, "utf8"));
    const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
    return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), body]);
  }

  /** A key of its own for another purpose (signing admin tokens), derived with HKDF. */
  deriveKey(purpose: string): Uint8Array {
    return new Uint8Array(hkdfSync("sha256", this.#key, Buffer.alloc(0), purpose, 32));
  }

  decrypt(sealed: Buffer, context: string): string {
    if (sealed[0] !== VERSION) throw new Error("Unknown secret format");
    const iv = sealed.subarray(1, 1 + IV_BYTES);
    const tag = sealed.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES);
    const body = sealed.subarray(1 + IV_BYTES + TAG_BYTES);
    const decipher = createDecipheriv("aes-256-gcm", this.#key, iv);
    decipher.setAAD(Buffer.from(context, "utf8"));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString("utf8");
  }
}

/**
 * The master key of a development machine: created once in the data directory (mode 600) so
 * that the one-line start needs no configuration. Production must set LOYALTY_MASTER_KEY.
 */
export async function developmentMasterKey(dataDir: string): Promise<string> {
  const file = path.join(dataDir, "master.key");
  try {
    return (await readFile(file, "utf8")).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  await mkdir(dataDir, { recursive: true });
  const key = randomBytes(32).toString("hex");
  // "wx": when two processes start at once, the first key written wins and both read it.
  await writeFile(file, `${key}\n`, { mode: 0o600, flag: "wx" }).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  });
  await chmod(file, 0o600);
  return (await readFile(file, "utf8")).trim();
}

/** Compares two secrets in time independent of where they differ (and of their lengths). */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = createHash("sha256").update(a, "utf8").digest();
  const right = createHash("sha256").update(b, "utf8").digest();
  return timingSafeEqual(left, right) && a.length === b.length;
}

/** The customer hash of the spec: hex HMAC-SHA512 of the externalId text keyed `<ref>:<key>`. */
export function customerHash(storeReference: string, apiKey: string, externalId: string): string {
  return createHmac("sha512", `${storeReference}:${apiKey}`)
    .update(externalId, "utf8")
    .digest("hex");
}
