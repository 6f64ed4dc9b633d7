import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { hostname } from "node:os";

export interface LoopbackListener {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** The same listener through the machine's name, which the system resolves to loopback. */
  namedUrl: string;
  /** TCP connections accepted, and requests received, so far. */
  connections: number;
  requests: number;
  /** Bytes written to responses, as far as the sockets took them. */
  bytesWritten: () => number;
  /**
   * Resolves when the connections that carried requests have closed (undici may open a spare
   * one that carries none, closed when idle).
   */
  requestsClosed: () => Promise<void>;
  close: () => Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 that counts what reaches it: a test that something was never
 * contacted checks `connections` is 0, not only `requests`.
 */
export async function loopbackListener(
  handle: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<LoopbackListener> {
  const closing = new WeakMap<Socket, Promise<void>>();
  const carried = new Set<Promise<void>>();
  let written = 0;
  const server = createServer((req, res) => {
    listener.requests += 1;
    const closed = closing.get(req.socket);
    if (closed) carried.add(closed);
    handle(req, res);
  });
  server.on("connection", (socket: Socket) => {
    listener.connections += 1;
    closing.set(
      socket,
      new Promise<void>((resolve) => {
        socket.once("close", () => {
          written += socket.bytesWritten;
          resolve();
        });
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const listener: LoopbackListener = {
    url: `http://127.0.0.1:${port}`,
    namedUrl: `http://${hostname()}:${port}`,
    connections: 0,
    requests: 0,
    bytesWritten: () => written,
    requestsClosed: async () => {
      await Promise.all([...carried]);
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  return listener;
}

/**
 * Answers with `totalBytes` of JSON-looking filler, made as it is sent and only as fast as the
 * client reads (so the test's own memory stays flat), with or without a Content-Length.
 */
export function streamFiller(
  res: ServerResponse,
  totalBytes: number,
  { announce }: { announce: boolean },
): void {
  const chunk = Buffer.alloc(64 * 1024, "a");
  res.writeHead(200, {
    "content-type": "application/json",
    ...(announce && { "content-length": String(totalBytes) }),
  });
  let sent = 0;
  const pump = () => {
    while (sent < totalBytes && !res.destroyed) {
      const part = chunk.subarray(0, Math.min(chunk.length, totalBytes - sent));
      sent += part.length;
      if (!res.write(part)) {
        res.once("drain", pump);
        return;
      }
    }
    if (!res.destroyed) res.end();
  };
  pump();
}
