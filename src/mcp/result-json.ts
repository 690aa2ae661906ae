/**
 * A tool result carries the same JSON twice: as `structuredContent` and as its one text content (src/mcp/tool.ts). The
 * text is kept here next to the object it was made from, so the answer's body writes that JSON as it is instead of
 * serialising the object a second time.
 */
const jsonOfStructured = new WeakMap<object, string>();

/** The text content of `structured`: its JSON, remembered for `resultJson`. */
export function structuredText(structured: Record<string, unknown>): string {
  const json = JSON.stringify(structured);
  jsonOfStructured.set(structured, json);
  return json;
}

/**
 * `JSON.stringify(result)` of a result object, written with the JSON `structuredText` made of its `structuredContent`
 * when that is its text content too (the same text, key by key in the same order, so the bytes are those of
 * `JSON.stringify`). Any other result is serialised as it is.
 */
export function resultJson(result: Readonly<Record<string, unknown>>): string {
  const structured = result.structuredContent;
  const json = typeof structured === 'object' && structured !== null ? jsonOfStructured.get(structured) : undefined;
  const content = result.content;
  if (json === undefined || !Array.isArray(content) || !content.some((item) => (item as { text?: unknown }).text === json)) return JSON.stringify(result);
  const members: string[] = [];
  for (const key of Object.keys(result)) {
    const value = key === 'structuredContent' ? json : JSON.stringify(result[key]);
    // As JSON.stringify: a member whose value is undefined (or a function) is left out.
    if (value !== undefined) members.push(`${JSON.stringify(key)}:${value}`);
  }
  return `{${members.join(',')}}`;
}
