import { readFileSync } from "node:fs";
import os from "node:os";
import type { Socket } from "node:net";
import type pg from "pg";
import type { Logger } from "pino";

/**
 * A process run below the others (`nice -n 10 loyalty worker`) takes its PostgreSQL sessions
 * down with it. The programme's batch jobs spend their time in PostgreSQL, not in the worker:
 * a niced worker alone would leave its backends level with the API's own sessions (claims,
 * registrations, histories) on PostgreSQL's CPUs. It does not shield what shares those CPUs from
 * PostgreSQL's work as a whole: docs/operators.md says what does (CPUs of their own).
 *
 * Each new connection's backend (its process id, from the connection's own handshake) is set to
 * this process's niceness when it runs on this machine: the connection must be to a loopback
 * address or a Unix socket, and the backend's process title, read from /proc, must name it (its
 * client's port, `(<our port>)`, or `[local]` for a Unix socket). Anything else (PostgreSQL
 * reached by another address, on another machine or in another container, a pooler in between,
 * titles turned off) is left alone. Lowering a process's priority needs the same user as
 * PostgreSQL's, or root: when refused, the process says so once and goes on.
 *
 * A process at niceness 0 (the default) does nothing here.
 */
export function sessionsFollowNiceness(pool: pg.Pool, logger: Logger): void {
  pool.on("connect", (client) => {
    const niceness = os.getPriority();
    if (niceness <= 0) return;
    const outcome = lowerBackend(client, niceness);
    if (reported.has(outcome.kind)) return;
    reported.add(outcome.kind);
    if (outcome.kind === "lowered") {
      logger.info({ niceness }, "database sessions run at this process's niceness");
    } else if (outcome.kind === "refused") {
      logger.warn(
        { niceness, err: outcome.error },
        "this process runs below others, but PostgreSQL's sessions cannot be lowered with it: " +
          "run PostgreSQL as this process's user, or the workers on a machine of their own",
      );
    }
  });
}

type Outcome = { kind: "lowered" } | { kind: "elsewhere" } | { kind: "refused"; error: unknown };

/** What this process reported already: once per kind of outcome. */
const reported = new Set<Outcome["kind"]>();

function lowerBackend(client: pg.PoolClient, niceness: number): Outcome {
  const pid = (client as unknown as { processID: number | null }).processID;
  const stream = (client as unknown as { connection?: { stream?: Socket } }).connection?.stream;
  if (!pid || !stream) return { kind: "elsewhere" };
  let title: string;
  try {
    title = readFileSync(`/proc/${pid}/cmdline`, "utf8");
  } catch {
    return { kind: "elsewhere" };
  }
  // A TCP backend's title names its client's address and port; a Unix socket's says [local].
  const host = (client as unknown as { host?: string }).host ?? "";
  const ours = host.startsWith("/")
    ? title.includes(" [local] ")
    : isLoopback(stream.remoteAddress ?? "") && title.includes(`(${stream.localPort}) `);
  if (!title.startsWith("postgres: ") || !ours) return { kind: "elsewhere" };
  try {
    if (os.getPriority(pid) < niceness) os.setPriority(pid, niceness);
    return { kind: "lowered" };
  } catch (error) {
    // Refused (another user's process); a backend already gone is nothing to lower.
    const code = (error as NodeJS.ErrnoException).code;
    return code === "EPERM" || code === "EACCES"
      ? { kind: "refused", error }
      : { kind: "elsewhere" };
  }
}

function isLoopback(address: string): boolean {
  return address === "::1" || address.startsWith("127.") || address.startsWith("::ffff:127.");
}
