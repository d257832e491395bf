import nodemailer from "nodemailer";
import { parseConnectionUrl } from "nodemailer/lib/shared/index.js";
import type SMTPTransport from "nodemailer/lib/smtp-transport/index.js";
import type { EmailAnswer } from "@rehook/core";

/** Sends alert emails (SMTP_URL): one plain-text message at a time. */
export interface Mailer {
  send(message: { to: string; subject: string; text: string }): Promise<EmailAnswer>;
  close(): void;
}

/** What an alert says when the mail server would have had the password in clear text. */
export const STARTTLS_REQUIRED =
  "the mail server offers no STARTTLS, and SMTP_URL's password is sent only over TLS (use smtps://, give the server STARTTLS, or, for a relay on this machine, set SMTP_ALLOW_PLAINTEXT_AUTH=true)";

/**
 * SMTP_URL as nodemailer's options. A URL with credentials always gets TLS before AUTH:
 * smtps: from the start, smtp: by STARTTLS, required (nodemailer's default is to upgrade only
 * when the server offers it, so a server, or anyone on the path, that leaves STARTTLS out of
 * its EHLO would receive the password in clear text). The URL is parsed here rather than
 * handed over, because nodemailer lets a URL's query (`?requireTLS=false`) override the
 * options it is given. `allowPlaintextAuth` (SMTP_ALLOW_PLAINTEXT_AUTH, loopback relays only:
 * the configuration refuses it for another host) keeps the opportunistic upgrade.
 */
export function smtpTransportOptions(url: string, allowPlaintextAuth: boolean): SMTPTransport.Options {
  const options = parseConnectionUrl(url) as SMTPTransport.Options;
  const requireTLS = options.auth !== undefined && !options.secure && !allowPlaintextAuth;
  return requireTLS ? { ...options, requireTLS: true, ignoreTLS: false, opportunisticTLS: false } : options;
}

/**
 * A mailer over SMTP by nodemailer (a connection per message: alerts are paced to about one a
 * second per rule, and each team's mail is capped per hour).
 * Every stage has a timeout, so a mail server that stops answering fails the send instead of
 * holding the alert job.
 */
export function createSmtpMailer(options: { url: string; from: string; allowPlaintextAuth?: boolean; timeoutMs?: number }): Mailer {
  const timeout = options.timeoutMs ?? 10_000;
  const transport = nodemailer.createTransport({
    ...smtpTransportOptions(options.url, options.allowPlaintextAuth ?? false),
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
  });
  return {
    async send(message) {
      try {
        await transport.sendMail({ from: options.from, to: message.to, subject: message.subject, text: message.text, disableFileAccess: true, disableUrlAccess: true });
        return { sent: true };
      } catch (error) {
        const failure = error as { code?: string; command?: string; responseCode?: number; response?: string; message?: string };
        // The server refused STARTTLS (it answered the command): nothing was sent after it. Retried
        // like a connection failure: the operator's fix is on the server or in SMTP_URL.
        if (failure.code === "ETLS" && failure.command === "STARTTLS" && failure.response) return { sent: false, responseCode: null, error: STARTTLS_REQUIRED };
        return { sent: false, responseCode: typeof failure.responseCode === "number" ? failure.responseCode : null, error: (failure.response ?? failure.message ?? String(error)).slice(0, 300) };
      }
    },
    close: () => transport.close(),
  };
}
