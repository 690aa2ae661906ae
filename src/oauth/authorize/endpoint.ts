import type { Middleware } from 'koa';
import type { SiteState } from '../../http/state.js';
import type { Services } from '../../services.js';
import { newFlow, type AuthorizeFlow } from './flow.js';
import { runSteps, type Step } from './pipeline.js';
import { respondWithError } from './respond.js';

/** Runs an endpoint's steps; a thrown error becomes an error redirect or an error page (respond.ts). */
export function pageEndpoint(services: Services, steps: readonly Step<AuthorizeFlow>[]): Middleware<SiteState> {
  return async (ctx) => {
    const flow = newFlow(ctx, services.db);
    try {
      await runSteps(flow, steps);
      if (!flow.finished) throw new Error('the authorize steps ended without an answer');
    } catch (error) {
      await respondWithError(flow, error);
    }
  };
}
