/**
 * Rate limits count in fixed windows aligned to the epoch and decide over a sliding window (src/db/rate-limit.ts). A
 * test that needs exact counts waits, if need be, until the current window has at least `neededSeconds` left, so a
 * slow machine cannot carry it across a boundary halfway (where its hits start weighing as the previous window's).
 */
export async function startOfRoomyWindow(windowSeconds: number, neededSeconds: number): Promise<void> {
  const left = windowSeconds * 1000 - (Date.now() % (windowSeconds * 1000));
  if (left < neededSeconds * 1000) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

/** How many fixed windows of `windowSeconds` the time from `startMs` to `endMs` touches. */
export function windowsSpanned(windowSeconds: number, startMs: number, endMs: number): number {
  const length = windowSeconds * 1000;
  return Math.floor(endMs / length) - Math.floor(startMs / length) + 1;
}
