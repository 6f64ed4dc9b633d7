import type { AddressInfo } from "node:net";
import PostalMime, { type Email } from "postal-mime";
import { SMTPServer } from "smtp-server";

/** A real SMTP server on a local port, keeping every message it accepts, parsed. */
export interface TestSmtpServer {
  url: string;
  port: number;
  messages: (Email & { envelopeTo: string[] })[];
  close(): Promise<void>;
}

export async function startSmtpServer(port = 0): Promise<TestSmtpServer> {
  const messages: TestSmtpServer["messages"] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        PostalMime.parse(Buffer.concat(chunks)).then(
          (email) => {
            messages.push({
              ...email,
              envelopeTo: session.envelope.rcptTo.map((to) => to.address),
            });
            callback();
          },
          (error: Error) => callback(error),
        );
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const actual = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${actual}`,
    port: actual,
    messages,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
