import type { Severity } from './changes.js';

/**
 * Changes between two versions of one JSON Schema (draft 2020-12, as the MCP tools publish theirs), rated from the
 * client's side of the schema:
 *
 * - `input` (what a client sends): narrowing breaks callers (a property removed, made required or added as required,
 *   a type, enum value, pattern or bound taken away); widening is safe;
 * - `output` (what a client reads): taking away what a client reads breaks it (a required property removed or made
 *   optional, a new type such as null); a new property or a narrower value is safe; a value a client may not expect
 *   (a new enum value, a looser bound) is left to a reviewer as dangerous, as graphql-inspector rates a new enum value.
 *
 * api-smart-diff's JSON Schema rules rate every schema as a request (a removed property is non-breaking there) and
 * report one row per keyword with array positions (`required/2`); the MCP tools need both directions and one row per
 * change with an id that survives unrelated edits, so the comparison is done here, keyword by keyword.
 */

export type SchemaSide = 'input' | 'output';

export interface SchemaChange {
  /** `INPUT_PROPERTY_ADDED`, `OUTPUT_TYPE_CHANGED`, …: the kind part of the change's id. */
  kind: string;
  /** `list_my_courses.input.cursor`, `list_my_courses.output.courses[].title`. */
  where: string;
  severity: Severity;
  message: string;
  documentationOnly?: true;
}

type Schema = Record<string, unknown>;

/** Keywords this comparison understands; any other difference goes to a reviewer as one SCHEMA_CHANGED row. */
const LOWER_BOUNDS = ['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties'] as const;
const UPPER_BOUNDS = ['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties'] as const;
const OPAQUE_CONSTRAINTS = ['pattern', 'format', 'multipleOf'] as const;
const KNOWN = new Set<string>([
  '$schema', 'type', 'anyOf', 'description', 'title', 'examples', 'default', 'enum', 'const', 'properties', 'required',
  'additionalProperties', 'items', ...LOWER_BOUNDS, ...UPPER_BOUNDS, ...OPAQUE_CONSTRAINTS,
]);

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function json(value: unknown): string {
  return JSON.stringify(value);
}

/** A value in backquotes, long ones (a date-time pattern) cut short: the id and the where already say which. */
function code(value: unknown): string {
  const text = typeof value === 'string' ? value : json(value);
  return `\`${text.length > 60 ? `${text.slice(0, 57)}…` : text}\``;
}

/**
 * A nullable value as the tools publish it (`anyOf: [{ type: X, … }, { type: 'null' }]`, see src/mcp/portable-schema.ts)
 * read as one schema whose type list includes null. Other unions are left as they are (compared as a whole).
 */
function normalised(schema: Schema): Schema {
  const branches = schema.anyOf;
  if (!Array.isArray(branches)) return schema;
  const typed = branches.every((branch) => isSchema(branch) && typeof branch.type === 'string');
  const others = branches.filter((branch) => !(isSchema(branch) && branch.type === 'null' && Object.keys(branch).length === 1));
  if (!typed || others.length !== 1) return schema;
  const { anyOf: _anyOf, ...outer } = schema;
  const inner = others[0] as Schema;
  return { ...inner, ...outer, type: [inner.type as string, ...(others.length < branches.length ? ['null'] : [])] };
}

/** The JSON types a schema allows; null when it does not say (any value). */
function typesOf(schema: Schema): Set<string> | null {
  if (typeof schema.type === 'string') return new Set([schema.type]);
  if (Array.isArray(schema.type)) return new Set(schema.type.map(String));
  return null;
}

/** Whether `types` allows every value of `type` (an integer is a number). */
function allows(types: Set<string> | null, type: string): boolean {
  return types === null || types.has(type) || (type === 'integer' && types.has('number'));
}

function showTypes(types: Set<string> | null): string {
  return types === null ? 'any type' : [...types].map((type) => `\`${type}\``).join(' | ');
}

class Comparison {
  readonly changes: SchemaChange[] = [];
  constructor(private readonly side: SchemaSide) {}

  private add(kind: string, where: string, severity: Severity, message: string, documentationOnly = false): void {
    this.changes.push({ kind: `${this.side.toUpperCase()}_${kind}`, where, severity, message, ...(documentationOnly ? { documentationOnly: true as const } : {}) });
  }

  /** Narrowing is breaking for input; for output it is safe, and widening is for a reviewer. */
  private narrowing(narrowed: boolean, widened: boolean): Severity {
    if (this.side === 'input') return narrowed ? 'breaking' : 'safe';
    return widened ? 'dangerous' : 'safe';
  }

