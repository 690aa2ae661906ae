import fs from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { isScope, scopesForAudience, type Audience } from '../clients/scopes.js';
import { redirectUriProblems } from '../clients/redirect-uris.js';
import { clientSecretProblem } from '../clients/secret-strength.js';
import { ConfigError } from '../config/config-error.js';
import { normalizeOrigin } from '../config/config.js';
import { ValidationError, type FieldProblem } from '../shared/errors.js';
import { normalizeHost } from '../sites/registration-policy.js';
import { projectPath } from '../shared/paths.js';
import type { ImportDocument } from './document.js';
import { objectParts, type DocumentPart, type ImportSource, type StreamedSection } from './document-parts.js';

/**
 * Validation of a site import document: first the published JSON Schema (docs/import.schema.json), then the
 * references between records, which a schema cannot express. Both run on every document, so one answer lists
 * every problem; each carries an RFC 6901 pointer into the document.
 */

export const IMPORT_SCHEMA_PATH = projectPath('docs', 'import.schema.json');

let compiled: { validate: ValidateFunction; records: Record<StreamedSection, ValidateFunction> } | undefined;

/** The schema's definition of one record of each streamed list (docs/import.schema.json, `$defs`). */
const RECORD_DEFINITIONS: Record<StreamedSection, string> = { users: 'user', enrollments: 'enrollment' };

function compiledSchema(): NonNullable<typeof compiled> {
  if (!compiled) {
    const schema = JSON.parse(fs.readFileSync(IMPORT_SCHEMA_PATH, 'utf8')) as Record<string, unknown>;
    const ajv = new Ajv2020.default({ allErrors: true, strict: true, allowUnionTypes: true });
    addFormats.default(ajv, ['email', 'uri', 'uri-reference', 'hostname']);
    ajv.addFormat('date-time', { type: 'string', validate: isDateTime });
    const validate = ajv.compile(schema);
    const record = (section: StreamedSection): ValidateFunction => {
      const found = ajv.getSchema(`${String(schema.$id)}#/$defs/${RECORD_DEFINITIONS[section]}`);
      if (!found) throw new Error(`import schema: no definition for a record of ${section}`);
      return found;
    };
    compiled = { validate, records: { users: record('users'), enrollments: record('enrollments') } };
  }
  return compiled;
}

