import express from "express";

/** The yardstick: a bare Express 5 app, measured in the same run as ours. */
const app = express();
app.get("/", (_req, res) => {
  res.json({ ok: true });
});
const server = app.listen(Number(process.env["PORT"] ?? 0), "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === "object" && address ? address.port : ""}\n`);
});
