import { hostname } from "node:os";
import { createGzip } from "node:zlib";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { AppError } from "../src/errors.js";
import {
  MAX_RESPONSE_BYTES,
  Outbound,
  OutboundError,
  type OutboundRequest,
} from "../src/net/outbound.js";
import { refusePrivateHost } from "../src/net/private-hosts.js";
import { loopbackListener, streamFiller, type LoopbackListener } from "./support/loopback.js";

/**
 * The outbound module against real listeners on loopback, reached through real name
 * resolution (the machine's own name resolves to 127.0.0.1 here, as `localhost` does).
 */

const GET: OutboundRequest = { method: "GET", headers: {}, timeoutMs: 2_000 };
const MIB = 1024 * 1024;

const refusing = new Outbound();
const allowing = new Outbound({ allowPrivateUrls: true });
const listeners: LoopbackListener[] = [];
async function listener(...args: Parameters<typeof loopbackListener>) {
  const started = await loopbackListener(...args);
  listeners.push(started);
  return started;
}
afterEach(async () => {
  for (const started of listeners.splice(0)) await started.close();
});
afterAll(async () => {
  await refusing.close();
  await allowing.close();
});

async function failureOf(call: Promise<unknown>): Promise<OutboundError> {
  const error = await call.then(
    () => new Error("expected the request to fail"),
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(OutboundError);
  return error as OutboundError;
}

describe("a URL written as an address of the service's own network", () => {
  it.each([
    "http://[::127.0.0.1]/",
    "http://[::ffff:0:7f00:1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:0:a9fe:a9fe]/latest",
    "http://[64:ff9b::a9fe:a9fe]/latest",
    "http://224.0.0.1/",
    "http://[ff02::1]/",
    "http://255.255.255.255/",
    "http://0.0.0.0:8080/",
    "http://100.64.0.1/",
    "http://2130706433/",
    "http://localhost:3000/",
  ])("is refused when it is saved: %s", (url) => {
    let thrown: unknown;
    try {
      refusePrivateHost(url);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect(thrown).toMatchObject({
      reason: "validation-failed",
      issues: [{ pointer: "/url", code: "private_host" }],
    });
  });

  it.each([
    "http://93.184.216.34/",
    "http://[::ffff:93.184.216.34]/",
    "http://[64:ff9b::5db8:d822]/",
    "http://[2606:4700:4700::1111]/",
    "https://10.example/",
  ])("is accepted when it is the internet's: %s", (url) => {
    expect(() => refusePrivateHost(url)).not.toThrow();
  });
});

describe("connections to the service's own network", () => {
  it.each([
    ["the machine's name", (port: number) => `http://${hostname()}:${port}/`],
    ["the machine's name, over TLS", (port: number) => `https://${hostname()}:${port}/`],
    ["localhost", (port: number) => `http://localhost:${port}/`],
    ["127.0.0.1", (port: number) => `http://127.0.0.1:${port}/`],
    ["an IPv4-mapped address", (port: number) => `http://[::ffff:127.0.0.1]:${port}/`],
  ])("are refused before connecting, through %s", async (_name, urlFor) => {
    const internal = await listener((_req, res) => res.end("internal"));
    const port = Number(new URL(internal.url).port);
    const error = await failureOf(
      refusing.request(urlFor(port), { ...GET, method: "POST", body: "{}" }),
    );
    expect(error.failure).toBe("private-address");
    expect(error.message).toMatch(/127\.0\.0\.1|::ffff:7f00:1/);
    expect(error.message).toContain("ALLOW_PRIVATE_URLS");
    expect(internal.connections).toBe(0);
    expect(internal.requests).toBe(0);
  });

  it("are made when the operator allows private URLs", async () => {
    const internal = await listener((_req, res) => res.end("internal"));
    const response = await allowing.request(`${internal.namedUrl}/`, GET);
    expect(response).toMatchObject({ status: 200, text: "internal" });
    expect(internal.requests).toBe(1);
  });
});

describe("answers", () => {
  it("are read up to the cap, and not one byte more", async () => {
    const host = await listener((req, res) => {
      const size = MAX_RESPONSE_BYTES + (req.url === "/over" ? 1 : 0);
      res.end(Buffer.alloc(size, "b"));
    });
    const exact = await allowing.request(`${host.url}/exact`, GET);
    expect(exact.text).toHaveLength(MAX_RESPONSE_BYTES);
    const error = await failureOf(allowing.request(`${host.url}/over`, GET));
    expect(error.failure).toBe("too-large");
  });

  it.each([
    { announce: true, name: "announced by Content-Length" },
    { announce: false, name: "sent chunked" },
  ])(
    "larger than the cap fail early when $name, and the connection is closed",
    async ({ announce }) => {
      const host = await listener((_req, res) => streamFiller(res, 300 * MIB, { announce }));
      const started = Date.now();
      const error = await failureOf(allowing.request(host.url, { ...GET, timeoutMs: 10_000 }));
      expect(error.failure).toBe("too-large");
      expect(error.message).toContain(`${MAX_RESPONSE_BYTES} bytes`);
      await host.requestsClosed();
      expect(Date.now() - started).toBeLessThan(2_000);
      // What the platform managed to send before its connection was cut: socket buffers' worth.
      expect(host.bytesWritten()).toBeLessThan(32 * MIB);
    },
  );

  it("larger than the cap once decompressed fail too (a small gzip of a huge answer)", async () => {
    const host = await listener((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
      const gzip = createGzip();
      gzip.pipe(res);
      const zeros = Buffer.alloc(MIB, "0");
      let left = 300;
      const pump = () => {
        while (left > 0 && !res.destroyed) {
          left -= 1;
          if (!gzip.write(zeros)) {
            gzip.once("drain", pump);
            return;
          }
        }
        gzip.end();
      };
      res.on("close", () => gzip.destroy());
      pump();
    });
    const error = await failureOf(allowing.request(host.url, { ...GET, timeoutMs: 10_000 }));
    expect(error.failure).toBe("too-large");
  });

  it("to a webhook are not read at all", async () => {
    const host = await listener((_req, res) => streamFiller(res, 300 * MIB, { announce: false }));
    const response = await allowing.request(host.url, { ...GET, readBody: false });
    expect(response).toMatchObject({ status: 200, text: "" });
    await host.requestsClosed();
    expect(host.bytesWritten()).toBeLessThan(32 * MIB);
  });

  it("that redirect are returned as they are, and the redirect is not followed", async () => {
    const host = await listener((req, res) => {
      if (req.url === "/moved") res.writeHead(302, { location: "/target" }).end();
      else res.end("target");
    });
    const response = await allowing.request(`${host.url}/moved`, GET);
    expect(response.status).toBe(302);
    expect(host.requests).toBe(1);
  });

  it("that do not come in time, or come too slowly, time out", async () => {
    const host = await listener((req, res) => {
      if (req.url === "/silent") return;
      // The head at once, then a byte every 50 ms: never done, never idle for long.
      res.writeHead(200, { "content-type": "application/json" });
      const drip = setInterval(() => res.write(" "), 50);
      res.on("close", () => clearInterval(drip));
    });
    for (const path of ["/silent", "/drip"]) {
      const started = Date.now();
      const error = await failureOf(
        allowing.request(`${host.url}${path}`, { ...GET, timeoutMs: 300 }),
      );
      expect(error.failure).toBe("timeout");
      expect(error.message).toBe("no response within 300 ms");
      expect(Date.now() - started).toBeLessThan(1_500);
    }
  });

  it("that never come because nothing listens fail as unreachable", async () => {
    const closed = await listener(() => undefined);
    await closed.close();
    const error = await failureOf(allowing.request(closed.url, GET));
    expect(error.failure).toBe("unreachable");
    expect(error.message).toMatch(/ECONNREFUSED/);
  });
});
