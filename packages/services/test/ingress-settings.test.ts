import { describe, expect } from "vitest";
import { captureRequest, createEndpoint, getEndpoint, MAX_SIGNATURE_PREFIX_LENGTH, updateEndpoint, type IngressSettingsInput, type Services } from "@rehook/services";
import { expectRefused, test } from "./support.js";

// An endpoint's ingress settings (custom response, provider handshake, signature check), as
// create and update save them: checked, their secrets write-only (a view shows only that one
// is set and its last four characters), a left-out secret kept while the scheme or provider
// stays the same, and null clearing a setting.

const SECRET = "whsec_ingress_secret_abcd";

async function endpointWith(services: Services, teamId: string, settings: IngressSettingsInput = {}) {
  return createEndpoint(services, { teamId, name: "ingress", ...settings });
}

describe("custom response", () => {
  test("is saved with its defaults, shown, and answered at capture", async ({ services, user }) => {
    const endpoint = await endpointWith(services, user.teamId, { response: { status: 202, headers: { "X-Reply": "yes" }, body: "queued {{event_id}}" } });
    expect(endpoint.response).toEqual({ status: 202, headers: { "X-Reply": "yes" }, body: "queued {{event_id}}", delayMs: 0 });
    const outcome = await captureRequest(services, { slug: endpoint.slug, method: "POST", subPath: "", query: "", headers: [], body: Buffer.from("{}"), clientIp: null });
    expect(outcome).toMatchObject({ kind: "accepted", delayMs: 0, answer: { status: 202 } });
  });

  test("refuses a status out of range and a body on a bodyless status", async ({ services, user }) => {
    await expectRefused(endpointWith(services, user.teamId, { response: { status: 199 } }), "validation_failed", /^Status must be a whole number from 200 to 599/);
    await expectRefused(endpointWith(services, user.teamId, { response: { status: 204, body: "no" } }), "validation_failed", "Response: a 204 response carries no body. Clear the body or choose another status.");
  });

  test("null clears it; leaving it out keeps it", async ({ services, user }) => {
    const endpoint = await endpointWith(services, user.teamId, { response: { status: 201 } });
    const renamed = await updateEndpoint(services, { teamId: user.teamId, endpoint: { id: endpoint.id }, changes: { name: "renamed" } });
    expect(renamed.response).toMatchObject({ status: 201 });
    const cleared = await updateEndpoint(services, { teamId: user.teamId, endpoint: { id: endpoint.id }, changes: { response: null } });
    expect(cleared.response).toBeNull();
  });
});

