import {
  randomBytes,
  scrypt as scryptCallback,
  timingSafeEqual,
  type ScryptOptions,
} from "node:crypto";
import {
  ADMIN_TOKEN_TYPE,
  adminTokenRequestSchema,
  emailSchema,
  type AdminTokenResponse,
} from "@loyalty/shared-types";
import { errors as joseErrors, jwtVerify, SignJWT } from "jose";
import type pg from "pg";
import type { SecretBox } from "../../crypto/secrets.js";
import { AppError } from "../../errors.js";
import { parseRequest } from "../../http/validate.js";
import { findStoreById, findStoreByReference } from "../stores/stores.repository.js";
import {
  disableAdminUser,
  findAdminUserByEmail,
  findAdminUserById,
  insertAdminUser,
  listAdminUsers,
  type AdminUserRow,
} from "./admin-users.repository.js";

/** Who a back-office request acts as. */
export interface AdminPrincipal {
  userId: number;
  /** The store the token is limited to; null for a token of the whole service. */
  storeId: number | null;
}

// scrypt at N=2^15, r=8: 32 MiB and tens of milliseconds per guess (OWASP's minimum is 2^17
// with r=8 for new systems at p=1; 2^15 keeps a login under 100 ms on a 2-core machine).
const SCRYPT = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } as const;
const KEY_BYTES = 32;
const ISSUER = "loyalty";
const AUDIENCE = "loyalty-admin";

function scrypt(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCallback(password.normalize("NFKC"), salt, KEY_BYTES, options, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

/** `scrypt$N$r$p$<salt>$<hash>`, base64url. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, SCRYPT);
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString("base64url")}$${hash.toString("base64url")}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64url");
  const actual = await scrypt(password, Buffer.from(salt, "base64url"), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: SCRYPT.maxmem,
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** Compared against when the email is unknown, so that timing does not tell who is an admin. */
const UNKNOWN_USER_HASH = hashPassword(randomBytes(16).toString("hex"));

export const MIN_PASSWORD_LENGTH = 12;

/**
 * Back-office identities: admins (created by the CLI), their passwords (scrypt), and the
 * short-lived access tokens (HS256 JWT signed with a key derived from the master key, so that
 * every process of a deployment accepts them).
 */
export class AdminAuthService {
  readonly #signingKey: Uint8Array;

  constructor(
    private readonly pool: pg.Pool,
    secrets: SecretBox,
    private readonly ttlSeconds: number,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.#signingKey = secrets.deriveKey("loyalty admin access tokens v1");
  }

  /** Creates an admin of the service, or of one store (by its reference). */
  async createAdmin(input: {
    email: string;
    password: string;
    storeReference?: string;
  }): Promise<AdminUserRow & { storeReference: string | null }> {
    const email = parseRequest(emailSchema, input.email.trim().toLowerCase(), "body");
    if (input.password.length < MIN_PASSWORD_LENGTH) {
      throw new AppError(
        "validation-failed",
        `The password must be at least ${MIN_PASSWORD_LENGTH} characters long.`,
      );
    }
    let storeId: number | null = null;
    if (input.storeReference !== undefined) {
      const store = await findStoreByReference(this.pool, input.storeReference);
      if (!store) {
        throw new AppError("not-found", `No store has the reference ${input.storeReference}.`);
      }
      storeId = store.id;
    }
    const created = await insertAdminUser(this.pool, {
      email,
      passwordHash: await hashPassword(input.password),
      storeId,
    });
    if (!created) throw new AppError("validation-failed", `An admin with email ${email} exists.`);
    return { ...created, storeReference: input.storeReference ?? null };
  }

  listAdmins(): Promise<AdminUserRow[]> {
    return listAdminUsers(this.pool);
  }

  async disableAdmin(email: string): Promise<AdminUserRow> {
    const row = await disableAdminUser(this.pool, email.trim().toLowerCase());
    if (!row) throw new AppError("not-found", `No admin has the email ${email}.`);
    return row;
  }

  /** POST /admin/token: the admin's credentials for a token of the service or of one store. */
  async issueToken(body: unknown): Promise<AdminTokenResponse> {
    const request = parseRequest(adminTokenRequestSchema, body, "body");
    const user = await findAdminUserByEmail(this.pool, request.email.toLowerCase());
    const valid = await verifyPassword(
      request.password,
      user?.passwordHash ?? (await UNKNOWN_USER_HASH),
    );
    if (!user || !valid || user.disabledAt) {
      throw new AppError("unauthorized", "The email or the password is wrong.");
    }
    let storeId = user.storeId;
    if (request.storeId !== undefined) {
      if (user.storeId !== null && user.storeId !== request.storeId) {
        throw new AppError("forbidden", "This admin administers another store.");
      }
      if (!(await findStoreById(this.pool, request.storeId))) {
        throw new AppError("validation-failed", `No store has the id ${request.storeId}.`, [
          { location: "body", pointer: "/storeId", message: "no such store", code: "not_found" },
        ]);
      }
      storeId = request.storeId;
    }
    const issuedAt = Math.floor(this.now().getTime() / 1000);
    const expiresAt = issuedAt + this.ttlSeconds;
    const accessToken = await new SignJWT(storeId === null ? {} : { store_id: storeId })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setSubject(String(user.id))
      .setIssuedAt(issuedAt)
      .setExpirationTime(expiresAt)
      .setJti(randomBytes(12).toString("base64url"))
      .sign(this.#signingKey);
    return {
      accessToken,
      tokenType: ADMIN_TOKEN_TYPE,
      expiresIn: this.ttlSeconds,
      expiresAt: new Date(expiresAt * 1000).toISOString(),
      storeId,
    };
  }

  /**
   * The principal of a bearer token. Refused (401): a token that is malformed, signed with
   * another key, expired, or whose admin was disabled since.
   */
  async authenticate(token: string): Promise<AdminPrincipal> {
    let payload;
    try {
      ({ payload } = await jwtVerify(token, this.#signingKey, {
        algorithms: ["HS256"],
        issuer: ISSUER,
        audience: AUDIENCE,
        requiredClaims: ["sub", "exp", "iat"],
        currentDate: this.now(),
      }));
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) {
        throw new AppError("unauthorized", "The access token has expired: ask for a new one.");
      }
      if (error instanceof joseErrors.JOSEError) {
        throw new AppError("unauthorized", "The access token is not valid.");
      }
      throw error;
    }
    const userId = Number(payload.sub);
    const storeClaim = payload["store_id"];
    const user = Number.isSafeInteger(userId)
      ? await findAdminUserById(this.pool, userId)
      : undefined;
    if (!user || user.disabledAt) {
      throw new AppError("unauthorized", "The access token's admin is no longer allowed in.");
    }
    const storeId = typeof storeClaim === "number" ? storeClaim : null;
    // A store admin's token is always for their store (a claim can only narrow, never widen).
    if (user.storeId !== null && storeId !== user.storeId) {
      throw new AppError("unauthorized", "The access token is not valid.");
    }
    return { userId, storeId };
  }
}
