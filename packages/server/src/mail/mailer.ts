import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import nodemailer, { type Transporter } from "nodemailer";
import type { Logger } from "pino";

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** BCP 47 tag of the message's language (Content-Language). */
  language: string;
}

export interface Mailer {
  /** Sends the message; rejects when the server refuses it or cannot be reached. */
  send(message: MailMessage): Promise<void>;
  close(): void;
}

export interface MailerOptions {
  /** `smtp://user:pass@host:587` or `smtps://…`; unset: messages are written to `outboxDir`. */
  url: string | undefined;
  from: string;
  outboxDir: string;
  logger: Logger;
}

/**
 * The SMTP connection of the URL: credentials percent-decoded, and short timeouts, so that a
 * server that does not answer fails the job (which the queue retries) instead of holding it.
 */
function smtpTransport(url: string): Transporter {
  const parsed = new URL(url);
  const secure = parsed.protocol === "smtps:";
  return nodemailer.createTransport({
    host: parsed.hostname,
    port: parsed.port ? Number(parsed.port) : secure ? 465 : 587,
    secure,
    auth: parsed.username
      ? {
          user: decodeURIComponent(parsed.username),
          pass: decodeURIComponent(parsed.password),
        }
      : undefined,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  });
}

/**
 * Sends email through SMTP (nodemailer). Without SMTP_URL (a laptop, the demo) each message is
 * written as an .eml file in the outbox directory instead, and the log says where: nothing is
 * sent by surprise, and a developer can open what would have been.
 */
export function createMailer(options: MailerOptions): Mailer {
  const { url, from, outboxDir, logger } = options;
  const mail = ({ language, ...message }: MailMessage) => ({
    from,
    ...message,
    headers: { "Content-Language": language },
  });
  if (url) {
    const transport = smtpTransport(url);
    return {
      send: async (message) => {
        await transport.sendMail(mail(message));
      },
      close: () => transport.close(),
    };
  }
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true });
  return {
    send: async (message) => {
      const info = await transport.sendMail(mail(message));
      await mkdir(outboxDir, { recursive: true });
      const file = path.join(
        outboxDir,
        `${Date.now()}-${info.messageId.replace(/[^\w.-]/g, "")}.eml`,
      );
      await writeFile(file, info.message as Buffer, { mode: 0o600 });
      logger.info({ file }, "SMTP_URL is not set: the email was written to a file instead");
    },
    close: () => transport.close(),
  };
}
