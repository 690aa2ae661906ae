/**
 * Rate limits count in fixed windows aligned to the epoch (src/shared/rate-limit.ts). A test that fills a window waits,
 * if need be, until the current one has at least `neededSeconds` left, so a slow machine cannot carry it across a
 * boundary halfway (where the count starts again).
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
