import type { ServerResponse } from 'node:http';
import type { Middleware } from 'koa';
import { ServiceUnavailableError } from '../shared/errors.js';

/** What the limit is set to (SCHOOLGATE_REQUESTS_IN_FLIGHT, SCHOOLGATE_REQUEST_QUEUE_TIMEOUT_MS; docs/operations.md). */
export interface InFlightLimit {
  /** Requests handled at once; 0: no limit. */
  requests: number;
  /** How long a request waits in the queue for its turn before it is answered 503. */
  queueTimeoutMs: number;
}

/** Refused after waiting its turn too long: the instance is saturated, not failing (503 with Retry-After, as a busy pool answers). */
export class RequestQueueTimeoutError extends ServiceUnavailableError {
  constructor(waitedMs: number) {
    super(`the server is busy: this request waited ${waitedMs} ms for its turn; retry shortly`);
  }
}

/** The client closed its connection while its request waited: nobody is left to answer. */
class ClientLeftQueueError extends ServiceUnavailableError {
  constructor() {
    super('the client closed the connection while the request waited for its turn');
  }
}

interface Waiter {
  admit(): void;
  /** Set once the waiter gave up: it is skipped when its turn comes. */
  gaveUp: boolean;
}

/**
 * At most `requests` requests are handled at once; the others wait their turn in arrival order (FIFO) for up to
 * `queueTimeoutMs`, then get 503 with Retry-After. Past a few requests per pooled database connection, more requests
 * in flight do not answer more per second: they all wait for the same connections, hold their rows and answers in
 * memory meanwhile, and a request that waits longer than the pool's acquire timeout is refused. Queued here instead,
 * a request has done no work yet (no site read, no body read, no statement), and the ones in flight finish sooner; so
 * throughput stays at its best level while latency grows with the queue (Little's law). A request holds its place
 * until its handler is done, including reading its body; a streamed answer (an SSE stream) is written after that.
 */
export function limitRequestsInFlight(limit: InFlightLimit): Middleware {
  if (limit.requests <= 0) return (_ctx, next) => next();
  let inFlight = 0;
  // A FIFO as an array with a moving head: O(1) at both ends, compacted when the head passes half of it.
  let queue: Waiter[] = [];
  let head = 0;

  const release = (): void => {
    while (head < queue.length) {
      const waiter = queue[head] as Waiter;
      head += 1;
      if (head > 1024 && head * 2 > queue.length) {
        queue = queue.slice(head);
        head = 0;
      }
      // The place passes straight to the next waiter: inFlight stays as it is.
      if (!waiter.gaveUp) return waiter.admit();
    }
    queue = [];
    head = 0;
    inFlight -= 1;
  };

  const waitForTurn = (response: ServerResponse): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      const queuedAt = Date.now();
      const giveUp = (error: Error) => {
        waiter.gaveUp = true;
        clearTimeout(timer);
        response.off('close', clientLeft);
        reject(error);
      };
      // A client that closed its connection while waiting (a timeout of its own, a load test stopping) is not served
      // when its turn comes: that work would only delay the requests queued behind it.
      const clientLeft = () => giveUp(new ClientLeftQueueError());
      const waiter: Waiter = {
        gaveUp: false,
        admit: () => {
          clearTimeout(timer);
          response.off('close', clientLeft);
          resolve();
        },
      };
      const timer = setTimeout(() => giveUp(new RequestQueueTimeoutError(Date.now() - queuedAt)), limit.queueTimeoutMs);
      response.once('close', clientLeft);
      queue.push(waiter);
    });

  return async (ctx, next) => {
    if (inFlight < limit.requests) inFlight += 1;
    else await waitForTurn(ctx.res);
    // The place is given back when the handler is done, or when the client leaves first: a handler that never ends
    // for a client that left (a body that will never arrive) must not keep it.
    let released = false;
    const releaseOnce = (): void => {
      if (released) return;
      released = true;
      ctx.res.off('close', releaseOnce);
      release();
    };
    // on, not once: releaseOnce takes itself off, and once would wrap it in a new listener object per request.
    ctx.res.on('close', releaseOnce);
    try {
      await next();
    } finally {
      releaseOnce();
    }
  };
}