describe("signature check", () => {
  test("shows the secret only as set with its last four characters, and never stores it in the view", async ({ services, user }) => {
    const endpoint = await endpointWith(services, user.teamId, { verification: { scheme: "github", secret: SECRET, rejectInvalid: true } });
    expect(endpoint.verification).toEqual({ scheme: "github", rejectInvalid: true, secret: { set: true, last4: "abcd" } });
    expect(JSON.stringify(endpoint)).not.toContain(SECRET);
    // A short secret is not shown even in part.
    const short = await endpointWith(services, user.teamId, { verification: { scheme: "github", secret: "short-one" } });
    expect(short.verification!.secret).toEqual({ set: true, last4: "" });
  });

  test("keeps the saved secret when left out under the same scheme, and asks for one under another", async ({ services, user }) => {
    const endpoint = await endpointWith(services, user.teamId, { verification: { scheme: "github", secret: SECRET } });
    const update = (verification: IngressSettingsInput["verification"]) => updateEndpoint(services, { teamId: user.teamId, endpoint: { id: endpoint.id }, changes: { verification } });
    const stricter = await update({ scheme: "github", rejectInvalid: true });
    expect(stricter.verification).toEqual({ scheme: "github", rejectInvalid: true, secret: { set: true, last4: "abcd" } });
    await expectRefused(update({ scheme: "stripe" }), "validation_failed", "A stripe signature check needs the secret the sender signs with.");
    expect((await getEndpoint(services, { teamId: user.teamId, endpoint: { id: endpoint.id } })).verification).toEqual(stricter.verification);
    expect((await update(null)).verification).toBeNull();
    // With nothing saved, a secret is needed even under the same scheme.
    await expectRefused(update({ scheme: "github" }), "validation_failed", "A github signature check needs the secret the sender signs with.");
  });

  test("hmac-sha256 needs its header, defaults to hex, keeps a prefix; the others take none of these", async ({ services, user }) => {
    const generic = await endpointWith(services, user.teamId, { verification: { scheme: "hmac-sha256", secret: SECRET, header: "X-Signature", prefix: "sha256=" } });
    expect(generic.verification).toEqual({ scheme: "hmac-sha256", rejectInvalid: false, secret: { set: true, last4: "abcd" }, header: "X-Signature", encoding: "hex", prefix: "sha256=" });
    await expectRefused(
      endpointWith(services, user.teamId, { verification: { scheme: "hmac-sha256", secret: SECRET } }),
      "validation_failed",
      "The hmac-sha256 scheme needs the header that carries the signature, like X-Signature.",
    );
    await expectRefused(
      endpointWith(services, user.teamId, { verification: { scheme: "stripe", secret: SECRET, header: "X-Signature" } }),
      "validation_failed",
      "header, encoding and prefix apply to the hmac-sha256 scheme only.",
    );
  });

  test("refuses unknown schemes, bad headers, long prefixes and control characters with the field named", async ({ services, user }) => {
    const refuse = (verification: Record<string, unknown>, message: RegExp) =>
      expectRefused(endpointWith(services, user.teamId, { verification } as IngressSettingsInput), "validation_failed", message);
    await refuse({ scheme: "md5", secret: SECRET }, /^Scheme must be one of stripe, github/);
    await refuse({ scheme: "hmac-sha256", secret: SECRET, header: "X Signature" }, /^Header must be an HTTP header name/);
    await refuse({ scheme: "hmac-sha256", secret: SECRET, header: "X-Sig", prefix: "p".repeat(MAX_SIGNATURE_PREFIX_LENGTH + 1) }, new RegExp(`^Prefix must be at most ${MAX_SIGNATURE_PREFIX_LENGTH} characters`));
    await refuse({ scheme: "github", secret: "line\nbreak" }, /^Secret must not contain control characters/);
    await refuse({ scheme: "github", secret: "" }, /^Secret must not be empty/);
    await refuse({ scheme: "github", secret: SECRET, rejectInvalid: "yes" }, /reject_invalid must be true or false/i);
  });
});

describe("provider handshake", () => {
  test("keeps the saved token under the same provider, drops it under another, and needs one for Meta and Zoom", async ({ services, user }) => {
    const endpoint = await endpointWith(services, user.teamId, { handshake: { provider: "meta", token: "verify-token-1234" } });
    expect(endpoint.handshake).toEqual({ provider: "meta", token: { set: true, last4: "1234" } });
    const update = (handshake: IngressSettingsInput["handshake"]) => updateEndpoint(services, { teamId: user.teamId, endpoint: { id: endpoint.id }, changes: { handshake } });
    expect((await update({ provider: "meta" })).handshake).toEqual(endpoint.handshake);
    await expectRefused(update({ provider: "zoom" }), "validation_failed", "A Zoom handshake needs the app's secret token you entered in the provider's settings.");
    // Slack's token is optional: switching to Slack does not carry Meta's over.
    expect((await update({ provider: "slack" })).handshake).toEqual({ provider: "slack", token: null });
    await expectRefused(endpointWith(services, user.teamId, { handshake: { provider: "meta" } }), "validation_failed", "A Meta handshake needs the verify token you entered in the provider's settings.");
    await expectRefused(endpointWith(services, user.teamId, { handshake: { provider: "teams" } } as unknown as IngressSettingsInput), "validation_failed", /^Provider must be one of slack, meta, zoom/);
  });
});
