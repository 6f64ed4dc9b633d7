import { randomBytes } from "node:crypto";
import { rm } from "node:fs/promises";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { loadEmbeddedPostgres } from "../../src/db/embedded.js";
import { migrate } from "../../src/db/migrate.js";
import { createLogger } from "../../src/http/logger.js";
import { databaseUrl, dropAbandonedTestDatabases, testDatabaseName } from "./database.js";

declare module "vitest" {
  export interface ProvidedContext {
    adminDatabaseUrl: string;
    templateDatabase: string;
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * One PostgreSQL for the run: DATABASE_URL when set (CI), else an embedded server in a
 * temporary directory. The schema is migrated once into a template database; every test file
 * then gets its own copy of it (CREATE DATABASE ... TEMPLATE), so files never see each other.
 */
export default async function setup(project: TestProject) {
  let adminUrl = process.env["DATABASE_URL"];
  let embedded: InstanceType<Awaited<ReturnType<typeof loadEmbeddedPostgres>>> | undefined;
  const clusterDir = path.join(os.tmpdir(), `loyalty-test-pg-${randomBytes(6).toString("hex")}`);
  if (!adminUrl) {
    const port = await freePort();
    const EmbeddedPostgres = await loadEmbeddedPostgres();
    embedded = new EmbeddedPostgres({
      databaseDir: clusterDir,
      port,
      user: "postgres",
      password: "postgres",
      persistent: false,
      createPostgresUser: process.getuid?.() === 0,
      onLog: () => {},
      onError: () => {},
    });
    await embedded.initialise();
    await embedded.start();
    adminUrl = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
  }

  const template = testDatabaseName("loyalty_template");
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await dropAbandonedTestDatabases(admin);
  await admin.query(`CREATE DATABASE ${template}`);
  await admin.end();
  await migrate(databaseUrl(adminUrl, template), createLogger("silent"));

  project.provide("adminDatabaseUrl", adminUrl);
  project.provide("templateDatabase", template);

  return async () => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
    await client.end();
    if (embedded) {
      await embedded.stop();
      await rm(clusterDir, { recursive: true, force: true });
    }
  };
}
