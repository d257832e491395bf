/** What every Settings action answers: the intent it ran, and the fields the sections read. */
export interface ActionReply {
  intent: string;
  ok: boolean;
  /** The key, endpoint or row acted on. */
  id: string | null;
  /** A new API key (shown once) and its name. */
  key: string | null;
  name: string | null;
  /** A regenerated signing secret. */
  secret: string | null;
  /** A success message to show (the test message's answer). */
  message: string | null;
  /** A second line under the message. */
  note: string | null;
  error: string | null;
}

/** A reply for `intent`: ok with every field null unless given. */
export const reply = (intent: string, fields: Partial<Omit<ActionReply, "intent">> = {}): ActionReply => ({
  intent,
  ok: true,
  id: null,
  key: null,
  name: null,
  secret: null,
  message: null,
  note: null,
  error: null,
  ...fields,
});
