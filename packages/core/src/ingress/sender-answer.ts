/** What a capture URL answered the sender of an event: the status, after how long it was held. */
export interface SenderAnswer {
  status: number;
  delayMs: number;
}

/** The answer in words for the event page: "Answered 202 after 300 ms", "Answered 200 at once". */
export function senderAnswerText(answer: SenderAnswer): string {
  if (answer.delayMs <= 0) return `Answered ${answer.status} at once`;
  const delay = answer.delayMs < 1000 ? `${answer.delayMs} ms` : `${Number((answer.delayMs / 1000).toFixed(2))} s`;
  return `Answered ${answer.status} after ${delay}`;
}
