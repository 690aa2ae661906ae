import { addMonths, MINIMUM_NOTICE_MONTHS, type Deprecation } from '../../deprecations/deprecation.js';
import type { ContractChange } from './changes.js';

/**
 * The deprecation policy as the diff applies it (docs/versioning.md). `today` is a `YYYY-MM-DD` date, injected so the
 * verdicts can be checked on either side of a sunset.
 *
 * - Deprecating is a change of its own (`deprecated`), or `dangerous` when the sunset gives less than the minimum notice.
 * - Removing a deprecated element on or after its sunset date is allowed; before it, it is breaking like any removal.
 */

function quoted(text: string): string {
  return `\`${text}\``;
}

function deprecationMessage(after: Deprecation, before: Deprecation | undefined): string {
  const use = after.replacement === null ? '' : `: use ${quoted(after.replacement)} instead`;
  const sunset = after.sunset === null ? 'no sunset date' : `sunset ${after.sunset}`;
  if (before === undefined) return `${quoted(after.where)} is deprecated${use}; ${sunset}.`;
  return `The deprecation of ${quoted(after.where)} changed${use}; ${sunset} (was ${before.sunset === null ? 'no sunset date' : `sunset ${before.sunset}`}${before.replacement === null ? '' : `, use ${quoted(before.replacement)}`}).`;
}

/** A sunset that comes too early: under the minimum notice, and not a postponement of an earlier one. */
function shortNotice(after: Deprecation, before: Deprecation | undefined, today: string): boolean {
  if (after.sunset === null) return true;
  if (after.sunset >= addMonths(today, MINIMUM_NOTICE_MONTHS)) return false;
  return before?.sunset === null || before?.sunset === undefined || after.sunset < before.sunset;
}

/**
 * Deprecations added, changed or withdrawn between two sides. `exists(before)` tells whether an element that is no
 * longer deprecated is still there (if not, its removal is reported as such, not as a withdrawn deprecation).
 */
export function deprecationChanges(
  before: readonly Deprecation[],
  after: readonly Deprecation[],
  options: { today: string; identity: (deprecation: Deprecation) => string; idOf: (kind: 'deprecated' | 'undeprecated', deprecation: Deprecation) => string; existsAfter: (deprecation: Deprecation) => boolean },
): ContractChange[] {
  const { today, identity, idOf, existsAfter } = options;
  const earlier = new Map(before.map((deprecation) => [identity(deprecation), deprecation]));
  const later = new Map(after.map((deprecation) => [identity(deprecation), deprecation]));
  const changes: ContractChange[] = [];
  for (const [key, deprecation] of later) {
    const previous = earlier.get(key);
    if (previous && previous.sunset === deprecation.sunset && previous.replacement === deprecation.replacement) continue;
    const short = shortNotice(deprecation, previous, today);
    const notice = short ? ` That is less than the ${MINIMUM_NOTICE_MONTHS} months' notice the deprecation policy promises (today ${today}).` : '';
    changes.push({
      api: deprecation.api,
      id: idOf('deprecated', deprecation),
      severity: short ? 'dangerous' : 'deprecated',
      where: deprecation.where,
      message: `${deprecationMessage(deprecation, previous)}${notice}`,
      ...(deprecation.sunset === null ? {} : { sunset: deprecation.sunset }),
      ...(deprecation.replacement === null ? {} : { replacement: deprecation.replacement }),
    });
  }
  for (const [key, deprecation] of earlier) {
    if (later.has(key) || !existsAfter(deprecation)) continue;
    changes.push({ api: deprecation.api, id: idOf('undeprecated', deprecation), severity: 'safe', where: deprecation.where, message: `${quoted(deprecation.where)} is no longer deprecated.` });
  }
  return changes;
}

/** The verdict on a breaking removal of an element that was deprecated: allowed once its sunset date has come. */
export function removalVerdict(change: ContractChange, deprecation: Deprecation | undefined, today: string): ContractChange {
  if (change.severity !== 'breaking' || deprecation === undefined || deprecation.sunset === null) return change;
  const facts = { sunset: deprecation.sunset, ...(deprecation.replacement === null ? {} : { replacement: deprecation.replacement }) };
  if (today >= deprecation.sunset) return { ...change, ...facts, allowedBecause: `deprecated with sunset ${deprecation.sunset}, which has come (today ${today})` };
  return { ...change, ...facts, message: `${change.message} It is deprecated, but its sunset (${deprecation.sunset}) is still to come (today ${today}).` };
}
