import type { Database } from '../../db/connection.js';
import type { Metrics } from '../../metrics/metrics.js';
import { logFailure } from '../../shared/failure-log.js';
import type { Logger } from '../../shared/logger.js';
import { startRepeatingJob, type RepeatingJob } from '../../shared/repeating-job.js';
import { deliverDueLogouts } from './deliver.js';

export type DeliveryJob = RepeatingJob;

/**
 * The back-channel logout outbox's delivery loop (docs/logout.md): every `intervalSeconds`, off the request path. Every
 * instance runs it; each notice is claimed by one of them (deliver.ts), so a fleet delivers each attempt once and a
 * crashed instance's claims simply come due again. Failures are logged, never thrown; the timer never keeps the
 * process alive.
 */
export function startLogoutDeliveryJob(db: Database, logger: Logger, options: { intervalSeconds: number; metrics?: Metrics }): DeliveryJob {
  const intervalMs = options.intervalSeconds * 1000;
  if (!(intervalMs > 0)) throw new RangeError('the logout delivery job needs an interval of at least one second');
  const log = logger.child({ job: 'logout-delivery' });

  const runOnce = async (): Promise<void> => {
    try {
      const outcomes = await deliverDueLogouts(db, { metrics: options.metrics });
      if (outcomes.size > 0) log.info({ outcomes: Object.fromEntries(outcomes) }, 'back-channel logout notices attempted');
    } catch (error) {
      logFailure(log, error, 'back-channel logout delivery failed; trying again at the next interval');
    }
  };

  return startRepeatingJob(intervalMs, intervalMs, runOnce);
}
