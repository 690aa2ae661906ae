/**
 * Where in the admin contract an edit was made, named so that the name survives unrelated edits.
 *
 * api-smart-diff resolves `$ref`s and reports each change once per operation that reaches it, with JSON pointers
 * (RFC 6901) that carry array positions (`…/required/2`, `…/parameters/5`). A reviewer made one edit, in one place:
 * `locate` follows the path through the unresolved document, jumping to the target of every `$ref` on the way, so
 * that all the reports of one edit land on the same location, and names array members by what they are instead of
 * where they sit: `required[slug]`, `enum[draft]`, `parameters[query:page]`, `security[oauth2]`, `oauth2[school:read]`,
 * `oneOf[ClientJwks]`. Adding an unrelated property or value then changes no other change's name.
 */

export type JsonPathPart = string | number;

export interface Location {
  /** The location with array members named: `/components/schemas/Course/required[slug]`; the key of a change's id. */
  named: string;
  /** The same location as a plain JSON pointer into the unresolved document (array positions), or null when it is not there. */
  pointer: string | null;
  /** `named` split into its segments, decoded: `['components', 'schemas', 'Course', 'required[slug]']`. */
  segments: string[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function escapeSegment(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function pointerOf(segments: readonly JsonPathPart[]): string {
  return segments.map((segment) => `/${escapeSegment(String(segment))}`).join('');
}

function refTarget(node: unknown): string[] | null {
  if (!isRecord(node) || typeof node.$ref !== 'string' || !node.$ref.startsWith('#/')) return null;
  return node.$ref
    .slice(2)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function at(document: unknown, segments: readonly string[]): unknown {
  let node = document;
  for (const segment of segments) node = Array.isArray(node) ? node[Number(segment)] : isRecord(node) ? node[segment] : undefined;
  return node;
}

/** A node with its `$ref`s followed (a chain included); cycles stop after a few hops. */
function dereference(document: unknown, node: unknown): unknown {
  let current = node;
  for (let hops = 0; hops < 16; hops += 1) {
    const target = refTarget(current);
    if (target === null) return current;
    current = at(document, target);
  }
  return current;
}

/** What an array member is, independent of its position: a value, a parameter's `in:name`, a security requirement's schemes. */
function identityOf(value: unknown): string | null {
  if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) return String(value);
  if (!isRecord(value)) return null;
  if (typeof value.name === 'string' && typeof value.in === 'string') return `${value.in}:${value.name}`;
  const keys = Object.keys(value);
  if (keys.length > 0 && keys.every((key) => Array.isArray(value[key]))) return keys.sort().join('+');
  if (typeof value.title === 'string') return value.title;
  if (typeof value.type === 'string') return `type:${value.type}`;
  return null;
}

/**
 * The name of an array member: its identity (a value, `in:name`, schemes), else the component it refers to
 * (`oneOf[ClientJwks]`), else its type.
 */
function memberName(document: unknown, member: unknown): string | null {
  const identity = identityOf(dereference(document, member));
  if (identity !== null && !identity.startsWith('type:')) return identity;
  return refTarget(member)?.at(-1) ?? identity;
}

/**
 * Follows `path` (as api-smart-diff reports it, over the resolved documents) through the unresolved `document`.
 * `merged` is api-smart-diff's merged document (resolved, array positions as in the path) and names the members
 * passed on the way; `leaf` is the value added, removed or replaced, which names the last member when the path ends
 * in an array position.
 */
export function locate(document: unknown, merged: unknown, path: readonly JsonPathPart[], leaf: unknown): Location {
  let node: unknown = document;
  let mergedNode: unknown = merged;
  let raw: string[] = [];
  let named: string[] = [];
  let found = true;
  path.forEach((part, index) => {
    const target = refTarget(node);
    if (target !== null) {
      raw = [...target];
      named = [...target];
      node = dereference(document, node);
    }
    const mergedMember: unknown = Array.isArray(mergedNode) ? mergedNode[Number(part)] : isRecord(mergedNode) ? mergedNode[String(part)] : undefined;
    if (typeof part === 'number' && (Array.isArray(node) || Array.isArray(mergedNode))) {
      const last = index === path.length - 1;
      const identity = identityOf(last && leaf !== undefined ? leaf : mergedMember);
      const members: unknown[] = Array.isArray(node) ? node : [];
      const position = identity === null ? -1 : members.findIndex((member) => identityOf(dereference(document, member)) === identity);
      const member = position >= 0 ? members[position] : undefined;
      const name = (position >= 0 ? memberName(document, member) : null) ?? identity ?? String(part);
      if (named.length === 0) named.push(`[${name}]`);
      else named[named.length - 1] = `${named[named.length - 1]}[${name}]`;
      if (position < 0) found = false;
      raw.push(String(position));
      node = member;
    } else {
      raw.push(String(part));
      named.push(String(part));
      if (!isRecord(node) || !Object.hasOwn(node, String(part))) found = false;
      node = isRecord(node) ? node[String(part)] : undefined;
    }
    mergedNode = mergedMember;
  });
  return { named: pointerOf(named), pointer: found ? pointerOf(raw) : null, segments: named };
}

/** The named form of a plain JSON pointer into the unresolved document (array positions named by their members). */
export function nameOfPointer(document: unknown, pointer: string): string {
  const segments = pointer
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
  const named: string[] = [];
  let node: unknown = document;
  for (const segment of segments) {
    if (Array.isArray(node)) {
      const member: unknown = node[Number(segment)];
      const name = memberName(document, member) ?? segment;
      if (named.length === 0) named.push(`[${name}]`);
      else named[named.length - 1] = `${named[named.length - 1]}[${name}]`;
      node = member;
    } else {
      named.push(segment);
      node = isRecord(node) ? node[segment] : undefined;
    }
  }
  return pointerOf(named);
}

/** Whether a named location (`/paths/~1courses/get/parameters[query:page]`) is in the unresolved document. */
export function namedLocationExists(document: unknown, named: string): boolean {
  let node: unknown = document;
  for (const segment of named.split('/').slice(1).map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))) {
    const [, key, members] = /^([^[]*)((?:\[[^\]]*\])*)$/.exec(segment) ?? [];
    if (key !== undefined && key !== '') {
      if (!isRecord(node) || !Object.hasOwn(node, key)) return false;
      node = node[key];
    }
    for (const [, name] of (members ?? '').matchAll(/\[([^\]]*)\]/g)) {
      if (!Array.isArray(node)) return false;
      const match: unknown = node.find((member) => memberName(document, member) === name);
      if (match === undefined) return false;
      node = match;
    }
  }
  return true;
}
