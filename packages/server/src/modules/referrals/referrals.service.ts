import { createHash, randomBytes } from "node:crypto";
import {
  personNameSchema,
  referralProgramSchema,
  type CreateReferralRequest,
  type CreateReferralResponse,
  REFERRAL_LINK_PARAMETER,
  type RefereeCodeResponse,
  type ReferralOffer,
  type ReferralProgram,
  type ReferralProgramInput,
} from "@loyalty/shared-types";
import type pg from "pg";
import type { Logger } from "pino";
import type { Clock } from "../../clock.js";
import type { AuthenticatedStore } from "../../auth/auth.types.js";
import type { SecretBox } from "../../crypto/secrets.js";
import { withTransaction } from "../../db/pool.js";
import type { Queryable } from "../../db/pool.js";
import { AppError } from "../../errors.js";
import { parseRequest } from "../../http/validate.js";
import type { Mailer } from "../../mail/mailer.js";
import { ensureCustomer, findCustomerIdByEmail } from "../customers/customers.repository.js";
import { reviewClubs } from "../points/club-reviews.js";
import { appendLedgerEntries } from "../ledger/ledger.repository.js";
import { newDiscountCode } from "../platforms/discount-codes.js";
import { PlatformError } from "../platforms/platform.types.js";
import {
  failureMeasures,
  platformFailure,
  type PlatformsService,
} from "../platforms/platforms.service.js";
import { invitationEmail } from "./referral-email.js";
import {
  findInvitation,
  findReferralByDigest,
  findReferralProgram,
  findReferralStatus,
  insertReferral,
  markInvitationSent,
  lockBonusDue,
  markRefereeCodeIssued,
  saveReferralProgram,
} from "./referrals.repository.js";

const DAY_MS = 86_400_000;
/** The query parameter of the invitation's link that carries the referral hash. */

function digestOf(hash: string): Buffer {
  return createHash("sha256").update(hash, "utf8").digest();
}

/** Binds a referral hash's ciphertext to its store. */
/** The page an invitation links to: the programme's own, else the store's home page. */
function landingPage(landingUrl: string | null, storeDomain: string): string {
  return landingUrl ?? `${storeDomain}/`;
}

function sealContext(storeId: number): string {
  return `referral_hash:${storeId}`;
}

function selfReferral(): AppError {
  return new AppError("validation-failed", "A customer cannot refer their own address.", [
    {
      location: "body",
      pointer: "/email",
      message: "is the referrer's own address",
      code: "self_referral",
    },
  ]);
}

function refusalFor(status: "pending" | "completed"): AppError {
  return status === "pending"
    ? new AppError("referral-already-pending", "This address was already invited.")
    : new AppError("referral-already-completed", "This address was already referred.");
}

/**
 * Referrals: a customer invites an address (POST /point/referral), the invited person turns the
 * hash of the invitation into their discount code (POST /reward/referral/get-referee-code), and
 * the referral completes with their first order (see OrdersService), earning the referrer the
 * programme's bonus.
 */
export class ReferralsService {
  readonly #secrets: SecretBox;

  constructor(
    private readonly pool: pg.Pool,
    secrets: SecretBox,
    private readonly platforms: PlatformsService,
    private readonly mailer: Mailer,
    private readonly logger: Logger,
    /** When bonuses are earned, as every other earning (tests and libfaketime move it). */
    private readonly clock: Clock = () => new Date(),
  ) {
    this.#secrets = secrets;
  }

  /** Sets the store's referral programme; errors name the fields. */
  async saveProgram(
    storeId: number,
    input: ReferralProgramInput,
    db: Queryable = this.pool,
  ): Promise<void> {
    await saveReferralProgram(db, storeId, parseRequest(referralProgramSchema, input, "body"));
  }

  /** The store's referral programme; not-found while it has none. */
  async program(storeId: number): Promise<ReferralProgram> {
    const program = await findReferralProgram(this.pool, storeId);
    if (!program) throw new AppError("not-found", "The store has no referral programme yet.");
    return program;
  }

  /**
   * What the storefront tells a customer about inviting a friend: the points they earn and what
   * the friend gets. Null while the store has no programme or has paused it.
   */
  async offer(store: { id: number; domain: string }): Promise<ReferralOffer | null> {
    const program = await findReferralProgram(this.pool, store.id);
    if (!program?.active) return null;
    return {
      referrerBonus: program.referrerBonus,
      refereeVoucher: program.refereeVoucher,
      landingUrl: landingPage(program.landingUrl, store.domain),
    };
  }

