/*
 * Ingress settings as the public API and the CLI spell them (snake_case), mapped to the
 * names the use cases take. Only names change here: the use case checks every value.
 */

export interface IngressSettingsWire {
  response?: { status: number; headers?: Record<string, string>; body?: string; delay_ms?: number } | null;
  handshake?: { provider: string; token?: string } | null;
  verification?: { scheme: string; secret?: string; reject_invalid?: boolean; header?: string; encoding?: string; prefix?: string } | null;
}

export interface IngressSettingsNames {
  response?: { status: number; headers?: Record<string, string>; body?: string; delayMs?: number } | null;
  handshake?: { provider: string; token?: string } | null;
  verification?: { scheme: string; secret?: string; rejectInvalid?: boolean; header?: string; encoding?: string; prefix?: string } | null;
}

/** The settings named in `wire` (a field left out stays out; null clears it). */
export function ingressSettingsFromWire(wire: IngressSettingsWire): IngressSettingsNames {
  const { response, handshake, verification } = wire;
  const settings: IngressSettingsNames = {};
  if (response !== undefined) settings.response = response && { status: response.status, headers: response.headers, body: response.body, delayMs: response.delay_ms };
  if (handshake !== undefined) settings.handshake = handshake;
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
