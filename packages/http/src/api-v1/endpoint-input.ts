import type { DeliverySettings, IngressSettingsInput } from "@rehook/services";
import type { z } from "zod";
import type { WireField } from "./contract-route.js";

/*
 * An endpoint's settings as the public API and the CLI spell them (snake_case), mapped to the
 * names the use cases take: the input side of the endpoint presenter. Only names change
 * here; the use case checks every value.
 */

export interface IngressSettingsWire {
  response?: { status: number; headers?: Record<string, string>; body?: string; delay_ms?: number } | null;
  handshake?: { provider: string; token?: string } | null;
  verification?: { scheme: string; secret?: string; reject_invalid?: boolean; header?: string; encoding?: string; prefix?: string } | null;
  dedup?: { key: unknown; window_s: number } | null;
}

/** The ingress settings named in `wire` (a field left out stays out; null clears it). */
export function ingressSettingsFromWire(wire: IngressSettingsWire): IngressSettingsInput {
  const { response, handshake, verification, dedup } = wire;
  const settings: IngressSettingsInput = {};
  if (response !== undefined) settings.response = response && { status: response.status, headers: response.headers, body: response.body, delayMs: response.delay_ms };
  if (handshake !== undefined) settings.handshake = handshake;
  if (dedup !== undefined) settings.dedup = dedup;
  if (verification !== undefined) {
    settings.verification = verification && {
      scheme: verification.scheme,
      secret: verification.secret,
      rejectInvalid: verification.reject_invalid,
      header: verification.header,
      encoding: verification.encoding,
      prefix: verification.prefix,
    };
  }
  return settings;
}

export interface DeliverySettingsWire {
  retry_policy?: { max_attempts: number; initial_delay_ms: number; max_delay_ms: number } | null;
  pause_after_failures?: number | null;
  retention_days?: number | null;
}

/** The delivery settings named in a create or patch body (a field left out stays out). */
export function deliverySettingsFromWire(body: DeliverySettingsWire): DeliverySettings {
  return {
    ...(body.retry_policy !== undefined
      ? { retryPolicy: body.retry_policy && { maxAttempts: body.retry_policy.max_attempts, initialDelayMs: body.retry_policy.initial_delay_ms, maxDelayMs: body.retry_policy.max_delay_ms } }
      : {}),
    ...(body.pause_after_failures !== undefined ? { pauseAfterFailures: body.pause_after_failures } : {}),
    ...(body.retention_days !== undefined ? { retentionDays: body.retention_days } : {}),
  };
}

/**
 * The endpoint contracts' fields as the public API carries them: the documented snake_case
 * schemas of a create or patch body (`S.EndpointCreate`, `S.EndpointPatch`), the nested
 * settings renamed on the way in.
 */
export function endpointWireFields(body: z.ZodObject): Record<string, WireField> {
  const field = (name: string) => body.shape[name] as z.ZodType;
  return {
    name: { schema: field("name") },
    destinationUrl: { schema: field("destination_url") },
    keepProxyHeaders: { schema: field("keep_proxy_headers") },
    retryPolicy: { schema: field("retry_policy"), decode: (policy: DeliverySettingsWire["retry_policy"]) => deliverySettingsFromWire({ retry_policy: policy }).retryPolicy },
    pauseAfterFailures: { schema: field("pause_after_failures") },
    retentionDays: { schema: field("retention_days") },
    response: { schema: field("response"), decode: (response: IngressSettingsWire["response"]) => ingressSettingsFromWire({ response }).response },
    handshake: { schema: field("handshake") },
    verification: { schema: field("verification"), decode: (verification: IngressSettingsWire["verification"]) => ingressSettingsFromWire({ verification }).verification },
    dedup: { schema: field("dedup") },
  };
}
