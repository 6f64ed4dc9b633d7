import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { freePort, loadEmbeddedPostgres } from "../../src/db/embedded.js";

/**
 * A PostgreSQL of a test's own (the embedded server, in a temporary directory) that the test
 * may stop and start again on the same port and data: the database going away under a running
 * app. startThrowawayPostgres deletes its files when stopped; this one keeps them until
 * destroyed.
 */
export interface RestartablePostgres {
  url: string;
  /** Fast shutdown (SIGINT): sessions are cut, new connections refused until start(). */
  stop(): Promise<void>;
  /** Starts it again on the same port and data directory; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops it (if running) and deletes its files. */
  destroy(): Promise<void>;
}

export async function startRestartablePostgres(name: string): Promise<RestartablePostgres> {
  const directory = await mkdtemp(path.join(os.tmpdir(), `${name}-`));
  const port = await freePort();
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const cluster = new EmbeddedPostgres({
    // The directory itself: it is handed to the postgres user when the tests run as root.
    databaseDir: directory,
    port,
    user: "postgres",
    password: "postgres",
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ["-c", "listen_addresses=127.0.0.1"],
    onLog: () => {},
    onError: () => {},
  });
  await cluster.initialise();
  await cluster.start();
  let running = true;
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    stop: async () => {
      if (!running) return;
      running = false;
      await cluster.stop();
    },
    start: async () => {
      if (running) return;
      await cluster.start();
      running = true;
    },
    destroy: async () => {
      if (running) await cluster.stop();
      running = false;
      await rm(directory, { recursive: true, force: true });
    },
  };
}
