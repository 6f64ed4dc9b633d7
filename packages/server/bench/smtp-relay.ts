import { SMTPServer } from "smtp-server";

/**
 * The mail provider of `pnpm bench:jobs`: a real SMTP server that accepts every message and
 * keeps none. In production the provider is another machine; here it runs as a
 * process of its own, started below the API (niceness) as the worker is, so that what it costs
 * this machine is not charged to the API's latency.
 */
const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ["STARTTLS"],
  logger: false,
  onData(stream, _session, callback) {
    stream.on("data", () => {});
    stream.on("end", () => callback());
  },
});
server.listen(0, "127.0.0.1", () => {
  const address = server.server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  process.stdout.write(`smtp relay listening on port ${port}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
