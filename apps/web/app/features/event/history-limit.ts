/** The replay history shows this many attempts; the Replays page has them all. */
export const HISTORY_LIMIT = 20;
