/**
 * The pause between two batches of the prune. A batch's statements use the database's CPU and disk, which the
 * requests need too; resting after each batch for a time in proportion to the batch's own gives the requests back a
 * fixed share of the machine however slow the batches get under load (the duty cycle, SCHOOLGATE_PRUNE_DUTY_PERCENT).
 */
export type Sleep = (ms: number) => Promise<void>;

export const sleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The pause after a batch of `batchMs` so that batches take `dutyPercent` of the time: as long as the batch at 50, none at 100. */
export function pauseAfter(batchMs: number, dutyPercent: number): number {
  if (!(dutyPercent > 0 && dutyPercent <= 100)) throw new RangeError(`the prune's duty cycle is a percentage from 1 to 100, got ${dutyPercent}`);
  return Math.max(0, batchMs) * ((100 - dutyPercent) / dutyPercent);
}
