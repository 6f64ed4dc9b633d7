import { connect, createServer, type Socket } from "node:net";
import getPort from "get-port";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  LISTENER_NAME,
  STORE_CHANGED_CHANNEL,
  StoreChangeListener,
  type StoreChanges,
  type StoreChangeSubscriber,
} from "../src/db/store-changes.js";
import { createLogger } from "../src/http/logger.js";
import {
  StorefrontCache,
  type StoreFinder,
  type StorefrontSection,
  type StoreSummary,
} from "../src/modules/storefront/storefront.cache.js";
import { createTestDatabase, type TestDatabase } from "./support/database.js";

/** A notification feed driven by hand. */
class FakeChanges implements StoreChanges {
  listening = true;
  readonly subscribers: StoreChangeSubscriber[] = [];
  subscribe(subscriber: StoreChangeSubscriber): void {
    this.subscribers.push(subscriber);
  }
  async barrier(): Promise<void> {}
  storeChanged(storeId: number): void {
    for (const subscriber of this.subscribers) subscriber.storeChanged(storeId);
  }
  everythingChanged(): void {
    for (const subscriber of this.subscribers) subscriber.everythingChanged();
  }
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A TCP relay to PostgreSQL that can go silent, as a dead network path does. */
async function frozenLink(target: URL) {
  const sockets = new Set<Socket>();
  const server = createServer((inbound) => {
    const outbound = connect(Number(target.port), target.hostname);
    for (const socket of [inbound, outbound]) {
      sockets.add(socket);
      socket.on("error", () => socket.destroy());
    }
    inbound.pipe(outbound);
    outbound.pipe(inbound);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as { port: number }).port,
    freeze: () => {
      for (const socket of sockets) {
        socket.unpipe();
        socket.pause();
      }
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const SHOP = {
  id: 1,
  domain: "https://shop.example",
  language: "fr",
  currency: "EUR",
  brandingColor: "#123456",
};
const OTHER = { ...SHOP, id: 2, domain: "https://other.example" };

/** Stores as the database has them (with the secret reference the cache must drop). */
function finder(stores = [SHOP, OTHER]) {
  const findByDomain = vi.fn((domain: string) =>
    Promise.resolve(
      stores
        .map((store) => ({ ...store, reference: "secret-ref" }))
        .find((store) => store.domain === domain.toLowerCase().replace(/\/+$/, "")),
    ),
  );
  return { findByDomain } satisfies StoreFinder;
}

/** A section whose content the test sets; counts its loads. */
function counterSection(initial = "v1") {
  const state = { content: initial };
  const load = vi.fn((store: StoreSummary) =>
    Promise.resolve({ value: `${store.id}:${state.content}`, version: state.content }),
  );
  const section: StorefrontSection<string> = { load };
  return { section, load, state };
}

describe("StorefrontCache", () => {
  it("answers a hit synchronously, without loading again", async () => {
    const stores = finder();
    const { section, load } = counterSection();
    const cache = new StorefrontCache(stores, new FakeChanges());
    const first = cache.section(SHOP.domain, section);
    expect(first).toBeInstanceOf(Promise);
    expect((await first)?.value).toBe("1:v1");

    const hit = cache.section(SHOP.domain, section);
    expect(hit).not.toBeInstanceOf(Promise);
    expect(hit).toMatchObject({ value: "1:v1", etag: expect.stringMatching(/^W\/"[\w-]+"$/) });
    expect(cache.store(SHOP.domain)).toEqual(SHOP);
    expect(stores.findByDomain).toHaveBeenCalledTimes(1);
    expect(load).toHaveBeenCalledTimes(1);
  });

  it("keeps the store summary only: the reference never enters the cache", async () => {
    const cache = new StorefrontCache(finder(), new FakeChanges());
    expect(await cache.store(SHOP.domain)).toStrictEqual(SHOP);
    expect(cache.store(SHOP.domain)).toStrictEqual(SHOP);
  });

  it("normalises the domain: case and trailing slash reach the same entry", async () => {
    const stores = finder();
    const cache = new StorefrontCache(stores, new FakeChanges());
    await cache.store(SHOP.domain);
    expect(cache.store("HTTPS://Shop.Example/")).toEqual(SHOP);
    expect(cache.store(" https://shop.example// ")).toEqual(SHOP);
    expect(stores.findByDomain).toHaveBeenCalledTimes(1);
  });

  it("shares one load between concurrent misses of a store and of a section", async () => {
    const stores = finder();
    const { section, load } = counterSection();
    const cache = new StorefrontCache(stores, new FakeChanges());
    // Twenty readers ask before the first load answers.
    const asked = Array.from({ length: 20 }, () => cache.section("https://Shop.example", section));
    const answers = await Promise.all(asked.map(async (answer) => answer));
    expect(new Set(answers.map((answer) => answer?.value))).toEqual(new Set(["1:v1"]));
    expect(stores.findByDomain).toHaveBeenCalledTimes(1);
    expect(load).toHaveBeenCalledTimes(1);
  });

  it("caches unknown domains, within a bound", async () => {
    const stores = finder();
    const cache = new StorefrontCache(stores, new FakeChanges(), 3);
    expect(await cache.store("https://nope-1.example")).toBeUndefined();
    expect(cache.store("https://nope-1.example")).toBeUndefined();
    expect(stores.findByDomain).toHaveBeenCalledTimes(1);

    for (const n of [2, 3, 4]) await cache.store(`https://nope-${n}.example`);
    expect(stores.findByDomain).toHaveBeenCalledTimes(4);
    // The oldest was evicted to make room for the fourth; the others are still known unknown.
    expect(cache.store("https://nope-4.example")).toBeUndefined();
    expect(cache.store("https://nope-2.example")).toBeUndefined();
    expect(cache.store("https://nope-1.example")).toBeInstanceOf(Promise);
  });

  it("forgets the changed store and the unknown domains, and keeps the other stores", async () => {
    const stores = finder();
    const changes = new FakeChanges();
    const { section, load } = counterSection();
    const cache = new StorefrontCache(stores, changes);
    await cache.section(SHOP.domain, section);
    await cache.section(OTHER.domain, section);
    await cache.store("https://new.example");

    changes.storeChanged(SHOP.id);
    expect(cache.section(OTHER.domain, section)).not.toBeInstanceOf(Promise);
    const reloaded = cache.section(SHOP.domain, section);
    expect(reloaded).toBeInstanceOf(Promise);
    await reloaded;
    expect(load).toHaveBeenCalledTimes(3);
    expect(cache.store("https://new.example")).toBeInstanceOf(Promise);

    changes.everythingChanged();
    expect(cache.section(OTHER.domain, section)).toBeInstanceOf(Promise);
  });

  it("does not keep what a load read before an invalidation that raced it", async () => {
    const stores = finder();
    const changes = new FakeChanges();
    const pending = deferred<{ value: string; version: string }>();
    const load = vi
      .fn<StorefrontSection<string>["load"]>()
      .mockReturnValueOnce(pending.promise)
      .mockResolvedValue({ value: "fresh", version: "2" });
    const section: StorefrontSection<string> = { load };
    const cache = new StorefrontCache(stores, changes);
    await cache.store(SHOP.domain);

    const racing = cache.section(SHOP.domain, section);
    changes.storeChanged(SHOP.id);
    // A reader arriving after the change does not join the load that began before it.
    const after = cache.section(SHOP.domain, section);
    pending.resolve({ value: "stale", version: "1" });
    expect((await racing)?.value).toBe("stale");
    expect((await after)?.value).toBe("fresh");
    expect(cache.section(SHOP.domain, section)).toMatchObject({ value: "fresh" });
  });

  it("does not keep a store read before an invalidation that raced it", async () => {
    const pending = deferred<StoreSummary | undefined>();
    const findByDomain = vi
      .fn<StoreFinder["findByDomain"]>()
      .mockReturnValueOnce(pending.promise)
      .mockResolvedValue({ ...SHOP, language: "de" });
    const changes = new FakeChanges();
    const cache = new StorefrontCache({ findByDomain }, changes);

    const racing = cache.store(SHOP.domain);
    changes.storeChanged(SHOP.id);
    pending.resolve(SHOP);
    expect(await racing).toEqual(SHOP);
    expect(await cache.store(SHOP.domain)).toMatchObject({ language: "de" });
    expect(cache.store(SHOP.domain)).toMatchObject({ language: "de" });
  });

  it("keeps what a load read while only other stores changed", async () => {
    const pendingStore = deferred<StoreSummary | undefined>();
    const pendingSection = deferred<{ value: string; version: string }>();
    const findByDomain = vi
      .fn<StoreFinder["findByDomain"]>()
      .mockReturnValueOnce(pendingStore.promise)
      .mockResolvedValueOnce(undefined);
    const load = vi
      .fn<StorefrontSection<string>["load"]>()
      .mockReturnValueOnce(pendingSection.promise);
    const changes = new FakeChanges();
    const cache = new StorefrontCache({ findByDomain }, changes);

    const racing = cache.store(SHOP.domain);
    changes.storeChanged(OTHER.id);
    pendingStore.resolve(SHOP);
    expect(await racing).toEqual(SHOP);
    const section: StorefrontSection<string> = { load };
    const loading = cache.section(SHOP.domain, section);
    changes.storeChanged(OTHER.id);
    pendingSection.resolve({ value: "kept", version: "1" });
    expect((await loading)?.value).toBe("kept");
    // Both are answered from memory now.
    expect(cache.store(SHOP.domain)).toEqual(SHOP);
    expect(cache.section(SHOP.domain, section)).toMatchObject({ value: "kept" });
    expect(findByDomain).toHaveBeenCalledTimes(1);
    expect(load).toHaveBeenCalledTimes(1);
  });

  it("does not keep an unknown domain read while any store changed: it may be the new one", async () => {
    const pending = deferred<StoreSummary | undefined>();
    const findByDomain = vi
      .fn<StoreFinder["findByDomain"]>()
      .mockReturnValueOnce(pending.promise)
      .mockResolvedValue(OTHER);
    const changes = new FakeChanges();
    const cache = new StorefrontCache({ findByDomain }, changes);
    const racing = cache.store(OTHER.domain);
    changes.storeChanged(OTHER.id);
    pending.resolve(undefined);
    expect(await racing).toBeUndefined();
    expect(await cache.store(OTHER.domain)).toEqual(OTHER);
  });

  it("does not cache a failed load", async () => {
    const findByDomain = vi
      .fn<StoreFinder["findByDomain"]>()
      .mockRejectedValueOnce(new Error("database down"))
      .mockResolvedValue(SHOP);
    const cache = new StorefrontCache({ findByDomain }, new FakeChanges());
    await expect(cache.store(SHOP.domain)).rejects.toThrow("database down");
    expect(await cache.store(SHOP.domain)).toEqual(SHOP);

    const load = vi
      .fn<StorefrontSection<string>["load"]>()
      .mockRejectedValueOnce(new Error("timeout"))
      .mockResolvedValue({ value: "ok", version: "1" });
    const section: StorefrontSection<string> = { load };
    await expect(cache.section(SHOP.domain, section)).rejects.toThrow("timeout");
    expect((await cache.section(SHOP.domain, section))?.value).toBe("ok");
  });

  it("reads the database on every call while notifications could be missed", async () => {
    const stores = finder();
    const changes = new FakeChanges();
    changes.listening = false;
    const { section, load, state } = counterSection();
    const cache = new StorefrontCache(stores, changes);
    expect((await cache.section(SHOP.domain, section))?.value).toBe("1:v1");
    state.content = "v2";
    expect((await cache.section(SHOP.domain, section))?.value).toBe("1:v2");
    expect(await cache.store("https://nope.example")).toBeUndefined();
    expect(cache.store("https://nope.example")).toBeInstanceOf(Promise);
    expect(load).toHaveBeenCalledTimes(2);

    changes.listening = true;
    await cache.section(SHOP.domain, section);
    expect(cache.section(SHOP.domain, section)).not.toBeInstanceOf(Promise);
  });

  it("tags a section by its content: the same in every process, new when it changes", async () => {
    const one = counterSection("rules-a");
    const two = counterSection("rules-a");
    const first = await new StorefrontCache(finder(), new FakeChanges()).section(
      SHOP.domain,
      one.section,
    );
    const changes = new FakeChanges();
    const second = new StorefrontCache(finder(), changes);
    expect((await second.section(SHOP.domain, two.section))?.etag).toBe(first?.etag);

    two.state.content = "rules-b";
    changes.storeChanged(SHOP.id);
    expect((await second.section(SHOP.domain, two.section))?.etag).not.toBe(first?.etag);
  });
});

describe("StoreChangeListener", () => {
  let database: TestDatabase;
  let admin: pg.Client;
  const logger = createLogger("silent");

  beforeAll(async () => {
    database = await createTestDatabase();
    admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin.end();
    await database.drop();
  });

  function recorder() {
    const heard: (number | "everything")[] = [];
    const subscriber: StoreChangeSubscriber = {
      storeChanged: (storeId) => heard.push(storeId),
      everythingChanged: () => heard.push("everything"),
    };
    return { heard, subscriber };
  }

  const listenerConnections = async () =>
    Number(
      (
        await admin.query<{ count: string }>(
          `SELECT count(*) FROM pg_stat_activity
           WHERE application_name = $1 AND datname = current_database()`,
          [LISTENER_NAME],
        )
      ).rows[0]?.count,
    );

  // Fake timers count what is left pending; sockets and PostgreSQL stay real.
  const fakeTimers = () =>
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval"] });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("hears the store id of a change, and a bare NOTIFY as a change of everything", async () => {
    const listener = new StoreChangeListener({ connectionString: database.url, logger });
    const { heard, subscriber } = recorder();
    listener.subscribe(subscriber);
    expect(listener.listening).toBe(false);
    await listener.start();
    expect(listener.listening).toBe(true);

    await admin.query(`SELECT pg_notify($1, '42')`, [STORE_CHANGED_CHANNEL]);
    await admin.query(`NOTIFY ${STORE_CHANGED_CHANNEL}`);
    // Listening starts with "everything": what was read before may have changed unheard.
    await vi.waitFor(() => expect(heard).toEqual(["everything", 42, "everything"]));
    await listener.stop();
  });

  it("hears both stores when a row moves between them, and everything on TRUNCATE", async () => {
    const listener = new StoreChangeListener({ connectionString: database.url, logger });
    const { heard, subscriber } = recorder();
    listener.subscribe(subscriber);
    await listener.start();
    const { rows } = await admin.query<{ id: string }>(
      `INSERT INTO stores (reference, domain) VALUES ('move-a', 'https://move-a.example'),
         ('move-b', 'https://move-b.example') RETURNING id`,
    );
    const [a, b] = rows.map((row) => Number(row.id));
    await admin.query(`INSERT INTO clubs (store_id, name, threshold) VALUES ($1, 'Gold', 100)`, [
      a,
    ]);
    await admin.query(`UPDATE clubs SET store_id = $2 WHERE store_id = $1`, [a, b]);
    await admin.query(`TRUNCATE widget_configurations`);
    await vi.waitFor(() => expect(heard).toEqual(["everything", a, b, a, a, b, "everything"]));
    await listener.stop();
  });

  it("answers a barrier once every listening process has heard what was committed before it", async () => {
    const writer = new StoreChangeListener({ connectionString: database.url, logger });
    const other = new StoreChangeListener({ connectionString: database.url, logger });
    const { heard, subscriber } = recorder();
    other.subscribe(subscriber);
    // A process of an earlier release listens without acknowledging barriers: not waited for.
    const earlier = new pg.Client({
      connectionString: database.url,
      application_name: "loyalty-store-changes",
    });
    await earlier.connect();
    await earlier.query(`LISTEN ${STORE_CHANGED_CHANNEL}`);
    await writer.start();
    await other.start();
    try {
      for (const storeId of [11, 12, 13]) {
        await admin.query(`SELECT pg_notify($1, $2)`, [STORE_CHANGED_CHANNEL, String(storeId)]);
        const started = Date.now();
        await writer.barrier();
        // Heard by the other process before the barrier answered, and without waiting it out.
        expect(heard).toContain(storeId);
        expect(Date.now() - started).toBeLessThan(1_000);
      }
    } finally {
      await earlier.end();
      await other.stop();
      await writer.stop();
    }
  });

  it("says everything may be stale when the connection drops, and listens again", async () => {
    const listener = new StoreChangeListener({
      connectionString: database.url,
      logger,
      minRetryDelayMs: 20,
      maxRetryDelayMs: 100,
    });
    const { heard, subscriber } = recorder();
    listener.subscribe(subscriber);
    await listener.start();

    await admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
       WHERE application_name = $1 AND datname = current_database()`,
      [LISTENER_NAME],
    );
    // Started, dropped, listening again: each time, memory may hold what changed unheard.
    await vi.waitFor(() => expect(heard).toEqual(["everything", "everything", "everything"]));
    await vi.waitFor(() => expect(listener.listening).toBe(true));
    await admin.query(`SELECT pg_notify($1, '7')`, [STORE_CHANGED_CHANNEL]);
    await vi.waitFor(() => expect(heard).toEqual(["everything", "everything", "everything", 7]));
    await listener.stop();
  });

  it("stops without leaving a connection or a timer behind", async () => {
    fakeTimers();
    const listener = new StoreChangeListener({
      connectionString: database.url,
      logger,
      heartbeatMs: 50,
    });
    await listener.start();
    expect(await listenerConnections()).toBe(1);
    await listener.stop();
    expect(listener.listening).toBe(false);
    expect(await listenerConnections()).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("starts while the database is unreachable, retries with backoff, and stops cleanly", async () => {
    // Before the fake timers: get-port keeps a timer of its own, which is not the listener's.
    const url = new URL(database.url);
    url.port = String(await getPort());
    fakeTimers();
    const lines: string[] = [];
    const listener = new StoreChangeListener({
      connectionString: url.toString(),
      logger: createLogger("warn", { write: (line: string) => void lines.push(line) }),
      minRetryDelayMs: 10,
      maxRetryDelayMs: 40,
    });
    await listener.start();
    expect(listener.listening).toBe(false);
    await vi.waitFor(() => expect(lines.length).toBeGreaterThanOrEqual(4));
    const delays = lines.map((line) => (JSON.parse(line) as { retryInMs: number }).retryInMs);
    expect(Math.max(...delays)).toBeLessThanOrEqual(40);
    expect(delays[0]).toBeLessThanOrEqual(10);
    expect(vi.getTimerCount()).toBe(1);
    await listener.stop();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("can be stopped while it connects", async () => {
    const listener = new StoreChangeListener({ connectionString: database.url, logger });
    const started = listener.start();
    await listener.stop();
    await started;
    expect(listener.listening).toBe(false);
    await vi.waitFor(async () => expect(await listenerConnections()).toBe(0));
  });

  it("probes the connection: one that silently stops answering is dropped", async () => {
    const link = await frozenLink(new URL(database.url));
    const url = new URL(database.url);
    url.port = String(link.port);
    const listener = new StoreChangeListener({
      connectionString: url.toString(),
      logger,
      heartbeatMs: 50,
      minRetryDelayMs: 60_000,
    });
    const { heard, subscriber } = recorder();
    listener.subscribe(subscriber);
    await listener.start();
    expect(listener.listening).toBe(true);
    // A firewall dropping the flow: no FIN, no RST, only silence, which TCP takes long to notice.
    link.freeze();
    await vi.waitFor(() => expect(heard).toEqual(["everything", "everything"]), {
      timeout: 10_000,
    });
    expect(listener.listening).toBe(false);
    await listener.stop();
    await link.close();
  });
});
