import type { AddressInfo } from "node:net";
import { describe, expect } from "vitest";
import { SMTPServer } from "smtp-server";
import { uuidv7 } from "@rehook/core";
import { insertUser } from "@rehook/db";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { UserError } from "@rehook/core";
import { createAlertRule, createEndpoint, insertTeamNamed, listAlertRulesOf, sendTestAlert, type AlertRuleView, type Services } from "@rehook/services";
import { test as base } from "@rehook/vitest-config/fixtures";
import { serviceConfig, withServiceGraph } from "@rehook/vitest-config/service-fixtures";
import { captureInto as capture } from "./team-world.js";

// Email alerts through a real SMTP server on loopback (the smtp-server package): what the
// message says, a refused recipient pausing the rule, and the test button.

interface Mail {
  from: string;
  to: string[];
  raw: string;
}

const mails: Mail[] = [];
/** The SMTP reply to RCPT TO for this address, when it should be refused. */
const refusedRecipients = new Set<string>();
/**
 * How far the graph's clock is ahead of the wall clock (a test moves it past an hour). It is
 * module state read by the file's one graph, so this file's tests must stay sequential (no
 * describe.concurrent): a test that moves it changes the clock of every test running beside it.
 */
let clockAhead = 0;

const test = base.extend<{ smtp: { port: number }; graph: Services; owner: { id: string; teamId: string } }>({
  smtp: [
    async ({}, use) => {
      const server = new SMTPServer({
        authOptional: true,
        disabledCommands: ["STARTTLS", "AUTH"],
        onRcptTo(address, _session, callback) {
          if (refusedRecipients.has(address.address)) {
            // Worded as Postfix words it: the address comes back in the reply.
            const error = Object.assign(new Error(`5.1.1 <${address.address}>: Recipient address rejected: User unknown`), { responseCode: 550 });
            callback(error);
            return;
          }
          callback();
        },
        onData(stream, session, callback) {
          const chunks: Buffer[] = [];
          stream.on("data", (chunk: Buffer) => chunks.push(chunk));
          stream.on("end", () => {
            mails.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "", to: session.envelope.rcptTo.map((rcpt) => rcpt.address), raw: Buffer.concat(chunks).toString("utf8") });
            callback();
          });
        },
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      try {
        await use({ port: (server.server.address() as AddressInfo).port });
      } finally {
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
    { scope: "file" },
  ],
  // This file's own graph, which sends email through that server (the shared fixture's has no
  // SMTP_URL), at most 5 emails per team and hour, on a clock the tests can move.
  graph: [
    async ({ database, smtp }, use) => {
      const config = serviceConfig(database.url, { SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, SMTP_FROM: "Rehook <alerts@rehook.test>", ALERT_EMAILS_PER_TEAM_PER_HOUR: "5" });
      await withServiceGraph(config, use, { now: () => Date.now() + clockAhead });
    },
    { scope: "file" },
  ],
  // A user of the test's own on that graph (the shared `user` would start the shared graph too, whose jobs have no mailer).
  owner: async ({ graph }, use) => {
    const em = graph.orm.em.fork();
    const email = `mail-${uuidv7()}@example.com`;
    const user = await insertUser(em, { id: uuidv7(), email, passwordHash: "unusable" });
    const team = await insertTeamNamed(em, { name: email, ownerId: user.id, personal: true });
    await use({ id: user.id, teamId: team.id });
  },
});

describe("email alerts", () => {
  test("a failed delivery is mailed in plain text, with a one-line subject, from SMTP_FROM", async ({ graph: services, owner: user }) => {
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "Orders\r\nBcc: victim@example.com", destinationUrl: "http://127.0.0.1:9/unreachable", retryPolicy: { maxAttempts: 1, initialDelayMs: 1_000, maxDelayMs: 1_000 } });
    await expect(createAlertRule(services, { teamId: user.teamId, name: "Mail", trigger: "delivery_failed", channel: "email", target: "not an address" })).rejects.toThrow(/not an email address/);
    await createAlertRule(services, { teamId: user.teamId, name: "Mail", trigger: "delivery_failed", endpointId: endpoint.id, channel: "email", target: "ops@example.com" });
    const eventId = await capture(services, endpoint.slug, "{}");
    await waitFor(() => mails.some((mail) => mail.to.includes("ops@example.com")), "the alert email");
    const mail = mails.find((candidate) => candidate.to.includes("ops@example.com"))!;
    expect(mail.from).toBe("alerts@rehook.test");
    expect(mail.to).toEqual(["ops@example.com"]);
    const [head, ...body] = mail.raw.split("\r\n\r\n");
    expect(head).toMatch(/^Subject: \[Rehook\] Webhook delivery failed: /m);
    // The endpoint's name cannot add a header: the line break became a space.
    expect(head).not.toMatch(/^Bcc:/im);
    expect(head).toMatch(/^Content-Type: text\/plain/m);
    expect(body.join("\n").replace(/=\r\n/g, "")).toContain(`http://rehook.test/events/${eventId}`);
  });

  test("a refused recipient pauses the rule with the reason; the test button says how it went", async ({ graph: services, owner: user }) => {
    refusedRecipients.add("gone@example.com");
    const rule = await createAlertRule(services, { teamId: user.teamId, name: "Gone", trigger: "bulk_replay_finished", channel: "email", target: "gone@example.com" });
    const tried = await sendTestAlert(services, { teamId: user.teamId, id: rule.id });
    expect(tried.ok).toBe(false);
    expect(tried.message).toMatch(/^the mail server refused the recipient \(550\)/);
    // The audit log keeps how the test went, but the address (stored as "changed" only) never, however the server words it.
    const logged = await services.orm.em.fork().execute<Array<{ row: string }>>("select row_to_json(a)::text as row from audit_log a where action = 'alert_rule.test'");
    expect(logged).toHaveLength(1);
    expect(logged[0]!.row).toContain("refused the recipient");
    expect(logged[0]!.row.toLowerCase()).not.toContain("gone@example.com");
    const good = await createAlertRule(services, { teamId: user.teamId, name: "Good", trigger: "bulk_replay_finished", channel: "email", target: "team@example.com" });
    expect(await sendTestAlert(services, { teamId: user.teamId, id: good.id })).toEqual({ ok: true, message: "Test alert sent: check the channel." });
    expect(mails.find((mail) => mail.to.includes("team@example.com"))!.raw).toContain('This is a test of the alert rule "Good". Real alerts look like this one.');
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "Inbox" });
    await capture(services, endpoint.slug, "{}");
    await services.bulkReplays.start({ teamId: user.teamId, userId: user.id, endpointId: endpoint.id, environment: "custom", customUrl: "http://127.0.0.1:9/x", status: null });
    const read = async () => (await listAlertRulesOf(services, { teamId: user.teamId })).find((r) => r.id === rule.id)!;
    await waitFor(async () => (await read()).pausedReason !== null, "the rule to pause");
    expect((await read()).pausedReason).toMatch(/refused the recipient \(550\)/);
  });

  test("a team's email is capped per hour, alerts and tests together: past it a test is refused and an alert held, then sent once the hour has room", async ({ graph: services, owner: user }) => {
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "Capped", destinationUrl: "http://127.0.0.1:9/unreachable", retryPolicy: { maxAttempts: 1, initialDelayMs: 1_000, maxDelayMs: 1_000 } });
    const rules: AlertRuleView[] = [];
    for (const n of [1, 2, 3, 4]) rules.push(await createAlertRule(services, { teamId: user.teamId, name: `Cap ${n}`, trigger: "delivery_failed", endpointId: endpoint.id, channel: "email", target: `cap${n}@example.com` }));
    const capped = () => mails.filter((mail) => mail.to.some((address) => /^cap\d@example\.com$/.test(address)));
    // Two tests are two emails of the five.
    for (const rule of rules.slice(0, 2)) expect((await sendTestAlert(services, { teamId: user.teamId, id: rule.id })).ok).toBe(true);
    // One failed delivery alerts all four rules: three emails go, the fourth waits.
    await capture(services, endpoint.slug, "{}");
    const read = async () => listAlertRulesOf(services, { teamId: user.teamId });
    await waitFor(async () => capped().length === 5 && (await read()).filter((rule) => rule.lastResult !== null && rule.lastResult.text.startsWith("held: ")).length === 1, "three alerts sent and one held");
    const held = (await read()).find((rule) => rule.lastResult?.text.startsWith("held: "))!;
    expect(held.lastResult).toMatchObject({ ok: false, text: expect.stringMatching(/^held: this team has sent 5 alert emails in the last hour \(alerts and tests together\), its limit; the alerts due go out together in \d+ min$/) });
    expect(held.pausedReason).toBeNull();
    const alertsTo = (target: string) => capped().filter((mail) => mail.to.includes(target) && !mail.raw.includes("This is a test of the alert rule"));
    expect(alertsTo(held.target)).toHaveLength(0);
    // A test now is refused before anything is sent, with how long to wait.
    const untested = rules.find((rule) => rule.id !== rules[0]!.id && rule.id !== rules[1]!.id)!;
    const refused = await sendTestAlert(services, { teamId: user.teamId, id: untested.id }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(UserError);
    expect(refused).toMatchObject({ code: "rate_limited", message: expect.stringMatching(/^This team has sent 5 alert emails in the last hour \(alerts and tests together\), its limit\. Try again in \d+ min\.$/) });
    expect((refused as UserError).details).toMatchObject({ retryAfterSeconds: expect.any(Number) });
    expect(capped()).toHaveLength(5);
    // An hour later (the graph's clock, and the held rule's job made due as the hour would have) the held alert goes.
    clockAhead += 60 * 60_000 + 1_000;
    await services.orm.em.fork().execute("update jobs set run_at = now() where kind = 'alert' and key = ?", [held.id]);
    await waitFor(() => alertsTo(held.target).length === 1, "the held alert");
    expect(capped()).toHaveLength(6);
    await waitFor(async () => (await read()).find((rule) => rule.id === held.id)!.lastResult?.text === "delivered", "its result");
  });

  test("the server's email is capped per hour over every team (ALERT_EMAILS_PER_HOUR): many teams, each under its own cap, cannot add up past it", async ({ database, smtp }) => {
    // A graph of the test's own with a server cap of 2, on a clock two hours past this file's
    // (so the emails of the tests before are out of its hour).
    const config = serviceConfig(database.url, { SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, ALERT_EMAILS_PER_HOUR: "2" });
    await withServiceGraph(
      config,
      async (services) => {
        const em = services.orm.em.fork();
        const rules: Array<{ teamId: string; id: string }> = [];
        for (const n of [1, 2, 3]) {
          const user = await insertUser(em, { id: uuidv7(), email: `server-cap-${n}-${uuidv7()}@example.com`, passwordHash: "unusable" });
          const team = await insertTeamNamed(em, { name: user.email, ownerId: user.id, personal: true });
          const rule = await createAlertRule(services, { teamId: team.id, name: "Server cap", trigger: "delivery_failed", channel: "email", target: `server-cap${n}@example.com` });
          rules.push({ teamId: team.id, id: rule.id });
        }
        const to = () => mails.filter((mail) => mail.to.some((address) => address.startsWith("server-cap")));
        for (const rule of rules.slice(0, 2)) expect((await sendTestAlert(services, rule)).ok).toBe(true);
        const refused = await sendTestAlert(services, rules[2]!).then(
          () => null,
          (error: unknown) => error,
        );
        expect(refused).toMatchObject({ code: "rate_limited", message: expect.stringMatching(/^This server has sent 2 alert emails in the last hour \(every team together\), its limit\. Try again in \d+ min\.$/) });
        expect(to()).toHaveLength(2);
      },
      { now: () => Date.now() + clockAhead + 2 * 60 * 60_000 },
    );
  });
});