  compare(rawBefore: Schema, rawAfter: Schema, where: string): void {
    const before = normalised(rawBefore);
    const after = normalised(rawAfter);
    this.annotations(before, after, where);
    if (this.unknownKeywords(before, after, where)) return;
    const typesBefore = typesOf(before);
    const typesAfter = typesOf(after);
    if (!this.types(typesBefore, typesAfter, where)) return;
    this.values(before, after, where);
    this.constraints(before, after, where);
    if (allows(typesBefore, 'object') || allows(typesAfter, 'object')) this.properties(before, after, where);
    if (isSchema(before.items) && isSchema(after.items)) this.compare(before.items, after.items, `${where}[]`);
    else if (json(before.items) !== json(after.items)) this.add('SCHEMA_CHANGED', `${where}[]`, 'dangerous', `The items of \`${where}\` changed from ${code(before.items ?? 'any')} to ${code(after.items ?? 'any')}.`);
  }

  private annotations(before: Schema, after: Schema, where: string): void {
    for (const keyword of ['description', 'title', 'examples'] as const) {
      if (json(before[keyword]) === json(after[keyword])) continue;
      this.add(`${keyword.toUpperCase()}_CHANGED`, where, 'safe', `The ${keyword} of \`${where}\` changed.`, true);
    }
    // A default is behaviour: a client that leaves the value out gets another one.
    if (json(before.default) !== json(after.default)) {
      this.add('DEFAULT_CHANGED', where, this.side === 'input' ? 'dangerous' : 'safe', `The default of \`${where}\` changed from ${code(before.default ?? 'none')} to ${code(after.default ?? 'none')}.`);
    }
  }

  /** Keywords this comparison does not read (a union, `allOf`, `$ref`, …): any difference there is one row for a reviewer. */
  private unknownKeywords(before: Schema, after: Schema, where: string): boolean {
    const rest = (schema: Schema) => json(Object.fromEntries(Object.entries(schema).filter(([keyword]) => !KNOWN.has(keyword)).sort(([a], [b]) => a.localeCompare(b))));
    if (rest(before) === rest(after)) return false;
    this.add('SCHEMA_CHANGED', where, 'dangerous', `The schema of \`${where}\` changed in a way this diff does not rate (from ${rest(before)} to ${rest(after)}); review it.`);
    return true;
  }

  /** False when the types changed so much (an object became a string) that comparing deeper says nothing more. */
  private types(before: Set<string> | null, after: Set<string> | null, where: string): boolean {
    const removed = before === null ? (after === null ? [] : ['(any)']) : [...before].filter((type) => !allows(after, type));
    const added = after === null ? (before === null ? [] : ['(any)']) : [...after].filter((type) => !allows(before, type));
    if (removed.length === 0 && added.length === 0) return true;
    const severity = this.side === 'input' ? (removed.length > 0 ? 'breaking' : 'safe') : added.length > 0 ? 'breaking' : 'safe';
    this.add('TYPE_CHANGED', where, severity, `The type of \`${where}\` changed from ${showTypes(before)} to ${showTypes(after)}.`);
    // Deeper keywords still say something when a value of the old type is still one of the new (integer and number).
    return before === null || after === null || [...before].some((type) => type !== 'null' && (allows(after, type) || [...after].some((other) => allows(before, other) && other !== 'null')));
  }

  /** `enum` and `const`: the values allowed, compared as sets (one row for all of them). */
  private values(before: Schema, after: Schema, where: string): void {
    const valuesOf = (schema: Schema): string[] | null => (Array.isArray(schema.enum) ? schema.enum.map(json) : 'const' in schema ? [json(schema.const)] : null);
    const listBefore = valuesOf(before);
    const listAfter = valuesOf(after);
    if (json(listBefore === null ? null : [...listBefore].sort()) === json(listAfter === null ? null : [...listAfter].sort())) return;
    const removed = listBefore === null ? [] : listBefore.filter((value) => listAfter !== null && !listAfter.includes(value));
    const added = listAfter === null ? [] : listAfter.filter((value) => listBefore !== null && !listBefore.includes(value));
    const narrowed = removed.length > 0 || (listBefore === null && listAfter !== null);
    const widened = added.length > 0 || (listBefore !== null && listAfter === null);
    const parts = [
      ...(listBefore === null ? [`now limited to ${listAfter?.join(', ')}`] : []),
      ...(listAfter === null ? ['no longer limited to a list of values'] : []),
      ...(added.length > 0 ? [`added ${added.join(', ')}`] : []),
      ...(removed.length > 0 ? [`removed ${removed.join(', ')}`] : []),
    ];
    this.add('ENUM_CHANGED', where, this.narrowing(narrowed, widened), `The values of \`${where}\` changed: ${parts.join('; ')}.`);
  }

