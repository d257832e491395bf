import { createServer, connect, type Server, type AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SMTPServer } from "smtp-server";
import { loadConfig } from "@rehook/core";
import { createSmtpMailer, createSmtpTransport, smtpTransportOptions, STARTTLS_REQUIRED } from "@rehook/delivery";

// SMTP_URL's password over a real SMTP server on loopback that offers AUTH without STARTTLS
// (as a misconfigured server, or anyone on the path who strips STARTTLS from EHLO, would). A
// recording relay in front keeps every byte the client sent: the password must not be among
// them unless SMTP_ALLOW_PLAINTEXT_AUTH says so (loopback only).

const PASSWORD = "s3cret-smtp-password";
const logins: Array<{ username: string; password: string }> = [];
const delivered: string[][] = [];
/** What clients sent, per connection, through the recording relay. */
const sent: Buffer[] = [];

let smtp: SMTPServer;
let relay: Server;
let port = 0;

beforeAll(async () => {
  smtp = new SMTPServer({
    disabledCommands: ["STARTTLS"],
    authOptional: true,
    allowInsecureAuth: true,
    authMethods: ["PLAIN", "LOGIN"],
    onAuth(auth, _session, callback) {
      logins.push({ username: auth.username ?? "", password: auth.password ?? "" });
      callback(null, { user: auth.username });
    },
    onData(stream, session, callback) {
      stream.resume();
      stream.on("end", () => {
        delivered.push(session.envelope.rcptTo.map((rcpt) => rcpt.address));
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
  const smtpPort = (smtp.server.address() as AddressInfo).port;
  relay = createServer((client) => {
    const chunks: Buffer[] = [];
    const upstream = connect(smtpPort, "127.0.0.1");
    client.on("data", (chunk: Buffer) => chunks.push(chunk));
    client.on("close", () => sent.push(Buffer.concat(chunks)));
    client.pipe(upstream).pipe(client);
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
  });
  await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
  port = (relay.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((resolve) => relay.close(() => resolve()));
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});

/** Every way the password could have crossed: as typed, and base64 in AUTH PLAIN or LOGIN. */
function carriesPassword(bytes: Buffer): boolean {
  const text = bytes.toString("latin1");
  const secrets = [PASSWORD, Buffer.from(PASSWORD).toString("base64"), Buffer.from(`\0alerts\0${PASSWORD}`).toString("base64")];
  return secrets.some((secret) => text.includes(secret));
}

const message = (to: string) => ({ to, subject: "[Rehook] test", text: "hello" });

describe("SMTP credentials need TLS", () => {
  it("refuses to log in to a server without STARTTLS: the password is never sent, and the alert says why", async () => {
    const before = sent.length;
    // A query that asks nodemailer not to require TLS changes nothing either (the configuration refuses it; the mailer ignores it).
    for (const url of [`smtp://alerts:${PASSWORD}@127.0.0.1:${port}`, `smtp://alerts:${PASSWORD}@127.0.0.1:${port}/?requireTLS=false&ignoreTLS=true`]) {
      const mailer = createSmtpMailer({ url, from: "rehook@rehook.test", timeoutMs: 5_000 });
      try {
        expect(await mailer.send(message("ops@example.com"))).toEqual({ sent: false, responseCode: null, error: STARTTLS_REQUIRED });
      } finally {
        mailer.close();
      }
    }
    await expect.poll(() => sent.length).toBe(before + 2);
    for (const bytes of sent.slice(before)) {
      expect(bytes.toString("latin1")).toMatch(/^EHLO /);
      expect(bytes.toString("latin1")).not.toMatch(/^AUTH /m);
      expect(carriesPassword(bytes)).toBe(false);
    }
    expect(logins).toEqual([]);
    expect(delivered).toEqual([]);
  });

  it("with SMTP_ALLOW_PLAINTEXT_AUTH=true for a relay on loopback, logs in without TLS and sends", async () => {
    const config = loadConfig({ SMTP_URL: `smtp://alerts:${PASSWORD}@127.0.0.1:${port}`, SMTP_ALLOW_PLAINTEXT_AUTH: "true" }, "/d");
    expect(config.smtp).toMatchObject({ allowPlaintextAuth: true });
    const mailer = createSmtpMailer({ ...config.smtp!, timeoutMs: 5_000 });
    try {
      expect(await mailer.send(message("team@example.com"))).toEqual({ sent: true });
    } finally {
      mailer.close();
    }
    expect(logins).toEqual([{ username: "alerts", password: PASSWORD }]);
    expect(delivered).toEqual([["team@example.com"]]);
  });

  it("a URL without credentials still sends without TLS: there is no password to protect", async () => {
    const mailer = createSmtpMailer({ url: `smtp://127.0.0.1:${port}`, from: "rehook@rehook.test", timeoutMs: 5_000 });
    try {
      expect(await mailer.send(message("anon@example.com"))).toEqual({ sent: true });
    } finally {
      mailer.close();
    }
    expect(delivered.at(-1)).toEqual(["anon@example.com"]);
  });

  it("asks nodemailer for TLS exactly where the URL carries credentials: smtps: from the start, smtp: by required STARTTLS", () => {
    expect(smtpTransportOptions("smtps://u:p@mail.example.com:465", false)).toMatchObject({ secure: true, auth: { user: "u", pass: "p" } });
    expect(smtpTransportOptions("smtps://u:p@mail.example.com:465", false).requireTLS).toBeUndefined();
    expect(smtpTransportOptions("smtp://u:p@mail.example.com:587?requireTLS=false&ignoreTLS=true", false)).toMatchObject({ secure: false, requireTLS: true, ignoreTLS: false, opportunisticTLS: false });
    expect(smtpTransportOptions("smtp://u:p@127.0.0.1:25", true).requireTLS).toBeUndefined();
    expect(smtpTransportOptions("smtp://relay.example.com:25", false).requireTLS).toBeUndefined();
  });

  it("reads nothing of the URL's query: ?service= neither moves the connection off the checked host nor turns STARTTLS off", () => {
    // What nodemailer itself would connect with, given our options (its well-known services override host, port and TLS).
    const used = (url: string, allowPlaintextAuth: boolean) => {
      const transport = createSmtpTransport({ url, allowPlaintextAuth });
      const options = (transport.transporter as unknown as { options: Record<string, unknown> }).options;
      transport.close();
      return options;
    };
    const aol = used("smtp://u:p@127.0.0.1:25?service=AOL", true);
    expect(aol).toMatchObject({ host: "127.0.0.1", port: 25 });
    expect(aol["service"]).toBeUndefined();
    const maildev = used("smtp://u:p@mail.example.com:587?service=Maildev&tls.rejectUnauthorized=false", false);
    expect(maildev).toMatchObject({ host: "mail.example.com", port: 587, requireTLS: true, ignoreTLS: false, tls: { rejectUnauthorized: true } });
    // The loopback opt-out holds only for the host actually connected to.
    expect(used("smtp://u:p@mail.example.com:25", true)).toMatchObject({ requireTLS: true });
    // And the configuration refuses such a URL in the first place.
    expect(() => loadConfig({ SMTP_URL: "smtp://u:p@127.0.0.1?service=AOL", SMTP_ALLOW_PLAINTEXT_AUTH: "true" }, "/d")).toThrow(/^invalid SMTP_URL: it takes no query/);
  });
});
