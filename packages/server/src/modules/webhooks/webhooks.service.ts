import { randomBytes } from "node:crypto";
import {
  createWebhookEndpointRequestSchema,
  WEBHOOK_EVENT_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  type CreateWebhookEndpointRequest,
  type EventType,
} from "@loyalty/shared-types";
import type pg from "pg";
import type { Logger } from "pino";
import type { Config } from "../../config.js";
import type { SecretBox } from "../../crypto/secrets.js";
import { withTransaction, type Queryable } from "../../db/pool.js";
import { AppError } from "../../errors.js";
import { type Outbound, OutboundError } from "../../net/outbound.js";
import { pageFetchSize, paged, pageStart, type PageRequest } from "../../http/paging.js";
import { refusePrivateHost } from "../../net/private-hosts.js";
import { parseRequest } from "../../http/validate.js";
import { enqueue } from "../../jobs/queue.js";
import {
  findDelivery,
  listDeliveries,
  scheduleRedelivery,
  type DeliveryRow,
  type DeliveryStatus,
} from "./webhook-deliveries.repository.js";
import {
  abandonDelivery,
  deactivateWebhookEndpoint,
  findDeliveryToAttempt,
  findWebhookEndpoint,
  insertWebhookEndpoint,
  listWebhookEndpoints,
  markDeliveryDelivered,
  recordFailedAttempt,
  type WebhookEndpointRow,
} from "./webhook-endpoints.repository.js";
import { signWebhook } from "./webhooks.signature.js";

const USER_AGENT = "Loyalty-Webhooks/1.0";
/** Past a few hours apart, attempts only add load on an endpoint that is down for long. */
const MAX_RETRY_DELAY_MS = 6 * 3600 * 1000;
const MAX_ERROR_LENGTH = 500;

/** The shared request, normalised as stored. */
const createWebhookEndpointInputSchema = createWebhookEndpointRequestSchema.transform(
  ({ url, events }) => ({
    // The scheme in lower case, as the table's check expects.
    url: new URL(url).href,
    // Empty: every event type, including those added later.
    events: [...new Set(events)],
  }),
);

export type DeliveryOutcome = "delivered" | "retry-scheduled" | "failed" | "skipped";

/** A page of an endpoint's delivery log, as the shared query schema parsed it. */
export interface DeliveriesPageRequest extends PageRequest {
  status?: DeliveryStatus | undefined;
}

/**
 * The job key of a delivery's next attempt: a retry, a redelivery and whatever runs either
 * twice name the same job, which is replaced rather than doubled while it waits.
 */
function attemptJobKey(deliveryId: number): string {
  return `webhook-delivery:${deliveryId}`;
}

/** A URL in an error message, which may carry credentials (user:password@) or a token. */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi;

/**
 * An error message with every URL cut to its scheme and host. The outbound module's messages
 * quote what fetch said, and fetch quotes a URL whole when it refuses one that holds
 * credentials: such a message would show them in the delivery log and in the service's.
 */
export function withoutUrlSecrets(message: string): string {
  return message.replace(URL_IN_TEXT, (text) => {
    try {
      const url = new URL(text);
      return `${url.protocol}//${url.host}`;
    } catch {
      return "[URL]";
    }
  });
}

/**
 * A delivery as the back-office may show it. Attempts cut URLs out of the errors they store;
 * errors stored before they did are cut here.
 */
function shown(delivery: DeliveryRow): DeliveryRow {
  const { lastError } = delivery;
  return { ...delivery, lastError: lastError === null ? null : withoutUrlSecrets(lastError) };
}

/** Binds an endpoint secret's ciphertext to its store: moved to another store, it does not decrypt. */
function sealContext(storeId: number): string {
  return `webhook_secret:${storeId}`;
}

/**
 * Milliseconds before the attempt following failed attempt number `attempt` (from 1): doubling
 * from the base, ±20 % so that endpoints failing together are not retried together, capped.
 */
export function retryDelayMs(attempt: number, baseMs: number, random = Math.random): number {
  const jitter = 0.8 + 0.4 * random();
  return Math.round(Math.min(MAX_RETRY_DELAY_MS, baseMs * 2 ** (attempt - 1) * jitter));
}

/** What is POSTed: the `webhookEventSchema` of shared-types, with the outbox payload as data. */
interface OutgoingEvent {
  id: string;
  type: EventType;
  createdAt: string;
  data: unknown;
}

type AttemptResult =
  { ok: true; statusCode: number } | { ok: false; statusCode: number | null; error: string };

export class WebhooksService {
  readonly #logger: Logger;

