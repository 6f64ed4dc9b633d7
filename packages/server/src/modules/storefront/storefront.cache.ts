import { createHash } from "node:crypto";
import { normalizeDomain } from "@loyalty/shared-types";
import {
  ChangeClock,
  type StoreChanges,
  type StoreChangeSubscriber,
} from "../../db/store-changes.js";
import type { StoreRow } from "../stores/stores.repository.js";

export type MaybePromise<T> = T | Promise<T>;

/** What storefront reads may know of a store: never its reference, half of the HMAC key. */
export type StoreSummary = Pick<
  StoreRow,
  "id" | "domain" | "language" | "currency" | "brandingColor"
>;

export interface StoreFinder {
  /** The store with this domain; look-ups normalise case and a trailing slash. */
  findByDomain(domain: string): Promise<StoreSummary | undefined>;
}

/**
 * Part of a store's data that storefront reads serve from memory, loaded on first use. A
 * module defines each of its sections once (a constant, or a field of its service): the
 * object itself is the section's key in the cache.
 */
export interface StorefrontSection<T> {
  /**
   * Reads the section from the database. `version` is text that changes whenever the content
   * does (a serialisation of it will do): the etag is its digest, the same in every process,
   * so a client bounced between processes by a load balancer still gets its 304s.
   */
  load(store: StoreSummary): Promise<{ value: T; version: string }>;
}

export interface CachedSection<T> {
  readonly value: T;
  /** Weak ETag of the section's content. */
  readonly etag: string;
}

interface StoreEntry {
  readonly store: StoreSummary;
  /** A section's content, or its load in flight, which concurrent readers share. */
  readonly sections: Map<StorefrontSection<unknown>, MaybePromise<CachedSection<unknown>>>;
}

function summaryOf(row: StoreSummary): StoreSummary {
  const { id, domain, language, currency, brandingColor } = row;
  return { id, domain, language, currency, brandingColor };
}

function cachedSection<T>(loaded: { value: T; version: string }): CachedSection<T> {
  const digest = createHash("sha1").update(loaded.version).digest("base64url");
  return { value: loaded.value, etag: `W/"${digest}"` };
}

/**
 * The storefront reads' memory of each store, by normalised domain: its summary and its
 * sections (attribution rules, rewards, widget configurations). A hit returns synchronously,
 * without touching the database; a miss returns a promise that concurrent misses share.
 *
 * It is kept in step by the store change notifications: a store's change forgets that store,
 * and while notifications could be missed every read goes to the database.
 */
export class StorefrontCache implements StoreChangeSubscriber {
  /** A load does not keep what it read when its store changed while it ran. */
  private readonly clock = new ChangeClock();
  private readonly entries = new Map<string, StoreEntry>();
  private readonly domainOfStore = new Map<number, string>();
  private readonly loadingStores = new Map<string, Promise<StoreEntry | undefined>>();
  /** Domains no store has, oldest first, bounded: made-up domains must not grow memory. */
  private readonly unknownDomains = new Set<string>();

  constructor(
    private readonly stores: StoreFinder,
    private readonly changes: StoreChanges,
    private readonly maxUnknownDomains = 10_000,
  ) {
    changes.subscribe(this);
  }

  /** The store with this domain; undefined when there is none. */
  store(domain: string): MaybePromise<StoreSummary | undefined> {
    if (!this.changes.listening) return this.readStore(domain);
    const entry = this.entry(domain);
    return entry instanceof Promise ? entry.then((loaded) => loaded?.store) : entry?.store;
  }

  /** A section of the store with this domain; undefined when no store has the domain. */
  section<T>(
    domain: string,
    section: StorefrontSection<T>,
  ): MaybePromise<CachedSection<T> | undefined> {
    if (!this.changes.listening) return this.readSection(domain, section);
    const entry = this.entry(domain);
    if (entry instanceof Promise) {
      return entry.then((loaded) => loaded && this.sectionOf(loaded, section));
    }
    return entry && this.sectionOf(entry, section);
  }

  storeChanged(storeId: number): void {
    this.clock.storeChanged(storeId);
    this.loadingStores.clear();
    // The change may be a new store, or a domain moved: any domain may now be known.
    this.unknownDomains.clear();
    const domain = this.domainOfStore.get(storeId);
    if (domain === undefined) return;
    this.domainOfStore.delete(storeId);
    this.entries.delete(domain);
  }

  everythingChanged(): void {
    this.clock.everythingChanged();
    this.loadingStores.clear();
    this.unknownDomains.clear();
    this.entries.clear();
    this.domainOfStore.clear();
  }

  private entry(domain: string): MaybePromise<StoreEntry | undefined> {
    // Storefronts send the domain as it was declared, normalised: skip normalising on a hit.
    const hit = this.entries.get(domain);
    if (hit) return hit;
    const key = normalizeDomain(domain);
    const entry = this.entries.get(key);
    if (entry) return entry;
    if (this.unknownDomains.has(key)) return undefined;
    return this.loadingStores.get(key) ?? this.loadStore(key);
  }

  private loadStore(key: string): Promise<StoreEntry | undefined> {
    const since = this.clock.now();
    const settled = () => {
      if (this.loadingStores.get(key) === loading) this.loadingStores.delete(key);
    };
    const loading = this.stores.findByDomain(key).then(
      (row) => {
        settled();
        const entry = row && { store: summaryOf(row), sections: new Map() };
        // A domain no store had may be anyone's after any change; a store only after its own.
        const current = entry
          ? this.clock.storeUnchangedSince(since, entry.store.id)
          : this.clock.nothingChangedSince(since);
        if (current) this.remember(key, entry);
        return entry;
      },
      (error: unknown) => {
        settled();
        throw error;
      },
    );
    this.loadingStores.set(key, loading);
    return loading;
  }

  private remember(key: string, entry: StoreEntry | undefined): void {
    if (entry) {
      this.entries.set(key, entry);
      this.domainOfStore.set(entry.store.id, key);
      return;
    }
    if (this.unknownDomains.size >= this.maxUnknownDomains) {
      const oldest = this.unknownDomains.values().next();
      if (!oldest.done) this.unknownDomains.delete(oldest.value);
    }
    this.unknownDomains.add(key);
  }

  private sectionOf<T>(
    entry: StoreEntry,
    section: StorefrontSection<T>,
  ): MaybePromise<CachedSection<T>> {
    const cached = entry.sections.get(section) as MaybePromise<CachedSection<T>> | undefined;
    return cached ?? this.loadSection(entry, section);
  }

  private loadSection<T>(
    entry: StoreEntry,
    section: StorefrontSection<T>,
  ): Promise<CachedSection<T>> {
    const since = this.clock.now();
    const forget = () => {
      if (entry.sections.get(section) === loading) entry.sections.delete(section);
    };
    const loading = section.load(entry.store).then(
      (loaded) => {
        const cached = cachedSection(loaded);
        if (this.clock.storeUnchangedSince(since, entry.store.id)) {
          entry.sections.set(section, cached);
        } else forget();
        return cached;
      },
      (error: unknown) => {
        forget();
        throw error;
      },
    );
    entry.sections.set(section, loading);
    return loading;
  }

  private async readStore(domain: string): Promise<StoreSummary | undefined> {
    const row = await this.stores.findByDomain(domain);
    return row && summaryOf(row);
  }

  private async readSection<T>(
    domain: string,
    section: StorefrontSection<T>,
  ): Promise<CachedSection<T> | undefined> {
    const store = await this.readStore(domain);
    return store && cachedSection(await section.load(store));
  }
}
