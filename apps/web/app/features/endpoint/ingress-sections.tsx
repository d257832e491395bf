import { DedupSettingsForm } from "../../components/dedup-settings";
import { HandshakeSettingsForm, ResponseSettingsForm, VerificationSettingsForm, type SectionState } from "../../components/ingress-settings";
import { Card } from "../../components/ui";
import type { IngressIntent } from "./endpoint-action.server";
import type { EndpointPageData } from "./endpoint-data.server";

type Result = { intent: string; ok: boolean; error: string | null } | undefined;

/** The confirmation each ingress intent shows once saved. */
const INGRESS_SAVED: Record<IngressIntent, string> = {
  response: "Response saved",
  responseReset: "Back to the default answer",
  handshake: "Handshake saved",
  verification: "Verification saved",
  dedup: "Deduplication saved",
};

/** What an ingress section shows: whether its intent is being sent, and the last result of its intents. */
function sectionState(result: Result, pendingIntent: string | null, intents: IngressIntent[]): SectionState {
  const mine = result && (intents as string[]).includes(result.intent) ? result : undefined;
  return {
    saving: pendingIntent === intents[0],
    saved: mine?.ok ? INGRESS_SAVED[mine.intent as IngressIntent] : null,
    error: mine && !mine.ok ? mine.error : null,
  };
}

/** A key that changes when a section's stored value does, or it is saved again: its form then starts from what is stored. */
function sectionKey(stored: unknown, result: Result, intents: IngressIntent[]) {
  const savedAt = result?.ok && (intents as string[]).includes(result.intent) && "savedAt" in result ? String(result.savedAt) : "";
  return `${JSON.stringify(stored)}\u0000${savedAt}`;
}

/** The capture URL's answer to senders, the provider handshake, signature verification and deduplication: one card each. */
export function IngressSections({ endpoint, result, pendingIntent }: { endpoint: EndpointPageData["endpoint"]; result: Result; pendingIntent: string | null }) {
  return (
    <>
      <Card
        title="Response to senders"
        id="response"
        description="What the capture URL answers each request it stores. Some senders expect a particular status or body back."
      >
        <ResponseSettingsForm
          key={sectionKey(endpoint.response, result, ["response", "responseReset"])}
          response={endpoint.response}
          state={sectionState(result, pendingIntent, ["response", "responseReset"])}
          resetting={pendingIntent === "responseReset"}
        />
      </Card>

      <Card
        title="Provider handshake"
        id="handshake"
        description="Some providers check a URL before they send it events, by a challenge it must answer. Rehook answers it for you."
      >
        <HandshakeSettingsForm key={sectionKey(endpoint.handshake, result, ["handshake"])} handshake={endpoint.handshake} state={sectionState(result, pendingIntent, ["handshake"])} />
      </Card>

      <Card
        title="Signature verification"
        id="verification"
        description="Check that each request was signed by its sender with your shared secret. The secret is never shown again once saved."
      >
        <VerificationSettingsForm
          key={sectionKey(endpoint.verification, result, ["verification"])}
          verification={endpoint.verification}
          state={sectionState(result, pendingIntent, ["verification"])}
        />
      </Card>

      <Card
        title="Deduplication"
        id="dedup"
        description="Senders retry, and some deliver the same event twice. A repeat within the window is stored and answered as usual, marked Duplicate with a link to the first, and never forwarded."
      >
        <DedupSettingsForm key={sectionKey(endpoint.dedup, result, ["dedup"])} dedup={endpoint.dedup} state={sectionState(result, pendingIntent, ["dedup"])} />
      </Card>
    </>
  );
}