  /**
   * Registers the referral and queues its invitation. Refused, in the spec's order, when the
   * address belongs to a customer (of the service or of the store's platform), when it has a
   * pending referral, when its referral completed. Nothing is written for a refusal.
   */
  async create(
    store: AuthenticatedStore,
    referrerExternalId: number,
    request: CreateReferralRequest,
  ): Promise<CreateReferralResponse> {
    const email = request.email.toLowerCase();
    const program = await findReferralProgram(this.pool, store.id);
    if (!program?.active) {
      throw new AppError("validation-failed", "This store runs no referral programme.");
    }
    const customerWithEmail = await findCustomerIdByEmail(this.pool, store.id, email);
    if (customerWithEmail !== undefined) {
      if (customerWithEmail === referrerExternalId) throw selfReferral();
      throw new AppError(
        "referral-customer-already-exists",
        "This address already belongs to a customer of the store.",
      );
    }
    await this.refuseCustomersOfThePlatform(store, referrerExternalId, email);
    const status = await findReferralStatus(this.pool, store.id, email);
    if (status) throw refusalFor(status);

    const hash = randomBytes(32).toString("base64url");
    await withTransaction(this.pool, async (tx) => {
      const referrer = await ensureCustomer(tx, store.id, referrerExternalId);
      if (referrer.email?.toLowerCase() === email) throw selfReferral();
      const id = await insertReferral(tx, {
        storeId: store.id,
        referrerCustomerId: referrer.id,
        email,
        firstName: request.firstName ?? null,
        lastName: request.lastName ?? null,
        language: request.language ?? null,
        hashDigest: digestOf(hash),
        hashSealed: this.#secrets.encrypt(hash, sealContext(store.id)),
        refereeCode: newDiscountCode(),
        referrerBonus: program.referrerBonus,
        refereeVoucher: program.refereeVoucher,
      });
      // Another invitation of the same address committed first: thrown inside the
      // transaction, so that the referrer's row made for this one is not kept either.
      if (id === undefined) {
        throw refusalFor((await findReferralStatus(tx, store.id, email)) ?? "pending");
      }
    });
    return { hash, status: "pending", email };
  }

  /**
   * The store's platform may know the address (a shopper who never ordered through the
   * programme). The referral operation has no platform errors: a platform that fails is
   * logged, and the service's own customers decide.
   */
  private async refuseCustomersOfThePlatform(
    store: AuthenticatedStore,
    referrerExternalId: number,
    email: string,
  ): Promise<void> {
    let found: { id: string } | null;
    try {
      const platform = await this.platforms.adapterFor(store);
      // The sandbox's customers are the service's own, already looked at.
      if (platform.kind === "sandbox") return;
      found = await platform.findCustomerByEmail(email);
    } catch (error) {
      if (!(error instanceof PlatformError)) throw error;
      this.logger.warn(
        { storeId: store.id, ...failureMeasures(error) },
        "referral check: the store's platform failed, only the service's customers were checked",
      );
      return;
    }
    if (!found) return;
    if (found.id === String(referrerExternalId)) throw selfReferral();
    throw new AppError(
      "referral-customer-already-exists",
      "This address already belongs to a customer of the store.",
    );
  }

  /**
   * The referee's code, made on the platform the first time it is asked for: the code text was
   * drawn with the referral, and platforms create it idempotently, so concurrent first requests
   * make one code and every request answers the same.
   */
  async refereeCode(hash: string): Promise<RefereeCodeResponse> {
    let referral = await findReferralByDigest(this.pool, digestOf(hash));
    if (!referral) throw new AppError("not-found", "No referral has this hash.");
    if (!referral.issuedAt) {
      const terms = referral.refereeVoucher;
      const expiresAt = terms.validityDays
        ? new Date(Date.now() + terms.validityDays * DAY_MS)
        : null;
      try {
        const platform = await this.platforms.adapterFor({
          id: referral.storeId,
          domain: referral.storeDomain,
        });
        await platform.createDiscountCode({
          code: referral.refereeCode,
          title: "Referral welcome offer",
          terms,
          customer: { externalId: null, email: referral.email },
          startsAt: new Date(),
          expiresAt,
        });
      } catch (error) {
        if (error instanceof PlatformError) {
          throw platformFailure(error, this.logger, {
            storeId: referral.storeId,
            referralId: referral.id,
          });
        }
        throw error;
      }
      referral = await markRefereeCodeIssued(this.pool, referral.id, expiresAt);
    }
    return {
      code: referral.refereeCode,
      voucher: referral.refereeVoucher,
      expiresAt: referral.expiresAt?.toISOString() ?? null,
    };
  }

  /** Credits the referrer's bonus of a completed referral (the job its completion queued). */
  async creditBonus(referralId: number): Promise<void> {
    await withTransaction(this.pool, async (tx) => {
      const due = await lockBonusDue(tx, referralId);
      if (!due) return;
      const now = this.clock();
      await appendLedgerEntries(
        tx,
        [
          {
            storeId: due.storeId,
            customerId: due.referrerCustomerId,
            kind: "referral_bonus",
            points: due.referrerBonus,
            referralId,
          },
        ],
        now,
      );
      await reviewClubs(tx, due.storeId, [due.referrerCustomerId], now);
    });
  }

  /**
   * Sends a referral's invitation (the job queued with it). A failure throws: the job queue
   * retries it with backoff, so an SMTP server that is down delays the invitation, no more.
   * Sent at least once: a crash between the sending and its record sends it again.
   */
  async sendInvitation(referralId: number): Promise<void> {
    const invitation = await findInvitation(this.pool, referralId);
    if (!invitation || invitation.sentAt || !invitation.hashSealed) return;
    const hash = this.#secrets.decrypt(invitation.hashSealed, sealContext(invitation.storeId));
    const link = new URL(landingPage(invitation.landingUrl, invitation.storeDomain));
    link.searchParams.set(REFERRAL_LINK_PARAMETER, hash);
    await this.mailer.send(
      invitationEmail({
        language: invitation.language ?? invitation.storeLanguage,
        to: invitation.email,
        storeName: invitation.storeName || new URL(invitation.storeDomain).host,
        // The first name only: the invited person learns who invites them, no more. A name
        // that is no name (the store's platform took anything) is left out.
        referrerName: personNameSchema.safeParse(invitation.referrerFirstName).data ?? null,
        refereeFirstName: invitation.firstName,
        terms: invitation.refereeVoucher,
        link: link.href,
      }),
    );
    await markInvitationSent(this.pool, referralId);
    this.logger.info({ referralId, storeId: invitation.storeId }, "referral invitation sent");
  }
}
