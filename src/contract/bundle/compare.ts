/**
 * The JSON pointer of the first place two parsed documents differ, key order included (the served /openapi.json
 * keeps the order of the YAML), or null when they are the same.
 */
export function firstDifference(expected: unknown, actual: unknown, at = ''): string | null {
  if (Array.isArray(expected) || Array.isArray(actual)) {
    if (!Array.isArray(expected) || !Array.isArray(actual) || expected.length !== actual.length) return at || '/';
    for (const [index, item] of expected.entries()) {
      const difference = firstDifference(item, actual[index], `${at}/${index}`);
      if (difference !== null) return difference;
    }
    return null;
  }
  if (typeof expected === 'object' && expected !== null && typeof actual === 'object' && actual !== null) {
    const expectedKeys = Object.keys(expected);
    const actualKeys = Object.keys(actual);
    for (const [index, key] of expectedKeys.entries()) {
      const where = `${at}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      if (actualKeys[index] !== key) return `${where} (keys out of order or missing)`;
      const difference = firstDifference((expected as Record<string, unknown>)[key], (actual as Record<string, unknown>)[key], where);
      if (difference !== null) return difference;
    }
    return actualKeys.length === expectedKeys.length ? null : `${at}/${actualKeys[expectedKeys.length] ?? ''} (not in Redocly's bundle)`;
  }
  return Object.is(expected, actual) ? null : at || '/';
}
