import type fc from 'fast-check';
import type { FuzzFixtures } from '../support/fixtures.js';
import type { FuzzRequest } from '../support/http-client.js';
import { maybeAbuse, withAbuse, type HeaderAbuse } from '../support/hostile.js';

/** Node refuses a request line plus header block past 16 KiB (--max-http-header-size) with a bare 431. */
const NODE_HEADER_LIMIT = 16 * 1024;

/** Marks requests whose head is past Node's limit: Node's own bare refusal is then the right answer. */
export function finalize(request: FuzzRequest): FuzzRequest {
  const headBytes = request.method.length + request.target.length + 12 + request.headers.reduce((sum, [name, value]) => sum + name.length + value.length + 4, 0);
  return headBytes > NODE_HEADER_LIMIT - 512 ? { ...request, breaksFraming: true } : request;
}

export function headerList(entries: ReadonlyArray<readonly [string, string | null | undefined]>): Array<[string, string]> {
  return entries.filter((entry): entry is readonly [string, string] => entry[1] !== null && entry[1] !== undefined).map(([name, value]) => [name, value]);
}

/** Every live token of the fixtures, for header abuse that mangles real credentials. */
export function realTokens(fx: FuzzFixtures): string[] {
  return Object.values(fx.tokens).filter((token) => token !== '');
}

/** Header abuse for this fixture set (null most of the time). */
export function abuseFor(fx: FuzzFixtures): fc.Arbitrary<HeaderAbuse | null> {
  return maybeAbuse(fx.siteHost, fx.otherSiteHost, realTokens(fx));
}

export function applyAbuse(fx: FuzzFixtures, request: FuzzRequest, abuse: HeaderAbuse | null): FuzzRequest {
  return finalize(withAbuse(request, abuse, fx.siteHost));
}

/** Reads choices off a list of numbers; past its end every choice is the smallest one (0, no). */
export class Choices {
  private index = 0;
  constructor(private readonly values: readonly number[]) {}
  next(): number {
    const value = this.values[this.index] ?? 0;
    this.index += 1;
    return value;
  }
  below(bound: number): number {
    return bound <= 0 ? 0 : this.next() % bound;
  }
  chance(percent: number): boolean {
    if (this.exhausted) return false;
    return this.below(100) < percent;
  }
  pick<T>(items: readonly T[]): T | undefined {
    return items[this.below(items.length)];
  }
  get exhausted(): boolean {
    return this.index >= this.values.length;
  }
}
