/** How a saved secret is shown after it is saved: that one is set, and its last four characters. */
export interface SecretHint {
  set: true;
  last4: string;
}

export function secretHint(secret: string): SecretHint {
  // Short secrets would be shown nearly whole: show none of them.
  return { set: true, last4: secret.length >= 12 ? secret.slice(-4) : "" };
}
