import fs from 'node:fs';
import { expect } from 'chai';
import { scopesForAudience } from '../src/clients/scopes.js';
import { buildDemoDocument, DEMO_CLIENTS, DEMO_LOGINS } from '../src/demo/demo-school.js';
import type { ImportDocument } from '../src/import/document.js';
import { isDateTime } from '../src/import/validate.js';
import { projectPath } from '../src/shared/paths.js';

const ORIGIN = 'https://demo-document.example';
const TEMPLATE_TEXT = fs.readFileSync(projectPath('src', 'demo', 'demo-school.json'), 'utf8');

function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(strings);
  return [];
}

function meeting(document: ImportDocument, externalId: string) {
  const found = (document.consultingServices ?? []).flatMap((service) => service.meetings ?? []).find((candidate) => candidate.externalId === externalId);
  if (!found) throw new Error(`no meeting ${externalId}`);
  return found;
}

function event(document: ImportDocument, externalId: string) {
  const found = document.events?.find((candidate) => candidate.externalId === externalId);
  if (!found) throw new Error(`no event ${externalId}`);
  return found;
}

describe('demo school document: src/demo/demo-school.json and its loader', () => {
  it('holds no absolute time and no origin, so it is the same school wherever and whenever it is loaded', () => {
    const template = JSON.parse(TEMPLATE_TEXT) as unknown;
    expect(strings(template).filter(isDateTime)).to.deep.equal([]);
    expect(strings(template).filter((text) => text.includes('localhost:3000'))).to.deep.equal([]);
    expect(TEMPLATE_TEXT).to.include('"origin": "{origin}"');
  });

  it('fills in every relative time and every {origin}', () => {
    const document = buildDemoDocument(ORIGIN, new Date());
    const texts = strings(document);
    expect(texts.filter((text) => /^(now|today@|next-)/.test(text))).to.deep.equal([]);
    expect(texts.filter((text) => text.includes('{origin}'))).to.deep.equal([]);
    expect(document.site.origin).to.equal(ORIGIN);
    expect(document.site.appearance?.logoUrl).to.equal(`${ORIGIN}/assets/northwind-logo.svg`);
    expect(event(document, 'evt-portfolio-night').description).to.include(`${ORIGIN}/events/portfolio-night-online`);
  });

  it('counts `now` from the load rounded down to the minute', () => {
    const document = buildDemoDocument(ORIGIN, new Date('2026-11-24T08:15:42.500Z'));
    expect(meeting(document, 'mtg-oh-live')).to.include({ startsAt: '2026-11-24T07:55:00.000Z', endsAt: '2026-11-24T08:55:00.000Z' });
    expect(document.enrollments?.find((enrollment) => enrollment.externalId === 'enr-mia-typo')?.lastWatched?.at).to.equal('2026-11-22T11:15:00.000Z');
  });

  it("reads wall-clock times in the site's timezone: today is Taipei's today", () => {
    // 01:00 on 25 November in Taipei (UTC+8), still the 24th in UTC.
    const document = buildDemoDocument(ORIGIN, new Date('2026-11-24T17:00:00Z'));
    expect(event(document, 'evt-lettering-live')).to.include({ startsAt: '2026-11-05T11:00:00.000Z', endsAt: '2026-11-05T12:30:00.000Z' });
    expect(event(document, 'evt-ds-meetup').startsAt).to.equal('2026-12-07T10:30:00.000Z');
  });

  it('takes the next weekday occurrence strictly after now, and counts weeks from it', () => {
    // Tuesday 24 November 2026, 19:29 in Taipei: the Tuesday 19:30 review is a minute away.
    const before = buildDemoDocument(ORIGIN, new Date('2026-11-24T11:29:59Z'));
    expect(meeting(before, 'mtg-pr-003')).to.include({ startsAt: '2026-11-24T11:30:00.000Z', endsAt: '2026-11-24T12:15:00.000Z' });
    expect(meeting(before, 'mtg-pr-001').startsAt).to.equal('2026-11-03T11:30:00.000Z');
    // At 19:30 itself that one is no longer next: the next is a week later.
    const at = buildDemoDocument(ORIGIN, new Date('2026-11-24T11:30:00Z'));
    expect(meeting(at, 'mtg-pr-003').startsAt).to.equal('2026-12-01T11:30:00.000Z');
  });

  it('gives the logins and OAuth clients the document holds', () => {
    expect(DEMO_LOGINS.member).to.deep.equal({ email: 'mia.chen@example.com', password: 'learn-with-mia-2026', name: 'Mia Chen' });
    expect(DEMO_LOGINS.operator.email).to.equal('olivia.ops@example.com');
    expect(DEMO_LOGINS.staff.email).to.equal('samuel.staff@example.com');
    expect(DEMO_CLIENTS.member).to.deep.equal({
      clientId: 'demo-member-app',
      redirectUris: ['http://localhost:8765/callback', 'http://127.0.0.1:8765/callback'],
      scopes: ['openid', 'profile', 'email', 'account:read', 'account:write'],
    });
    expect(DEMO_CLIENTS.operator.clientId).to.equal('demo-operator-console');
    expect(DEMO_CLIENTS.operator.clientSecret).to.match(/^demo_/);
    // docs/demo.md: the operator console holds every operator scope.
    expect(DEMO_CLIENTS.operator.scopes).to.deep.equal(scopesForAudience('operator'));
  });
});
