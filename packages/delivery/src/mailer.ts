import nodemailer from "nodemailer";
import type SMTPTransport from "nodemailer/lib/smtp-transport/index.js";
import type { EmailAnswer } from "@rehook/core";

/** Sends alert emails (SMTP_URL): one plain-text message at a time. */
export interface Mailer {
  send(message: { to: string; subject: string; text: string }): Promise<EmailAnswer>;
  close(): void;
}

/**
 * A mailer over SMTP by nodemailer (a connection per message: alerts are paced to about one a
 * second per rule; STARTTLS when the server offers it).
 * Every stage has a timeout, so a mail server that stops answering fails the send instead of
 * holding the alert job.
 */
export function createSmtpMailer(options: { url: string; from: string; timeoutMs?: number }): Mailer {
  const timeout = options.timeoutMs ?? 10_000;
  const timeouts: SMTPTransport.Options = { connectionTimeout: timeout, greetingTimeout: timeout, socketTimeout: timeout };
  const transport = nodemailer.createTransport(options.url, timeouts);
  return {
    async send(message) {
      try {
        await transport.sendMail({ from: options.from, to: message.to, subject: message.subject, text: message.text, disableFileAccess: true, disableUrlAccess: true });
        return { sent: true };
      } catch (error) {
        const failure = error as { responseCode?: number; response?: string; message?: string };
        return { sent: false, responseCode: typeof failure.responseCode === "number" ? failure.responseCode : null, error: (failure.response ?? failure.message ?? String(error)).slice(0, 300) };
      }
    },
    close: () => transport.close(),
  };
}
