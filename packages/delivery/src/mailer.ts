import nodemailer from "nodemailer";
import type SMTPTransport from "nodemailer/lib/smtp-transport/index.js";
import { isLoopbackHost, type EmailAnswer } from "@rehook/core";

/** Sends alert emails (SMTP_URL): one plain-text message at a time. */
export interface Mailer {
  send(message: { to: string; subject: string; text: string }): Promise<EmailAnswer>;
  close(): void;
}

/** What an alert says when the mail server would have had the password in clear text. */
export const STARTTLS_REQUIRED =
  "the mail server offers no STARTTLS, and SMTP_URL's password is sent only over TLS (use smtps://, give the server STARTTLS, or, for a relay on this machine, set SMTP_ALLOW_PLAINTEXT_AUTH=true)";

/**
 * SMTP_URL as nodemailer's options, built from the URL's scheme, host, port and credentials
 * only. Nodemailer would read the URL's query as options (`?service=AOL` connects to
 * smtp.aol.com whatever the host says, `?ignoreTLS=true` skips STARTTLS): the configuration
 * refuses a query, and nothing of it is read here either. A URL with credentials always gets
 * TLS before AUTH: smtps: from the start, smtp: by STARTTLS, required (nodemailer's default is
 * to upgrade only when the server offers it, so a server, or anyone on the path, that leaves
 * STARTTLS out of its EHLO would receive the password in clear text). `allowPlaintextAuth`
 * (SMTP_ALLOW_PLAINTEXT_AUTH) keeps the opportunistic upgrade, and only when the host these
 * options connect to is this machine.
 */
export function smtpTransportOptions(url: string, allowPlaintextAuth: boolean): SMTPTransport.Options {
  const parsed = new URL(url);
  const host = parsed.hostname.replace(/^\[(.*)\]$/, "$1");
  const options: SMTPTransport.Options = { host, secure: parsed.protocol === "smtps:", tls: { rejectUnauthorized: true } };
  if (parsed.port !== "") options.port = Number(parsed.port);
  if (parsed.username !== "" || parsed.password !== "") options.auth = { user: decodeURIComponent(parsed.username), pass: decodeURIComponent(parsed.password) };
  const plaintextAllowed = allowPlaintextAuth && isLoopbackHost(host);
  const requireTLS = options.auth !== undefined && !options.secure && !plaintextAllowed;
  return requireTLS ? { ...options, requireTLS: true, ignoreTLS: false, opportunisticTLS: false } : options;
}

/**
 * The nodemailer transport of SMTP_URL, with a timeout on every stage. Its `transporter.options`
 * are what it connects with (tests check them: nodemailer merges well-known services into them).
 */
export function createSmtpTransport(options: { url: string; allowPlaintextAuth?: boolean; timeoutMs?: number }) {
  const timeout = options.timeoutMs ?? 10_000;
  return nodemailer.createTransport({
    ...smtpTransportOptions(options.url, options.allowPlaintextAuth ?? false),
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
  });
}

/**
 * A mailer over SMTP by nodemailer (a connection per message: alerts are paced to about one a
 * second per rule, and each team's mail is capped per hour).
 * Every stage has a timeout, so a mail server that stops answering fails the send instead of
 * holding the alert job.
 */
export function createSmtpMailer(options: { url: string; from: string; allowPlaintextAuth?: boolean; timeoutMs?: number }): Mailer {
  const transport = createSmtpTransport(options);
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
