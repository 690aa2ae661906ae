import { html, type Html } from '../http/html.js';
import demoSchool from './demo-school.json' with { type: 'json' };

/**
 * The demo school's pictures: its logo, favicon, course covers and Mia's avatar, drawn here as small SVGs in the
 * school's colours so the demo ships no image files and every URL in its document answers (src/demo/asset-routes.ts,
 * docs/demo.md). Text and shapes only, with presentation attributes (no <style>, no script, no external reference),
 * so they render under the sandboxing CSP they are served with. Written with the escaping `html` template: SVG is XML,
 * and its escapes are XML's too.
 */

/** The school's colours, as its document's appearance gives them. */
export const DEMO_COLORS = { primary: demoSchool.site.appearance.primaryColor, accent: demoSchool.site.appearance.accentColor } as const;

const WHITE = '#ffffff';
const FONT = 'Helvetica, Arial, sans-serif';

/** Every demo picture, by name, at its path on the site's origin (demo-school.json links them under `{origin}`). */
export const DEMO_ASSET_PATHS = {
  logo: '/assets/northwind-logo.svg',
  favicon: '/assets/favicon.svg',
  typographyCover: '/assets/courses/typography.svg',
  designSystemsCover: '/assets/courses/design-systems.svg',
  colorCover: '/assets/courses/color.svg',
  figmaCover: '/assets/courses/figma.svg',
  miaAvatar: '/assets/avatars/mia-chen.svg',
} as const;

type DemoAssetName = keyof typeof DEMO_ASSET_PATHS;

function svg(width: number, height: number, title: string, content: Html): string {
  return html`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img"><title>${title}</title>${content}</svg>
`.toString();
}

/** Centred text, e.g. initials on a square. */
function centred(x: number, y: number, size: number, fill: string, text: string): Html {
  return html`<text x="${x}" y="${y}" text-anchor="middle" dominant-baseline="central" fill="${fill}" font-family="${FONT}" font-size="${size}" font-weight="700">${text}</text>`;
}

/** The title in lines of at most `width` characters, broken between words. */
function lines(title: string, width: number): string[] {
  const out: string[] = [];
  for (const word of title.split(/\s+/)) {
    const last = out.at(-1);
    if (last !== undefined && last.length + 1 + word.length <= width) out[out.length - 1] = `${last} ${word}`;
    else out.push(word);
  }
  return out;
}

/** A 16:9 course cover: the course's initials and title on the school's blue, with an amber disc and band. */
function courseCover(title: string, initials: string): string {
  const titleLines = lines(title, 20).map((line, index) => html`<text x="80" y="${380 + index * 76}" fill="${WHITE}" font-family="${FONT}" font-size="64" font-weight="700">${line}</text>`);
  return svg(
    1200,
    675,
    title,
    html`<rect width="1200" height="675" fill="${DEMO_COLORS.primary}"/><circle cx="1060" cy="140" r="240" fill="${DEMO_COLORS.accent}"/><text x="80" y="230" fill="${DEMO_COLORS.accent}" font-family="${FONT}" font-size="140" font-weight="700">${initials}</text>${titleLines}<rect y="595" width="1200" height="80" fill="${DEMO_COLORS.accent}"/><text x="80" y="646" fill="${DEMO_COLORS.primary}" font-family="${FONT}" font-size="30" font-weight="700" letter-spacing="4">NORTHWIND ACADEMY OF DESIGN</text>`,
  );
}

function logo(): string {
  return svg(
    440,
    128,
    'Northwind Academy of Design',
    html`<rect width="128" height="128" rx="24" fill="${DEMO_COLORS.primary}"/>${centred(64, 68, 84, DEMO_COLORS.accent, 'N')}<text x="156" y="62" fill="${DEMO_COLORS.primary}" font-family="${FONT}" font-size="44" font-weight="700">Northwind</text><text x="158" y="104" fill="${DEMO_COLORS.primary}" font-family="${FONT}" font-size="28">Academy of Design</text>`,
  );
}

function favicon(): string {
  return svg(64, 64, 'Northwind Academy of Design', html`<rect width="64" height="64" rx="12" fill="${DEMO_COLORS.primary}"/>${centred(32, 34, 44, DEMO_COLORS.accent, 'N')}`);
}

function avatar(name: string, initials: string): string {
  return svg(256, 256, name, html`<rect width="256" height="256" fill="${DEMO_COLORS.primary}"/>${centred(128, 132, 104, DEMO_COLORS.accent, initials)}`);
}

/** The pictures' SVG text by path, drawn once. */
export function demoAssets(): ReadonlyMap<string, string> {
  const drawn: Record<DemoAssetName, string> = {
    logo: logo(),
    favicon: favicon(),
    typographyCover: courseCover('Foundations of Typography', 'Aa'),
    designSystemsCover: courseCover('Design Systems for Product Teams', 'DS'),
    colorCover: courseCover('Color Theory Studio', 'CT'),
    figmaCover: courseCover('Prototyping in Figma', 'PF'),
    miaAvatar: avatar('Mia Chen', 'MC'),
  };
  return new Map(Object.entries(drawn).map(([name, text]) => [DEMO_ASSET_PATHS[name as DemoAssetName], text]));
}
