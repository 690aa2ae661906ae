// What a check expects of an answer: a failed expectation throws a CheckFailure whose message is the report row's detail.

/** A failed expectation; the message is the row's detail. */
export class CheckFailure extends Error {
  override readonly name = 'CheckFailure';
}

export function fail(detail: string): never {
  throw new CheckFailure(detail);
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function expectObject(value: unknown, what: string): Record<string, unknown> {
  return isObject(value) ? value : fail(`${what} is not a JSON object`);
}

/** Collects the problems of one document so a row names all of them at once, not just the first. */
export class Problems {
  private readonly list: string[] = [];

  add(problem: string): void {
    this.list.push(problem);
  }

  expect(condition: boolean, problem: string): void {
    if (!condition) this.list.push(problem);
  }

  /** Throws a CheckFailure naming every problem, if there is one. */
  throwIfAny(): void {
    if (this.list.length > 0) fail(this.list.join('; '));
  }
}

export function show(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? 'undefined' : text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

export function stringArray(value: unknown): string[] | null {
  return Array.isArray(value) && value.every((item) => typeof item === 'string') ? (value as string[]) : null;
}
