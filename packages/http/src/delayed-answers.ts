/** Most answers held back at once per process; past it, answers go at once (the event is stored either way). */
export const MAX_DELAYED_ANSWERS = 10_000;

/**
 * Answers an endpoint's custom response holds back (delay_ms). Only a timer and the socket
 * wait: the event was committed and its database connection given back before the wait.
 * A sender that hangs up frees its slot; shutdown sends every held answer at once.
 */
export class DelayedAnswers {
  private readonly held = new Map<NodeJS.Timeout, () => void>();

  constructor(private readonly max = MAX_DELAYED_ANSWERS) {}

  /** Runs `answer` after `delayMs`, or at once when no delay is asked or too many wait already. */
  hold(delayMs: number, answer: () => void, abandoned: { once(event: "close", listener: () => void): unknown }): void {
    if (delayMs <= 0 || this.held.size >= this.max) {
      answer();
      return;
    }
    const timer = setTimeout(() => {
      this.held.delete(timer);
      answer();
    }, delayMs);
    this.held.set(timer, answer);
    abandoned.once("close", () => {
      if (this.held.delete(timer)) clearTimeout(timer);
    });
  }

  /** Sends every held answer now (shutdown). */
  releaseAll(): void {
    for (const [timer, answer] of [...this.held]) {
      clearTimeout(timer);
      this.held.delete(timer);
      answer();
    }
  }

  get size(): number {
    return this.held.size;
  }
}
