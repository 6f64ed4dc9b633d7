import type pg from "pg";
import { decodeCursor, encodeCursor, type PageRequest } from "../../http/paging.js";
import type { Clock } from "../../clock.js";
import { earnedLast12Months, NO_FIGURES } from "../points/club-reviews.js";
import { clubStanding, periodStart, type Club } from "../points/clubs.js";
import { DEFAULT_CLUB_POLICY } from "@loyalty/shared-types";
import { listClubs } from "../points/points.repository.js";
import type { StorefrontCache, StorefrontSection } from "../storefront/storefront.cache.js";
import type { ClubPolicy, LedgerKind, ProgramSettings } from "@loyalty/shared-types";
import { nextExpiry } from "../program/expiry.repository.js";
import { findProgramSettings } from "../program/program.repository.js";
import { Batcher } from "../../db/batcher.js";
import {
  latestOverdraft,
  storefrontHistoryPages,
  type StorefrontHistoryPage,
  type StorefrontPageQuery,
} from "./customers.repository.js";

/** An account page to read, with the club policy and the instant its figures are taken at. */
interface PageRead {
  query: StorefrontPageQuery;
  policy: ClubPolicy;
  now: Date;
}

/** A page as read, and the instant of its group: the one its whole account page is given at. */
interface PageAt {
  page: StorefrontHistoryPage | undefined;
  at: Date;
}

/**
 * Reads account pages in groups: under load, the pages asked for while others are being read
 * go together in one statement (one per club policy among them), rather than a statement each.
 * Each statement's own cost in PostgreSQL (its protocol, snapshot, plan and executor) and in
 * node-postgres was most of a page's. At low load a group is one page, read at once. A group's
 * figures are taken at the latest instant of its reads, milliseconds apart: as of the
 * statement's snapshot, as each page's rows are. Each page comes back with that instant, at
 * which the rest of its account page is computed too (where a period starts, the standing,
 * the next expiry), so that at a period's boundary a page never mixes the two sides.
 */
async function readPages(pool: pg.Pool, reads: PageRead[]): Promise<PageAt[]> {
  const groups = new Map<string, number[]>();
  reads.forEach((read, index) => {
    const key = JSON.stringify(read.policy);
    const group = groups.get(key);
    if (group) group.push(index);
    else groups.set(key, [index]);
  });
  const pages: PageAt[] = reads.map((read) => ({ page: undefined, at: read.now }));
  await Promise.all(
    [...groups.values()].map(async (indexes) => {
      const group = indexes.map((index) => reads[index] as PageRead);
      const now = new Date(Math.max(...group.map((read) => read.now.getTime())));
      const found = await storefrontHistoryPages(
        pool,
        group.map((read) => read.query),
        { policy: (group[0] as PageRead).policy, now },
      );
      indexes.forEach((index, position) => (pages[index] = { page: found[position], at: now }));
    }),
  );
  return pages;
}

/** Where a customer stands for clubs, as the history and the back-office report it. */
export interface ClubQualificationFigures {
  policy: ClubPolicy;
  figure: number;
  periodStart: Date | null;
  keptUntil: Date | null;
}

/** A customer's account as the history shows it, in every revision (see customers.views). */
export interface CustomerHistory {
  externalId: number;
  balance: number;
  availablePoints: number;
  pendingPoints: number;
  /** When the spendable points are below zero: by how much, and the transaction that did it. */
  negativeBalance: { points: number; transactionId: number; kind: LedgerKind } | null;
  /** The next points to expire under the store's policy, and when. */
  nextExpiry: { points: number; expiresAt: Date } | null;
  earnedLast12Months: number;
  club: Club | null;
  nextClub: (Club & { pointsToReach: number }) | null;
  clubQualification: ClubQualificationFigures;
  /** One page, newest first: the JSON array the history answers with (storefrontHistoryPages). */
  transactionsJson: string;
  nextCursor: string | null;
}

/** GET /point/user-history/{externalId}: what a customer's account page shows. */
export class CustomersService {
  /** A store's clubs change rarely and every account page needs them: kept with its rules. */
  private readonly clubs: StorefrontSection<Club[]>;
  /** The expiry policy the history reports on, kept the same way. */
  private readonly settings: StorefrontSection<ProgramSettings>;

