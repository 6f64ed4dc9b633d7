import { createServer } from "node:http";
import express from "express";
import { createHttpServer } from "../src/http/server.js";

/**
 * The yardstick: a bare Express 5 app, measured in the same run as ours. With `HELLO_BORN=1`,
 * served as the server serves its app (src/http/server.ts: requests and responses born with
 * the prototypes Express would otherwise set on each), the floor left once that is spared.
 */
const app = express();
app.get("/", (_req, res) => {
  res.json({ ok: true });
});
const server =
  process.env["HELLO_BORN"] === "1"
    ? // Node's own defaults for the timeouts (the check for expired ones runs every second).
      createHttpServer(app, {
        headersTimeoutMs: 60_000,
        requestTimeoutMs: 300_000,
        keepAliveTimeoutMs: 5_000,
      })
    : createServer(app);
server.listen(Number(process.env["PORT"] ?? 0), "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === "object" && address ? address.port : ""}\n`);
});
