import pg from "pg";
import type { TestProject } from "vitest/node";
import { startThrowawayPostgres } from "../../src/db/embedded.js";
import { migrate } from "../../src/db/migrate.js";
import { createLogger } from "../../src/http/logger.js";
import { databaseUrl, dropAbandonedTestDatabases, testDatabaseName } from "./database.js";

declare module "vitest" {
  export interface ProvidedContext {
    adminDatabaseUrl: string;
    templateDatabase: string;
  }
}

/**
 * One PostgreSQL for the run: DATABASE_URL when set (CI), else an embedded server in a
 * temporary directory. The schema is migrated once into a template database; every test file
 * then gets its own copy of it (CREATE DATABASE ... TEMPLATE), so files never see each other.
 */
export default async function setup(project: TestProject) {
  const embedded = process.env["DATABASE_URL"]
    ? undefined
    : await startThrowawayPostgres("loyalty-test-pg");
  const adminUrl = embedded?.url ?? process.env["DATABASE_URL"];
  if (!adminUrl) throw new Error("no database for the tests");

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
    await embedded?.stop();
  };
}