  /** Bounds, patterns and formats of one value: one row for all of them. */
  private constraints(before: Schema, after: Schema, where: string): void {
    const parts: string[] = [];
    let narrowed = false;
    let widened = false;
    const bound = (keyword: string, tighter: (a: number, b: number) => boolean) => {
      const a = before[keyword];
      const b = after[keyword];
      if (json(a) === json(b)) return;
      parts.push(`${keyword} ${a === undefined ? 'none' : json(a)} → ${b === undefined ? 'none' : json(b)}`);
      if (typeof b === 'number' && (typeof a !== 'number' || tighter(b, a))) narrowed = true;
      else widened = true;
    };
    for (const keyword of LOWER_BOUNDS) bound(keyword, (b, a) => b > a);
    for (const keyword of UPPER_BOUNDS) bound(keyword, (b, a) => b < a);
    for (const keyword of OPAQUE_CONSTRAINTS) {
      const a = before[keyword];
      const b = after[keyword];
      if (json(a) === json(b)) continue;
      parts.push(`${keyword} ${code(a ?? 'none')} → ${code(b ?? 'none')}`);
      // A new or different pattern cannot be proven to accept what the old one did: narrowed. Dropping it widens.
      if (b !== undefined) narrowed = true;
      if (a !== undefined) widened = true;
    }
    if (parts.length === 0) return;
    this.add('CONSTRAINTS_CHANGED', where, this.narrowing(narrowed, widened), `The constraints of \`${where}\` changed: ${parts.join('; ')}.`);
  }

  private properties(before: Schema, after: Schema, where: string): void {
    const propertiesOf = (schema: Schema): Record<string, unknown> => (isSchema(schema.properties) ? schema.properties : {});
    const requiredOf = (schema: Schema): Set<string> => new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
    const propsBefore = propertiesOf(before);
    const propsAfter = propertiesOf(after);
    const requiredBefore = requiredOf(before);
    const requiredAfter = requiredOf(after);
    const input = this.side === 'input';
    for (const name of Object.keys(propsBefore)) {
      const at = `${where}.${name}`;
      if (!Object.hasOwn(propsAfter, name)) {
        // Input: a client that sends it is refused or silently ignored. Output: a client that reads it finds nothing.
        const severity = input || requiredBefore.has(name) ? 'breaking' : 'dangerous';
        this.add('PROPERTY_REMOVED', at, severity, `The ${requiredBefore.has(name) ? 'required' : 'optional'} property \`${at}\` was removed.`);
        continue;
      }
      if (requiredBefore.has(name) !== requiredAfter.has(name)) {
        const nowRequired = requiredAfter.has(name);
        // Input made required, or output made optional: a client written for the old contract breaks.
        const severity = input === nowRequired ? 'breaking' : 'safe';
        this.add(nowRequired ? 'PROPERTY_REQUIRED' : 'PROPERTY_OPTIONAL', at, severity, `The property \`${at}\` is ${nowRequired ? 'now required' : 'now optional'}.`);
      }
      const schemaBefore = propsBefore[name];
      const schemaAfter = propsAfter[name];
      if (isSchema(schemaBefore) && isSchema(schemaAfter)) this.compare(schemaBefore, schemaAfter, at);
    }
    for (const name of Object.keys(propsAfter).filter((key) => !Object.hasOwn(propsBefore, key))) {
      const at = `${where}.${name}`;
      const required = requiredAfter.has(name);
      this.add('PROPERTY_ADDED', at, input && required ? 'breaking' : 'safe', `New ${required ? 'required' : 'optional'} property \`${at}\`.`);
    }
    this.additionalProperties(before.additionalProperties, after.additionalProperties, where);
  }

  /** `additionalProperties`: absent or true allows any other property, false none, a schema those of its shape. */
  private additionalProperties(before: unknown, after: unknown, where: string): void {
    if (json(before) === json(after)) return;
    if (isSchema(before) && isSchema(after)) {
      this.compare(before, after, `${where}.*`);
      return;
    }
    const open = (value: unknown) => value === undefined || value === true;
    const narrowed = open(before) && !open(after);
    const widened = !open(before) && open(after);
    // A shape traded for false (or the reverse) may both refuse old values and allow new ones.
    const both = !narrowed && !widened;
    const shown = (value: unknown) => (open(value) ? 'any other property' : value === false ? 'no other property' : `other properties of shape ${code(value)}`);
    this.add('ADDITIONAL_PROPERTIES_CHANGED', where, this.narrowing(narrowed || both, widened || both), `\`${where}\` allowed ${shown(before)} and now allows ${shown(after)}.`);
  }
}

/** The changes from `before` to `after`, one schema of one side of a tool, `where` naming its root (`list_my_courses.input`). */
export function schemaChanges(before: Record<string, unknown>, after: Record<string, unknown>, side: SchemaSide, where: string): SchemaChange[] {
  const comparison = new Comparison(side);
  comparison.compare(before, after, where);
  return comparison.changes;
}