  private readonly pages: Batcher<PageRead, PageAt>;

  constructor(
    private readonly pool: pg.Pool,
    /** Clubs are measured over the 12 months before now. */
    private readonly clock: Clock,
    private readonly storefront: StorefrontCache,
  ) {
    this.pages = new Batcher((reads) => readPages(pool, reads), { maxBatch: 50, maxInFlight: 2 });
    this.clubs = {
      load: async (store) => {
        const clubs = await listClubs(pool, store.id);
        return { value: clubs, version: JSON.stringify(clubs) };
      },
    };
    this.settings = {
      load: async (store) => {
        const settings = await findProgramSettings(pool, store.id);
        return { value: settings, version: JSON.stringify(settings) };
      },
    };
  }

  /**
   * The customer's balance, one page of transactions (newest first) and club standing. A
   * customer the store has never seen stands at 0 points with no transactions: the storefront
   * may show any signed-in shopper their account before a first order, and a GET never writes.
   */
  async history(
    store: { id: number; domain: string },
    externalId: number,
    page: PageRequest,
    /** The revision names orders by `externalRef` (2026-01-01). */
    legacyOrderRef: boolean,
  ): Promise<CustomerHistory> {
    const requestedAt = this.clock();
    const beforeId = page.cursor === undefined ? null : decodeCursor(page.cursor);
    const [cachedClubs, cachedSettings] = await Promise.all([
      this.storefront.section(store.domain, this.clubs),
      this.storefront.section(store.domain, this.settings),
    ]);
    const policy = cachedSettings?.value.clubs ?? DEFAULT_CLUB_POLICY;
    // The page and the club figures in one statement: both are on every account page. The
    // rest is computed at the instant they were read at (see readPages).
    const { page: found, at: now } = await this.pages.write({
      query: {
        storeId: store.id,
        externalId,
        beforeId: beforeId ?? null,
        // A cursor we did not issue names no place in the list. Reading it as the end (rather
        // than starting over) cannot keep a client paging forever, and this operation has no
        // error to answer with: the page is empty, the balance and club are still given.
        limit: beforeId === undefined ? 0 : page.limit,
        legacyOrderRef,
      },
      policy,
      now: requestedAt,
    });
    const figures = found?.figures ?? NO_FIGURES;
    const ids = found ? [found.customer.id] : [];
    const earned = found
      ? ((
          await earnedLast12Months(
            this.pool,
            policy,
            new Map([[found.customer.id, figures]]),
            ids,
            now,
          )
        ).get(found.customer.id) ?? 0)
      : 0;
    const { club, next, keptUntil } = clubStanding(
      cachedClubs?.value ?? [],
      policy,
      found?.customer.held ?? { clubId: null, keptUntil: null },
      figures,
      now,
    );
    const balance = found?.customer.balance ?? 0;
    const pendingPoints = found?.customer.pendingPoints ?? 0;
    const availablePoints = balance - pendingPoints;
    const overdraft =
      found && availablePoints < 0
        ? await latestOverdraft(this.pool, found.customer.id)
        : undefined;
    const expiry = cachedSettings?.value.expiry;
    const expiring =
      found && expiry && expiry.mode !== "off"
        ? await nextExpiry(this.pool, found.customer.id, expiry, now)
        : undefined;
    return {
      externalId,
      balance,
      availablePoints,
      pendingPoints,
      negativeBalance: overdraft ? { points: -availablePoints, ...overdraft } : null,
      nextExpiry: expiring ?? null,
      earnedLast12Months: earned,
      club,
      nextClub: next && { ...next, pointsToReach: next.toReach },
      clubQualification: {
        policy,
        figure: figures.current,
        periodStart: periodStart(policy.period, now),
        keptUntil,
      },
      transactionsJson: found?.transactionsJson ?? "[]",
      nextCursor: found?.nextBeforeId ? encodeCursor(found.nextBeforeId) : null,
    };
  }
}
