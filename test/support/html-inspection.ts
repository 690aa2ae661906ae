/** The values of `attribute` on every `<tag>` of a page, entities for `&` decoded. */
export function attributes(html: string, tag: string, attribute: string): string[] {
  const values: string[] = [];
  for (const match of html.matchAll(new RegExp(`<${tag}\\b[^>]*>`, 'gi'))) {
    const value = new RegExp(`\\s${attribute}="([^"]*)"`, 'i').exec(match[0]);
    if (value?.[1] !== undefined) values.push(value[1].replace(/&amp;/g, '&'));
  }
  return values;
}

/** The sources of one Content-Security-Policy directive (empty when it is absent). */
export function directive(csp: string, name: string): string[] {
  const found = csp
    .split(';')
    .map((part) => part.trim().split(/\s+/))
    .find(([key]) => key === name);
  return found ? found.slice(1) : [];
}
