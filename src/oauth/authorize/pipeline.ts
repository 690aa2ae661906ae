/**
 * An endpoint is a list of named steps run in order, read like a checklist (after node-oidc-provider's
 * lib/actions). A step either does its check and returns, throws (the endpoint turns the error into a page or an
 * error redirect), or answers and marks the flow finished, which skips the remaining steps.
 */
export interface Step<F> {
  readonly name: string;
  readonly run: (flow: F) => Promise<void> | void;
}

export function step<F>(name: string, run: (flow: F) => Promise<void> | void): Step<F> {
  return { name, run };
}

export interface RunnableFlow {
  finished: boolean;
  trace(stepName: string): void;
}

export async function runSteps<F extends RunnableFlow>(flow: F, steps: readonly Step<F>[]): Promise<void> {
  for (const { name, run } of steps) {
    flow.trace(name);
    await run(flow);
    if (flow.finished) return;
  }
}
