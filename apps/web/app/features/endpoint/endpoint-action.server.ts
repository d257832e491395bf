import { redirect, type ActionFunctionArgs } from "@remix-run/node";
import { readDedupForm } from "../../lib/dedup";
import { readDestinationForm } from "../../lib/destinations";
import { errorMessage, throwIfNotFound } from "../../lib/errors";
import { readHandshakeForm, readResponseForm, readVerificationForm } from "../../lib/ingress";
import { noticeCookie } from "../../lib/notice.server";
import { readRetryForm } from "../../lib/retries";
import { requireUser } from "../../lib/session.server";

/** The ingress sections' forms, each saved on its own (features/endpoint/ingress-sections.tsx). */
export type IngressIntent = "response" | "responseReset" | "handshake" | "verification" | "dedup";

/** The Destinations section's forms (features/endpoint/destinations-card.tsx). */
export type DestinationIntent = "destinationCreate" | "destinationUpdate" | "destinationEnable" | "destinationResume" | "destinationDelete";

const DESTINATION_INTENTS: readonly string[] = ["destinationCreate", "destinationUpdate", "destinationEnable", "destinationResume", "destinationDelete"];

/**
 * The endpoint page's forms, by their `intent`: delete, resume, retryFailed, retries, the
 * ingress sections, the destinations, and the settings form (the default).
 */
export async function endpointAction({ request, context, params }: ActionFunctionArgs) {
  requireUser(context, request);
  const id = params.id ?? "";
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "update");
  if (intent === "delete") {
    let name: string;
    try {
      name = (await context.caller.endpoints.get({ id })).name;
      await context.caller.endpoints.delete({ id });
    } catch (error) {
      throwIfNotFound(error);
      return { intent: "delete" as const, ok: false as const, error: errorMessage(error) };
    }
    const notice = `Endpoint “${name}” was deleted. Its capture URL no longer accepts requests, and its events are being removed.`;
    return redirect("/", { status: 303, headers: { "Set-Cookie": noticeCookie(notice) } });
  }
  if (intent === "resume") {
    try {
      await context.caller.endpoints.resume({ id });
      return { intent: "resume" as const, ok: true as const, error: null };
    } catch (error) {
      throwIfNotFound(error);
      return { intent: "resume" as const, ok: false as const, error: errorMessage(error) };
    }
  }
  if (intent === "retryFailed") {
    try {
      const { count } = await context.caller.endpoints.retryFailed({ id });
      return { intent: "retryFailed" as const, ok: true as const, error: null, count, at: Date.now() };
    } catch (error) {
      throwIfNotFound(error);
      return { intent: "retryFailed" as const, ok: false as const, error: errorMessage(error) };
    }
  }
  if (intent === "retries") {
    const read = readRetryForm(form);
    if (!read.ok) return { intent: "retries" as const, ok: false as const, error: read.error };
    try {
      await context.caller.endpoints.update({ id, retryPolicy: read.retryPolicy, pauseAfterFailures: read.pauseAfterFailures });
      return { intent: "retries" as const, ok: true as const, error: null, savedAt: Date.now() };
    } catch (error) {
      throwIfNotFound(error);
      return { intent: "retries" as const, ok: false as const, error: errorMessage(error) };
    }
  }
  if (DESTINATION_INTENTS.includes(intent)) return saveDestination(context, id, intent as DestinationIntent, form);
  if (intent === "response" || intent === "responseReset" || intent === "handshake" || intent === "verification" || intent === "dedup") {
    return saveIngress(context, id, intent, form);
  }
  return saveSettings(context, id, form);
}

/** The Settings form: name, destination, staging host, signing, proxy headers, retention. */
async function saveSettings(context: ActionFunctionArgs["context"], id: string, form: FormData) {
  // Blank: the server's default. Anything else goes to the use case, which says what is wrong with it.
  const retentionDaysField = (value: FormDataEntryValue | null) => {
    const text = String(value ?? "").trim();
    return text === "" ? null : Number(text);
  };
  const blankToNull = (value: FormDataEntryValue | null) => {
    const text = String(value ?? "").trim();
    return text === "" ? null : text;
  };
  try {
    await context.caller.endpoints.update({
      id,
      name: String(form.get("name") ?? ""),
      destinationUrl: blankToNull(form.get("destinationUrl")),
      stagingHost: blankToNull(form.get("stagingHost")),
      signRequests: form.get("signRequests") !== null,
      keepProxyHeaders: form.get("keepProxyHeaders") !== null,
      retentionDays: retentionDaysField(form.get("retentionDays")),
    });
    return { intent: "update" as const, ok: true as const, error: null, savedAt: Date.now() };
  } catch (error) {
    throwIfNotFound(error);
    return { intent: "update" as const, ok: false as const, error: errorMessage(error) };
  }
}

/** One ingress section's form saved on its own: only its field of the endpoint is sent. */
async function saveIngress(context: ActionFunctionArgs["context"], id: string, intent: IngressIntent, form: FormData) {
  const read =
    intent === "responseReset"
      ? { ok: true as const, change: { response: null } }
      : intent === "response"
        ? withField("response", readResponseForm(form))
        : intent === "handshake"
          ? withField("handshake", readHandshakeForm(form))
          : intent === "dedup"
            ? withField("dedup", readDedupForm(form))
            : withField("verification", readVerificationForm(form));
  if (!read.ok) return { intent, ok: false as const, error: read.error };
  try {
    await context.caller.endpoints.update({ id, ...read.change });
    return { intent, ok: true as const, error: null, savedAt: Date.now() };
  } catch (error) {
    throwIfNotFound(error);
    return { intent, ok: false as const, error: errorMessage(error) };
  }
}

/** A form's change as the update's named field. */
function withField<Field extends string, Change>(field: Field, read: { ok: true; change: Change } | { ok: false; error: string }) {
  return read.ok ? { ok: true as const, change: { [field]: read.change } as Record<Field, Change> } : read;
}

/**
 * One of the Destinations section's forms: add, edit, enable or disable, resume, remove. The
 * answer names the destination it was about, so the page shows it beside the right one.
 */
async function saveDestination(context: ActionFunctionArgs["context"], endpointId: string, intent: DestinationIntent, form: FormData) {
  const destinationId = String(form.get("destinationId") ?? "");
  const failed = (error: string) => ({ intent, ok: false as const, error, destinationId, savedAt: 0 });
  let read: ReturnType<typeof readDestinationForm> | undefined;
  if (intent === "destinationCreate" || intent === "destinationUpdate") {
    read = readDestinationForm(form);
    if (!read.ok) return failed(read.error);
  }
  try {
    const destinations = context.caller.destinations;
    if (intent === "destinationCreate" && read?.ok) await destinations.create({ endpointId, ...read.input });
    else if (intent === "destinationUpdate" && read?.ok) await destinations.update({ endpointId, destinationId, ...read.input });
    else if (intent === "destinationEnable") await destinations.update({ endpointId, destinationId, enabled: form.get("enabled") === "true" });
    else if (intent === "destinationResume") await destinations.resume({ endpointId, destinationId });
    else if (intent === "destinationDelete") await destinations.delete({ endpointId, destinationId });
    return { intent, ok: true as const, error: null, destinationId, savedAt: Date.now() };
  } catch (error) {
    // A missing destination is the section's business (it may have been removed meanwhile); a missing endpoint is the page's 404.
    if (intent === "destinationCreate") throwIfNotFound(error);
    return failed(errorMessage(error));
  }
}