  constructor(
    private readonly pool: pg.Pool,
    private readonly secrets: SecretBox,
    private readonly options: Config["webhooks"],
    logger: Logger,
    /** The process's (built from ALLOW_PRIVATE_URLS); without one, private addresses are refused. */
    private readonly outbound: Outbound,
  ) {
    this.#logger = logger.child({ component: "webhooks" });
  }

  /**
   * Creates an endpoint with a new signing secret, returned here once: the store verifies
   * signatures with it, and no read shows it again. An endpoint on the service's own network
   * is refused unless `allowPrivateUrls` (the operator's choice): deliveries would probe it
   * and record how it answered.
   */
  async create(
    storeId: number,
    input: CreateWebhookEndpointRequest,
    {
      allowPrivateUrls = false,
      db = this.pool,
    }: { allowPrivateUrls?: boolean; db?: Queryable } = {},
  ): Promise<{ secret: string; endpoint: WebhookEndpointRow }> {
    const { url, events } = parseRequest(createWebhookEndpointInputSchema, input, "body");
    if (!allowPrivateUrls) refusePrivateHost(url);
    const secret = `whsec_${randomBytes(32).toString("base64url")}`;
    const endpoint = await insertWebhookEndpoint(db, {
      storeId,
      url,
      events,
      secret: this.secrets.encrypt(secret, sealContext(storeId)),
    });
    return { secret, endpoint };
  }

  async list(storeId: number): Promise<WebhookEndpointRow[]> {
    return listWebhookEndpoints(this.pool, storeId);
  }

  /** Stops new deliveries to the endpoint; those not yet made are given up. */
  async deactivate(storeId: number, endpointId: number): Promise<WebhookEndpointRow> {
    const endpoint = await deactivateWebhookEndpoint(this.pool, storeId, endpointId);
    if (!endpoint) {
      throw new AppError("not-found", `The store has no webhook endpoint ${endpointId}.`);
    }
    return endpoint;
  }

  /**
   * The endpoint's deliveries, newest first, one page at a time: also those of a deleted
   * endpoint, whose log stays readable.
   */
  async deliveries(
    storeId: number,
    endpointId: number,
    page: DeliveriesPageRequest,
  ): Promise<{ deliveries: DeliveryRow[]; nextCursor: string | null }> {
    const beforeId = pageStart(page.cursor);
    await this.#endpoint(storeId, endpointId);
    const fetched = await listDeliveries(this.pool, endpointId, {
      status: page.status ?? null,
      beforeId,
      limit: pageFetchSize(page.limit),
    });
    const { items, nextCursor } = paged(fetched, page.limit);
    return { deliveries: items.map(shown), nextCursor };
  }

