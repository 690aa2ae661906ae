import path from 'node:path';

/**
 * The bundle's text, assembled from the contract's sources the way they read: openapi/root.yaml with each
 * `KEY: {$ref: 'FILE#/POINTER'}` line replaced by that entry of FILE (indented to its place), and every `$ref` of an
 * entry turned into the local `#/components/<kind>/<name>` the root lists it under. Comments and layout stay as
 * written, so a diff of openapi/admin.yaml reads like a diff of its sources; main.ts checks that the result is the
 * document Redocly CLI bundles.
 */

/** Reads a source file by its path relative to openapi/ (e.g. `paths/courses.yaml`). */
export type SourceReader = (file: string) => string;

export class BundleError extends Error {}

const LISTED_ENTRY = /^( +)([^\s#][^:]*): \{\$ref: '([^'#]+)#(\/[^']*)'\}$/;
const ENTRY_KEY = /^([^\s#][^:]*):(.*)$/;
const REF = /(\$ref: *)(['"]?)([^'"\s},]+)\2/g;

function decodePointer(pointer: string): string[] {
  return pointer
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The top-level entries of a source file: key → its lines (key line first), trailing blank lines dropped. */
function readEntries(file: string, text: string): Map<string, string[]> {
  const entries = new Map<string, string[]>();
  let current: string[] | null = null;
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const key = ENTRY_KEY.exec(line);
    if (key) {
      if (entries.has(key[1]!)) throw new BundleError(`${file}: ${key[1]} is defined twice`);
      current = [line];
      entries.set(key[1]!, current);
    } else if (line.trim() !== '') {
      if (!current) throw new BundleError(`${file}: "${line.trim()}" comes before the first entry`);
      current.push(line);
    } else if (current) {
      current.push('');
    }
  }
  for (const lines of entries.values()) while (lines.at(-1) === '') lines.pop();
  return entries;
}

export function assembleBundle(rootText: string, read: SourceReader): string {
  const rootLines = rootText.replace(/\n$/, '').split('\n');
  // The root's own opening comment describes the sources; the bundle carries a header of its own instead.
  while (rootLines[0]?.startsWith('#')) rootLines.shift();

  // Where each listed entry lives, and the name the root gives each component: `components/<kind>/<file>#/<name>`.
  const componentNames = new Map<string, string>();
  let section: string[] = [];
  for (const line of rootLines) {
    const indent = line.length - line.trimStart().length;
    const key = /^ *([^\s#][^:]*):/.exec(line)?.[1];
    if (key !== undefined && !line.includes('$ref')) section = [...section.slice(0, indent / 2), key];
    const listed = LISTED_ENTRY.exec(line);
    if (listed && section[0] === 'components') componentNames.set(`${path.posix.normalize(listed[3]!)}#${listed[4]}`, `#/components/${section[1]}/${listed[2]}`);
  }

  const files = new Map<string, Map<string, string[]>>();
  const entriesOf = (file: string) => {
    let entries = files.get(file);
    if (!entries) {
      entries = readEntries(file, read(file));
      files.set(file, entries);
    }
    return entries;
  };

  const localRef = (file: string, target: string): string => {
    const [targetFile, pointer] = target.split('#') as [string, string | undefined];
    const resolved = targetFile === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), targetFile));
    const name = pointer === undefined ? undefined : componentNames.get(`${resolved}#${pointer}`);
    if (!name) throw new BundleError(`${file}: $ref ${target} names no component listed in openapi/root.yaml (list it under components there)`);
    return name;
  };

  const output: string[] = [];
  for (const line of rootLines) {
    const listed = LISTED_ENTRY.exec(line);
    if (!listed) {
      output.push(line);
      continue;
    }
    const [, indent, key, file, pointer] = listed as unknown as [string, string, string, string, string];
    const source = path.posix.normalize(file);
    const parts = decodePointer(pointer);
    const entry = parts.length === 1 ? entriesOf(source).get(parts[0]!) : undefined;
    if (!entry) throw new BundleError(`openapi/root.yaml: ${key} refers to ${file}#${pointer}, which is not an entry of that file`);
    const [keyLine, ...body] = entry;
    output.push(`${indent}${key}:${ENTRY_KEY.exec(keyLine!)![2]}`);
    for (const bodyLine of body) {
      const rewritten = bodyLine.replace(REF, (_match: string, prefix: string, _quote: string, target: string) => `${prefix}'${localRef(source, target)}'`);
      output.push(bodyLine === '' ? '' : `${indent}${rewritten}`);
    }
  }
  return `${output.join('\n')}\n`;
}