/** The compiled schema, read from docs/ on first use. */
export function importSchemaValidator(): ValidateFunction {
  return compiledSchema().validate;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/i;

/**
 * RFC 3339 date-time with an offset, on a real calendar day. Stricter than ajv-formats (no leap second `:60`, which
 * JavaScript's Date cannot represent), so every accepted value converts to a Date.
 */
export function isDateTime(value: string): boolean {
  const match = RFC3339.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day && !Number.isNaN(Date.parse(value));
}

/** Throws ValidationError (code invalid_import_document) listing every problem; returns the typed document otherwise. */
export function validateImportDocument(raw: unknown): ImportDocument {
  const problems = importDocumentProblems(raw);
  if (problems.length > 0) throw new ValidationError('the import document is not valid', problems, 'invalid_import_document');
  return raw as ImportDocument;
}

/** Every problem of a document in memory, read part by part as a file is (document-parts.ts). */
export function importDocumentProblems(raw: unknown): FieldProblem[] {
  if (!isRecord(raw)) {
    const validate = importSchemaValidator();
    return validate(raw) ? [] : (validate.errors ?? []).flatMap(problemFromAjv);
  }
  const validator = new DocumentValidator();
  for (const part of objectParts(raw)) validator.read(part);
  if (validator.needsEnrollmentPass) for (const part of objectParts(raw, 'enrollments')) validator.readAgain(part);
  return validator.problems();
}

/** What a valid document's validation pass leaves for the write: its small sections and the size of each streamed list. */
export interface ValidatedDocument {
  head: ImportDocument;
  totals: Record<StreamedSection, number>;
}

/**
 * Validates a document read from a source, holding one record at a time of the streamed lists (plus their keys, for
 * the reference checks): one pass, or two when an enrollment comes before the users or courses it names.
 */
export async function validateImportSource(source: ImportSource): Promise<ValidatedDocument> {
  const validator = new DocumentValidator();
  for await (const part of source.parts()) validator.read(part);
  if (validator.needsEnrollmentPass) for await (const part of source.parts('enrollments')) validator.readAgain(part);
  const problems = validator.problems();
  if (problems.length > 0) throw new ValidationError('the import document is not valid', problems, 'invalid_import_document');
  return { head: validator.head as unknown as ImportDocument, totals: validator.totals };
}

/**
 * Validation of a document part by part: each record of a streamed list against its schema definition as it comes,
 * the small sections (the head) against the whole schema at the end, then the references between records. A
 * reference check that needs keys not read yet waits for the end, or (enrollments) for a second pass.
 */
class DocumentValidator {
  private readonly check = new ReferenceChecker();
  private readonly schemaProblems: FieldProblem[] = [];
  readonly head: Loose = {};
  readonly totals: Record<StreamedSection, number> = { users: 0, enrollments: 0 };
  private readonly members = new Set<string>();
  /** Course and user of each enrollment → the index of the first enrollment of that pair. */
  private readonly enrollmentPairs = new Map<string, FirstAt>();
  private coursesRegistered = false;
  needsEnrollmentPass = false;

  read(part: DocumentPart): void {
    if (part.kind === 'member') {
      this.head[part.name] = part.value;
      this.members.add(part.name);
      if (part.name === 'courses') this.registerCourses();
      return;
    }
    const at = pointer('', part.section, part.index);
    this.totals[part.section] += 1;
    this.schemaCheck(part.section, part.value, at);
    if (!isRecord(part.value)) return;
    if (part.section === 'users') checkUser(this.check, part.value, at, part.index);
    else if (this.members.has('users') && this.coursesRegistered) checkEnrollment(this.check, this.enrollmentPairs, part.value, part.index);
    else this.needsEnrollmentPass = true;
  }

  /** The second pass: an enrollment's references, now that every user and course is known. */
  readAgain(part: DocumentPart): void {
    if (part.kind === 'record' && part.section === 'enrollments' && isRecord(part.value)) checkEnrollment(this.check, this.enrollmentPairs, part.value, part.index);
  }

  private registerCourses(): void {
    if (this.coursesRegistered) return;
    this.coursesRegistered = true;
    registerCourses(this.check, this.head);
  }

  private schemaCheck(section: StreamedSection, value: unknown, at: string): void {
    const validate = compiledSchema().records[section];
    if (validate(value)) return;
    for (const error of validate.errors ?? []) this.schemaProblems.push(...problemFromAjv({ ...error, instancePath: at + error.instancePath }));
  }

  problems(): FieldProblem[] {
    const validate = importSchemaValidator();
    const headProblems = validate(this.head) ? [] : (validate.errors ?? []).flatMap(problemFromAjv);
    this.registerCourses();
    const check = this.check;
    const doc = this.head;
    checkSite(check, doc.site);
    checkLecturers(check, doc);
    checkCourseLecturers(check, doc);
    checkProductsAndCommerce(check, doc);
    checkConsulting(check, doc);
    checkEvents(check, doc);
    checkPayments(check, doc);
    checkNotifications(check, doc);
    checkClients(check, doc);
    checkContent(check, doc);
    const schemaProblems = [...headProblems, ...this.schemaProblems];
    // A value the schema already refuses is not reported again by the reference checks.
    const refused = new Set(schemaProblems.map((problem) => problem.pointer));
    const problems = [...schemaProblems, ...check.problems.filter((problem) => !refused.has(problem.pointer))];
    const seen = new Set<string>();
    return problems.filter((problem) => {
      const key = `${problem.pointer}\u0000${problem.message}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  }
}

export function escapePointerSegment(segment: string | number): string {
  return String(segment).replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Joins a base pointer and segments: pointer('/courses/2', 'sections', 0) = '/courses/2/sections/0'. */
export function pointer(base: string, ...segments: Array<string | number>): string {
  return base + segments.map((segment) => `/${escapePointerSegment(segment)}`).join('');
}

function problemFromAjv(error: ErrorObject): FieldProblem[] {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return [{ pointer: pointer(error.instancePath, String(params.missingProperty)), message: 'is required' }];
    case 'additionalProperties':
      return [{ pointer: pointer(error.instancePath, String(params.additionalProperty)), message: 'is not a property of this format' }];
    case 'enum': {
      const allowed = Array.isArray(params.allowedValues) ? params.allowedValues : [];
      return [{ pointer: error.instancePath, message: `must be one of ${allowed.map((value) => JSON.stringify(value)).join(', ')}` }];
    }
    case 'const':
      return [{ pointer: error.instancePath, message: `must be ${JSON.stringify(params.allowedValue)}` }];
    case 'if':
      return []; // the failing `then` branch reports the actual problem
    default:
      return [{ pointer: error.instancePath, message: error.message ?? `fails ${error.keyword}` }];
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Reference checks. They run even when the schema failed, so they read the document defensively: a record that is
// not an object is skipped, a key that is not a string is neither registered nor looked up (the schema reports it).

type Loose = Record<string, unknown>;

function isRecord(value: unknown): value is Loose {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The object entries of `parent[key]` with their index and pointer. */
function each(parent: unknown, key: string, base: string): Array<{ item: Loose; at: string; index: number }> {
  const list = isRecord(parent) ? parent[key] : undefined;
  if (!Array.isArray(list)) return [];
  return list.flatMap((item: unknown, index) => (isRecord(item) ? [{ item, at: pointer(base, key, index), index }] : []));
}

function text(record: Loose, key: string): string | undefined {
  const value = record[key];
  return typeof value === 'string' ? value : undefined;
}

function instant(record: Loose, key: string): number | undefined {
  const value = text(record, key);
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

const foldEmail = (value: string): string => value.trim().toLowerCase();
const exact = (value: string): string => value;

/** Where a key was first seen: a pointer, or the index of a streamed record (turned into its pointer only when reported). */
type FirstAt = string | number;

/**
 * How a key set answers `has`: by the exact key (`exact`, external ids), by the key after `normalize` where that is the
 * same fold as the duplicate check (`folded`, emails: no second copy of every key), or not at all (`none`: keys only
 * checked for duplicates, such as enrollment externalIds, which nothing references).
 */
type Lookup = 'exact' | 'folded' | 'none';

/**
 * A set of keys of one kind. Uniqueness is checked case-insensitively (MySQL's unique indexes compare that way);
 * references are matched after `normalize` (lower case for emails, exact for external ids). The streamed lists hold
 * a key per record for the whole validation, so theirs keep one string and a number each (a record's index, `locate`
 * turns it into the pointer of a duplicate's first use).
 */
class KeySet {
  private readonly firstAt = new Map<string, FirstAt>();
  private readonly keys = new Set<string>();

  constructor(
    private readonly checker: ReferenceChecker,
    private readonly what: string,
    private readonly normalize: (value: string) => string = exact,
    private readonly options: { lookup?: Lookup; locate?: (index: number) => string } = {},
  ) {}

  add(value: unknown, at: FirstAt): void {
    if (typeof value !== 'string') return;
    const folded = value.trim().toLowerCase();
    const first = this.firstAt.get(folded);
    if (first !== undefined) this.checker.add(this.pointerOf(at), `duplicate ${this.what} "${value}" (first at ${this.pointerOf(first)})`);
    else this.firstAt.set(folded, at);
    if ((this.options.lookup ?? 'exact') === 'exact') this.keys.add(this.normalize(value));
  }

  private pointerOf(at: FirstAt): string {
    return typeof at === 'number' && this.options.locate ? this.options.locate(at) : String(at);
  }

  has(value: string): boolean {
    const lookup = this.options.lookup ?? 'exact';
    if (lookup === 'none') throw new Error(`import: the ${this.what} keys are not kept for lookups`);
    return lookup === 'folded' ? this.firstAt.has(this.normalize(value)) : this.keys.has(this.normalize(value));
  }

  /** Reports `record[key]` when it is a string that names no key of this set. Null and absent are fine. */
  expect(record: Loose, key: string, base: string, what = this.what): void {
    const value = text(record, key);
    if (value !== undefined && !this.has(value)) this.checker.add(pointer(base, key), `names no ${what} of this document ("${value}")`);
  }
}

class ReferenceChecker {
  readonly problems: FieldProblem[] = [];
  // foldEmail is the duplicate check's own fold, so the emails need no second set for lookups.
  readonly users = new KeySet(this, 'user email', foldEmail, { lookup: 'folded', locate: (index) => pointer('', 'users', index, 'email') });
  readonly lecturers = new KeySet(this, 'lecturer', foldEmail);
  readonly courses = new KeySet(this, 'course externalId');
  readonly courseSlugs = new KeySet(this, 'course slug');
  /** Course externalId → its lectures' externalIds. */
  readonly lecturesByCourse = new Map<string, KeySet>();
  readonly products = new KeySet(this, 'digital product externalId');
  readonly productSlugs = new KeySet(this, 'digital product slug');
  readonly coupons = new KeySet(this, 'coupon code');
  readonly plans = new KeySet(this, 'membership plan externalId');
  readonly services = new KeySet(this, 'consulting service externalId');
  readonly groups = new KeySet(this, 'study group externalId');
  readonly meetings = new KeySet(this, 'meeting externalId');
  readonly events = new KeySet(this, 'event externalId');
  readonly eventSlugs = new KeySet(this, 'event slug');
  readonly enrollments = new KeySet(this, 'enrollment externalId', exact, { lookup: 'none', locate: (index) => pointer('', 'enrollments', index, 'externalId') });
  readonly tradeNos = new KeySet(this, 'tradeNo');
  readonly notifications = new KeySet(this, 'notification externalId');
  readonly clients = new Set<string>();
  readonly vendorNames = new KeySet(this, 'vendor platform clientName');
  readonly postSlugs = new KeySet(this, 'post slug');
  readonly pageSlugs = new KeySet(this, 'page slug');

  add(at: string, message: string): void {
    this.problems.push({ pointer: at, message });
  }

  /** A fresh key set for keys scoped to one parent (sections of a course, slots of a service, …). */
  scoped(what: string): KeySet {
    return new KeySet(this, what);
  }

  /** Reports `record[later]` when it is not after `record[earlier]`. */
  ordered(record: Loose, earlier: string, later: string, base: string): void {
    const from = instant(record, earlier);
    const to = instant(record, later);
    if (from !== undefined && to !== undefined && to <= from) this.add(pointer(base, later), `must be after ${earlier}`);
  }

  timeZone(record: Loose, key: string, base: string): void {
    const value = text(record, key);
    if (value !== undefined && !isTimeZone(value)) this.add(pointer(base, key), `"${value}" is not an IANA time zone`);
  }

  /**
   * Reports duplicate tuples (e.g. the same user twice on one roster). `first` is what is kept of the first use (its
   * pointer, or a record's index) and `locate` turns that into the pointer reported.
   */
  distinct(seen: Map<string, FirstAt>, parts: Array<string | undefined>, at: string, what: string, first: FirstAt = at, locate: (first: FirstAt) => string = String): void {
    if (parts.some((part) => part === undefined)) return;
    const key = parts.map((part) => part?.toLowerCase()).join('\u0000');
    const earlier = seen.get(key);
    if (earlier !== undefined) this.add(at, `duplicate ${what} (first at ${locate(earlier)})`);
    else seen.set(key, first);
  }
}

function checkSite(check: ReferenceChecker, site: unknown): void {
  if (!isRecord(site)) return;
  const origin = text(site, 'origin');
  if (origin !== undefined) {
    try {
      normalizeOrigin(origin);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      check.add('/site/origin', error.message);
    }
  }
  check.timeZone(site, 'timezone', '/site');
  const hosts = site.metadataDocumentHosts;
  if (Array.isArray(hosts)) {
    hosts.forEach((host: unknown, index) => {
      if (typeof host !== 'string') return;
      try {
        normalizeHost(host);
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        check.add(pointer('/site/metadataDocumentHosts', index), 'must be a DNS host name');
      }
    });
  }
}

function checkUser(check: ReferenceChecker, item: Loose, at: string, index: number): void {
  check.users.add(item.email, index);
  if (item.password !== undefined && item.passwordHash !== undefined) check.add(pointer(at, 'passwordHash'), 'give either password or passwordHash, not both');
}

function checkLecturers(check: ReferenceChecker, doc: Loose): void {
  for (const { item, at } of each(doc, 'lecturers', '')) {
    check.users.expect(item, 'user', at);
    check.lecturers.add(item.user, pointer(at, 'user'));
  }
}

/** The courses' keys and lectures, which enrollments name (their lecturers are checked at the end, with the lecturers). */
function registerCourses(check: ReferenceChecker, doc: Loose): void {
  for (const { item: course, at } of each(doc, 'courses', '')) {
    check.courses.add(course.externalId, pointer(at, 'externalId'));
    check.courseSlugs.add(course.slug, pointer(at, 'slug'));
    const lectures = check.scoped('lecture externalId in this course');
    const courseId = text(course, 'externalId');
    if (courseId !== undefined && !check.lecturesByCourse.has(courseId)) check.lecturesByCourse.set(courseId, lectures);
    const sections = check.scoped('section externalId in this course');
    for (const { item: section, at: sectionAt } of each(course, 'sections', at)) {
      sections.add(section.externalId, pointer(sectionAt, 'externalId'));
      for (const { item: lecture, at: lectureAt } of each(section, 'lectures', sectionAt)) lectures.add(lecture.externalId, pointer(lectureAt, 'externalId'));
    }
  }
}

function checkCourseLecturers(check: ReferenceChecker, doc: Loose): void {
  for (const { item: course, at } of each(doc, 'courses', '')) {
    const lecturers = course.lecturers;
    if (!Array.isArray(lecturers)) continue;
    lecturers.forEach((email: unknown, index) => {
      if (typeof email === 'string' && !check.lecturers.has(email)) check.add(pointer(at, 'lecturers', index), `names no lecturer of this document ("${email}")`);
    });
  }
}

function checkProductsAndCommerce(check: ReferenceChecker, doc: Loose): void {
  for (const { item: product, at } of each(doc, 'digitalProducts', '')) {
    check.products.add(product.externalId, pointer(at, 'externalId'));
    check.productSlugs.add(product.slug, pointer(at, 'slug'));
    const owners = new Map<string, string>();
    for (const { item: owner, at: ownerAt } of each(product, 'owners', at)) {
      check.users.expect(owner, 'user', ownerAt);
      check.distinct(owners, [text(owner, 'user')], pointer(ownerAt, 'user'), 'owner');
      check.ordered(owner, 'acquiredAt', 'expiresAt', ownerAt);
    }
  }
  for (const { item: coupon, at } of each(doc, 'coupons', '')) {
    check.coupons.add(coupon.code, pointer(at, 'code'));
    const kind = text(coupon, 'discountKind');
    const needed = kind === 'percent' ? 'percentOff' : kind === 'amount' ? 'amountOff' : undefined;
    const forbidden = kind === 'percent' ? 'amountOff' : kind === 'amount' ? 'percentOff' : undefined;
    if (needed !== undefined && coupon[needed] === undefined) check.add(pointer(at, needed), `is required when discountKind is "${kind}"`);
    if (forbidden !== undefined && coupon[forbidden] !== undefined) check.add(pointer(at, forbidden), `is not allowed when discountKind is "${kind}"`);
    check.ordered(coupon, 'startsAt', 'endsAt', at);
  }
  for (const { item: plan, at } of each(doc, 'membershipPlans', '')) check.plans.add(plan.externalId, pointer(at, 'externalId'));
  const subscriptions = new Map<string, string>();
  for (const { item: subscription, at } of each(doc, 'subscriptions', '')) {
    check.plans.expect(subscription, 'plan', at);
    check.users.expect(subscription, 'user', at);
    check.ordered(subscription, 'currentPeriodStart', 'currentPeriodEnd', at);
    const started = instant(subscription, 'startedAt');
    check.distinct(subscriptions, [text(subscription, 'plan'), text(subscription, 'user'), started === undefined ? undefined : String(started)], pointer(at, 'startedAt'), 'subscription of this user to this plan with this startedAt');
  }
}

function checkConsulting(check: ReferenceChecker, doc: Loose): void {
  for (const { item: service, at } of each(doc, 'consultingServices', '')) {
    check.services.add(service.externalId, pointer(at, 'externalId'));
    const courses = service.courses;
    if (Array.isArray(courses)) {
      courses.forEach((course: unknown, index) => {
        if (typeof course === 'string' && !check.courses.has(course)) check.add(pointer(at, 'courses', index), `names no course externalId of this document ("${course}")`);
      });
    }
    const slots = check.scoped('slot externalId in this service');
    for (const { item: slot, at: slotAt } of each(service, 'slots', at)) {
      slots.add(slot.externalId, pointer(slotAt, 'externalId'));
      check.users.expect(slot, 'host', slotAt);
      check.timeZone(slot, 'timezone', slotAt);
      check.ordered(slot, 'validFrom', 'validUntil', slotAt);
    }
    for (const { item: meeting, at: meetingAt } of each(service, 'meetings', at)) {
      check.meetings.add(meeting.externalId, pointer(meetingAt, 'externalId'));
      slots.expect(meeting, 'slot', meetingAt, 'slot of this service');
      check.ordered(meeting, 'startsAt', 'endsAt', meetingAt);
      check.users.expect(meeting, 'confirmedBy', meetingAt);
      const seats = new Map<string, string>();
      let taken = 0;
      for (const { item: seat, at: seatAt } of each(meeting, 'seats', meetingAt)) {
        check.users.expect(seat, 'user', seatAt);
        check.distinct(seats, [text(seat, 'user')], pointer(seatAt, 'user'), 'seat of this user');
        if (seat.canceledAt === undefined || seat.canceledAt === null) taken += 1;
      }
      const capacity = meeting.capacity;
      if (typeof capacity === 'number' && taken > capacity) check.add(pointer(meetingAt, 'seats'), `${taken} seats are taken but capacity is ${capacity}`);
    }
  }
  for (const { item: group, at } of each(doc, 'studyGroups', '')) {
    check.groups.add(group.externalId, pointer(at, 'externalId'));
    check.courses.expect(group, 'course', at, 'course externalId');
    check.services.expect(group, 'service', at, 'consulting service externalId');
    const members = new Map<string, string>();
    for (const { item: member, at: memberAt } of each(group, 'members', at)) {
      check.users.expect(member, 'user', memberAt);
      check.distinct(members, [text(member, 'user')], pointer(memberAt, 'user'), 'member');
    }
    const sessions = check.scoped('session externalId in this group');
    for (const { item: session, at: sessionAt } of each(group, 'sessions', at)) {
      sessions.add(session.externalId, pointer(sessionAt, 'externalId'));
      check.timeZone(session, 'timezone', sessionAt);
      check.ordered(session, 'validFrom', 'validUntil', sessionAt);
    }
    for (const { item: meeting, at: meetingAt } of each(group, 'meetings', at)) {
      check.meetings.add(meeting.externalId, pointer(meetingAt, 'externalId'));
      sessions.expect(meeting, 'session', meetingAt, 'session of this group');
      check.ordered(meeting, 'startsAt', 'endsAt', meetingAt);
    }
  }
}

function checkEvents(check: ReferenceChecker, doc: Loose): void {
  for (const { item: event, at } of each(doc, 'events', '')) {
    check.events.add(event.externalId, pointer(at, 'externalId'));
    check.eventSlugs.add(event.slug, pointer(at, 'slug'));
    check.ordered(event, 'startsAt', 'endsAt', at);
    check.timeZone(event, 'timezone', at);
    const registrations = new Map<string, string>();
    for (const { item: registration, at: registrationAt } of each(event, 'registrations', at)) {
      check.users.expect(registration, 'user', registrationAt);
      check.distinct(registrations, [text(registration, 'user')], pointer(registrationAt, 'user'), 'registration of this user');
    }
  }
}

const enrollmentPointer = (index: FirstAt): string => (typeof index === 'number' ? pointer('', 'enrollments', index) : index);

function checkEnrollment(check: ReferenceChecker, pairs: Map<string, FirstAt>, enrollment: Loose, index: number): void {
  const at = enrollmentPointer(index);
  {
    check.enrollments.add(enrollment.externalId, index);
    check.courses.expect(enrollment, 'course', at, 'course externalId');
    check.users.expect(enrollment, 'user', at);
    check.distinct(pairs, [text(enrollment, 'course'), text(enrollment, 'user')], at, 'enrollment of this user in this course', index, enrollmentPointer);
    if (enrollment.hasLifetimeAccess === true && typeof enrollment.expiresAt === 'string') check.add(pointer(at, 'expiresAt'), 'must be null or omitted when hasLifetimeAccess is true');
    check.ordered(enrollment, 'enrolledAt', 'expiresAt', at);
    const course = text(enrollment, 'course');
    const lectures = course === undefined ? undefined : check.lecturesByCourse.get(course);
    const expectLecture = (record: Loose, base: string): void => {
      const lecture = text(record, 'lecture');
      if (lectures && lecture !== undefined && !lectures.has(lecture)) check.add(pointer(base, 'lecture'), `names no lecture of course "${course}" ("${lecture}")`);
    };
    if (isRecord(enrollment.lastWatched)) expectLecture(enrollment.lastWatched, pointer(at, 'lastWatched'));
    const progressed = new Map<string, string>();
    for (const { item: progress, at: progressAt } of each(enrollment, 'progress', at)) {
      expectLecture(progress, progressAt);
      check.distinct(progressed, [text(progress, 'lecture')], pointer(progressAt, 'lecture'), 'progress of this lecture');
      if (typeof progress.completedAt === 'string' && progress.state !== 'completed') check.add(pointer(progressAt, 'completedAt'), 'is allowed only with state "completed"');
    }
  }
}

const LINE_ITEM_TARGETS: Record<string, (check: ReferenceChecker) => KeySet> = {
  course: (check) => check.courses,
  digital_product: (check) => check.products,
  consulting: (check) => check.services,
  event: (check) => check.events,
  membership_plan: (check) => check.plans,
};

function checkPayments(check: ReferenceChecker, doc: Loose): void {
  for (const { item: payment, at } of each(doc, 'payments', '')) {
    check.tradeNos.add(payment.tradeNo, pointer(at, 'tradeNo'));
    check.users.expect(payment, 'user', at);
    if (payment.paymentState === 'paid' && (payment.paidAt === undefined || payment.paidAt === null)) check.add(pointer(at, 'paidAt'), 'is required when paymentState is "paid"');
    const refund = payment.refund;
    if (isRecord(refund) && typeof refund.amount === 'number' && typeof payment.amount === 'number' && refund.amount > payment.amount) {
      check.add(pointer(at, 'refund', 'amount'), `must not exceed the payment's amount (${payment.amount})`);
    }
    for (const { item: line, at: lineAt } of each(payment, 'lineItems', at)) {
      const kind = text(line, 'kind');
      if (kind === 'other' && typeof line.item === 'string') check.add(pointer(lineAt, 'item'), 'must be null or omitted for kind "other"');
      const target = kind === undefined ? undefined : LINE_ITEM_TARGETS[kind];
      if (target) target(check).expect(line, 'item', lineAt);
    }
  }
}

function checkNotifications(check: ReferenceChecker, doc: Loose): void {
  for (const { item: notification, at } of each(doc, 'notifications', '')) {
    check.notifications.add(notification.externalId, pointer(at, 'externalId'));
    check.users.expect(notification, 'user', at);
  }
  const settings = new Map<string, string>();
  for (const { item: setting, at } of each(doc, 'notificationSubscriptions', '')) {
    check.users.expect(setting, 'user', at);
    check.distinct(settings, [text(setting, 'user'), text(setting, 'kind'), text(setting, 'channel')], at, 'setting for this user, kind and channel');
  }
}

function checkClients(check: ReferenceChecker, doc: Loose): void {
  for (const { item: client, at } of each(doc, 'oauthClients', '')) {
    const clientId = text(client, 'clientId');
    if (clientId !== undefined) {
      if (check.clients.has(clientId)) check.add(pointer(at, 'clientId'), `duplicate clientId "${clientId}"`);
      check.clients.add(clientId);
    }
    const secret = text(client, 'clientSecret');
    if (client.confidential === false && client.clientSecret !== undefined) check.add(pointer(at, 'clientSecret'), 'a public client has no secret: remove clientSecret or set confidential to true');
    else if (secret !== undefined) {
      // Chosen secrets need 256 random bits, like generated ones (src/clients/secret-strength.ts).
      const problem = clientSecretProblem(secret);
      if (problem !== null) check.add(pointer(at, 'clientSecret'), problem);
    }
    const audience = text(client, 'audience');
    if ((audience === 'member' || audience === 'operator') && Array.isArray(client.scopes)) {
      const allowed = scopesForAudience(audience satisfies Audience);
      client.scopes.forEach((scope: unknown, index) => {
        if (typeof scope === 'string' && isScope(scope) && !allowed.includes(scope)) check.add(pointer(at, 'scopes', index), `"${scope}" is not available to ${audience} clients`);
      });
    }
    const uris = client.redirectUris;
    if (Array.isArray(uris) && uris.length > 0 && uris.every((uri): uri is string => typeof uri === 'string')) check.problems.push(...redirectUriProblems(uris, pointer(at, 'redirectUris')));
    check.users.expect(client, 'createdBy', at);
  }
  for (const { item: platform, at } of each(doc, 'vendorPlatforms', '')) {
    check.vendorNames.add(platform.clientName, pointer(at, 'clientName'));
    const client = text(platform, 'client');
    if (client !== undefined && !check.clients.has(client)) check.add(pointer(at, 'client'), `names no OAuth client of this document ("${client}")`);
  }
}

function checkContent(check: ReferenceChecker, doc: Loose): void {
  for (const { item: post, at } of each(doc, 'posts', '')) {
    check.postSlugs.add(post.slug, pointer(at, 'slug'));
    check.users.expect(post, 'author', at);
  }
  for (const { item: page, at } of each(doc, 'pages', '')) check.pageSlugs.add(page.slug, pointer(at, 'slug'));
}
