export interface RepeatingJob {
  /** No further runs; resolves once a run under way has finished. */
  stop(): Promise<void>;
}

/**
 * Runs `runOnce` after a random part of `firstRunSpreadMs` (a fleet restarted at once spreads out), then
 * `intervalMs` after each run ends, off the request path. Runs never overlap; `runOnce` must not throw (the jobs log
 * their own failures). The timer is unref()ed so it never keeps the process alive.
 */
export function startRepeatingJob(intervalMs: number, firstRunSpreadMs: number, runOnce: (isStopped: () => boolean) => Promise<void>): RepeatingJob {
  if (!(intervalMs > 0)) throw new RangeError('a repeating job needs an interval of at least one millisecond');
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  const isStopped = (): boolean => stopped;

  const schedule = (delayMs: number): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = runOnce(isStopped).finally(() => {
        running = undefined;
        schedule(intervalMs);
      });
    }, delayMs);
    timer.unref();
  };
  schedule(Math.random() * firstRunSpreadMs);

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