  /**
   * Sends a delivery again now, whatever its status, under the event's id: a receiver that
   * saw it can tell. Delivered or given up, it becomes pending and is attempted at once; pending
   * with a retry scheduled later, that retry is brought forward. Pending and already due (its
   * first attempt, or a retry whose time has come, maybe under way) it is left as it is: a
   * second click never makes a second attempt run beside the first.
   *
   * The attempt counter counts every attempt ever made, and a delivery is still given up once
   * it reaches WEBHOOK_MAX_ATTEMPTS: a delivery that used them all gets this one attempt, one
   * that used fewer (delivered early) the retries it has left. A merchant who sends again by
   * hand sees the outcome, and clicks again if they must; an endpoint still down is not
   * retried for hours on their behalf.
   *
   * A deleted endpoint's deliveries are not sent again: its URL is no longer the store's.
   */
  async redeliver(storeId: number, endpointId: number, deliveryId: number): Promise<DeliveryRow> {
    const endpoint = await this.#endpoint(storeId, endpointId);
    if (!endpoint.active) {
      throw new AppError(
        "not-found",
        `The webhook endpoint ${endpointId} is deleted: its deliveries are not sent again.`,
      );
    }
    const { delivery, scheduled } = await withTransaction(this.pool, async (client) => {
      // The delivery due now and its job commit together, as a failed attempt and its retry do.
      const due = await scheduleRedelivery(client, endpointId, deliveryId);
      if (due) {
        await enqueue(
          client,
          "deliver-webhook",
          { deliveryId },
          { jobKey: attemptJobKey(deliveryId) },
        );
      }
      return { delivery: await findDelivery(client, endpointId, deliveryId), scheduled: due };
    });
    if (!delivery) {
      throw new AppError("not-found", `The webhook endpoint has no delivery ${deliveryId}.`);
    }
    this.#logger.info(
      { deliveryId, endpointId, eventId: delivery.eventId, scheduled },
      scheduled ? "webhook redelivery scheduled" : "webhook redelivery already due",
    );
    return shown(delivery);
  }

  async #endpoint(storeId: number, endpointId: number): Promise<WebhookEndpointRow> {
    const endpoint = await findWebhookEndpoint(this.pool, storeId, endpointId);
    if (!endpoint) {
      throw new AppError("not-found", `The store has no webhook endpoint ${endpointId}.`);
    }
    return endpoint;
  }

  /**
   * Makes one attempt of a delivery. An endpoint that fails or does not answer is not an error
   * of the job: the retry is scheduled here, on the job queue, with our own backoff. Anything
   * else (the database, the master key) throws, for the job queue to retry the job.
   */
  async deliver(deliveryId: number): Promise<DeliveryOutcome> {
    const delivery = await findDeliveryToAttempt(this.pool, deliveryId);
    if (!delivery) {
      // Its endpoint was deleted, and the delivery with it.
      this.#logger.warn({ deliveryId }, "webhook delivery not found");
      return "skipped";
    }
    if (delivery.status !== "pending") return "skipped";
    const context = { deliveryId, eventId: delivery.event.id, endpointId: delivery.endpoint.id };
    if (!delivery.endpoint.active) {
      await abandonDelivery(this.pool, deliveryId, "endpoint deactivated");
      this.#logger.info(context, "webhook delivery given up: endpoint deactivated");
      return "failed";
    }

    const secret = this.secrets.decrypt(
      delivery.endpoint.secret,
      sealContext(delivery.endpoint.storeId),
    );
    const event: OutgoingEvent = {
      id: `evt_${delivery.event.id}`,
      type: delivery.event.type,
      createdAt: delivery.event.createdAt.toISOString(),
      data: delivery.event.payload,
    };
    const result = await this.#post(delivery.endpoint.url, event, secret);
    const attempt = delivery.attempts + 1;

    if (result.ok) {
      await markDeliveryDelivered(this.pool, deliveryId, result.statusCode);
      this.#logger.info(
        { ...context, attempt, statusCode: result.statusCode },
        "webhook delivered",
      );
      return "delivered";
    }

    const giveUp = attempt >= this.options.maxAttempts;
    const nextAttemptAt = giveUp
      ? null
      : new Date(Date.now() + retryDelayMs(attempt, this.options.retryBaseMs));
    // The failure and the next attempt's job commit together: a crash cannot lose the retry.
    const recorded = await withTransaction(this.pool, async (client) => {
      const applied = await recordFailedAttempt(client, deliveryId, {
        previousAttempts: delivery.attempts,
        statusCode: result.statusCode,
        error: result.error,
        nextAttemptAt,
      });
      if (applied && nextAttemptAt) {
        await enqueue(
          client,
          "deliver-webhook",
          { deliveryId },
          // One pending retry per delivery, whatever runs this attempt twice.
          { runAt: nextAttemptAt, jobKey: attemptJobKey(deliveryId) },
        );
      }
      return applied;
    });
    const details = { ...context, attempt, statusCode: result.statusCode, error: result.error };
    if (!recorded) {
      this.#logger.warn(details, "webhook attempt not recorded: another attempt ran meanwhile");
      return "skipped";
    }
    if (giveUp) {
      this.#logger.error(details, `webhook delivery given up after ${attempt} attempts`);
      return "failed";
    }
    this.#logger.warn({ ...details, nextAttemptAt }, "webhook attempt failed; retry scheduled");
    return "retry-scheduled";
  }

  async #post(url: string, event: OutgoingEvent, secret: string): Promise<AttemptResult> {
    const body = JSON.stringify(event);
    const timestamp = Math.floor(Date.now() / 1000);
    try {
      const response = await this.outbound.request(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "user-agent": USER_AGENT,
          [WEBHOOK_EVENT_ID_HEADER]: event.id,
          [WEBHOOK_SIGNATURE_HEADER]: signWebhook(secret, body, timestamp),
        },
        body,
        timeoutMs: this.options.timeoutMs,
        // Only the status matters: the receiver's body is not read, whatever its size.
        readBody: false,
      });
      if (response.status >= 200 && response.status < 300) {
        return { ok: true, statusCode: response.status };
      }
      // The outbound module never follows a redirect: it would resend a signed event to a URL
      // the store never registered.
      const redirect = response.status >= 300 && response.status < 400;
      return {
        ok: false,
        statusCode: response.status,
        error: `HTTP ${response.status}${redirect ? " (redirects are not followed)" : ""}`,
      };
    } catch (error) {
      if (!(error instanceof OutboundError)) throw error;
      return {
        ok: false,
        statusCode: null,
        error: withoutUrlSecrets(error.message).slice(0, MAX_ERROR_LENGTH),
      };
    }
  }
}
