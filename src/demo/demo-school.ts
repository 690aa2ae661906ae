import type { Database } from '../db/connection.js';
import { scopesForAudience } from '../clients/scopes.js';
import { importSiteDocument, type ImportReport } from '../import/import-site.js';
import type {
  ConsultingMeetingInput,
  CourseInput,
  EnrollmentInput,
  ImportDocument,
  LectureInput,
  LectureProgressInput,
  NotificationInput,
  PaymentInput,
  StudyGroupMeetingInput,
  Weekday,
} from '../import/document.js';
import { DEMO_COLORS, demoAssetUrl } from './assets.js';

/**
 * The demo school seeded into an empty database: "Northwind Academy of Design", a Taipei design school, built as an
 * ordinary import document (docs/import.schema.json) relative to `now`, so its meetings are always past, live and
 * upcoming and its payment deadlines are always pending or expired. See docs/demo.md.
 */

export const DEMO_LOGINS = {
  member: { email: 'mia.chen@example.com', password: 'learn-with-mia-2026', name: 'Mia Chen' },
  operator: { email: 'olivia.ops@example.com', password: 'run-the-school-2026', name: 'Olivia Park' },
  staff: { email: 'samuel.staff@example.com', password: 'help-the-learners-2026', name: 'Samuel Okafor' },
} as const;

export const DEMO_CLIENTS = {
  member: {
    clientId: 'demo-member-app',
    redirectUris: ['http://localhost:8765/callback', 'http://127.0.0.1:8765/callback'],
    scopes: ['openid', 'profile', 'email', 'account:read', 'account:write'],
  },
  operator: {
    clientId: 'demo-operator-console',
    clientSecret: 'demo_P2OO4qFrFQgtACyQ43klCRl6spXdlQzoPqy9f6-oAjA',
    redirectUris: ['http://localhost:8765/callback'],
    scopes: scopesForAudience('operator'),
  },
} as const;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** Asia/Taipei has had no daylight saving time since 1979: always UTC+8. */
const TAIPEI_OFFSET = 8 * HOUR;
const TIMEZONE = 'Asia/Taipei';
const CURRENCY = 'TWD';

const MIA = DEMO_LOGINS.member.email;
const OLIVIA = DEMO_LOGINS.operator.email;
const SAMUEL = DEMO_LOGINS.staff.email;
const LIANG = 'liang.wu@example.com';
const PRIYA = 'priya.raman@example.com';
const NOAH = 'noah.kim@example.com';
const AVA = 'ava.lin@example.com';
const ETHAN = 'ethan.huang@example.com';
const SOFIA = 'sofia.garcia@example.com';
const LUCAS = 'lucas.tsai@example.com';

/** NT$ amounts in minor units (TWD has two decimal places in ISO 4217). */
const ntd = (dollars: number): number => dollars * 100;
const price = (dollars: number) => ({ amount: ntd(dollars), currency: CURRENCY });

/** Instants relative to `now`, rounded down to the minute so documents built a few seconds apart agree. */
class Clock {
  readonly now: number;
  constructor(now: Date) {
    this.now = Math.floor(now.getTime() / MINUTE) * MINUTE;
  }

  /** now + offset, as an RFC 3339 string. */
  at(offset: number): string {
    return new Date(this.now + offset).toISOString();
  }

  daysAgo(days: number, plus = 0): string {
    return this.at(-days * DAY + plus);
  }

  inDays(days: number, plus = 0): string {
    return this.at(days * DAY + plus);
  }

  /** Wall-clock `HH:MM` in Taipei on the day `days` from today (Taipei's today). */
  taipei(days: number, hhmm: string): number {
    const local = new Date(this.now + TAIPEI_OFFSET);
    const [hours, minutes] = hhmm.split(':').map(Number);
    return Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate() + days, hours ?? 0, minutes ?? 0) - TAIPEI_OFFSET;
  }

  /**
   * The weekly occurrence of `weekday` at `hhmm` Taipei time: week 0 is the next one after now, -1 the one
   * before it (within the last seven days), 1 the one after next, and so on.
   */
  weekly(weekday: Weekday, hhmm: string, week: number): number {
    const today = new Date(this.now + TAIPEI_OFFSET).getUTCDay();
    let next = this.taipei((weekday - today + 7) % 7, hhmm);
    if (next <= this.now) next += 7 * DAY;
    return next + week * 7 * DAY;
  }
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** `m:ss` → seconds. */
function duration(text: string): number {
  const [minutes, seconds] = text.split(':').map(Number);
  return (minutes ?? 0) * 60 + (seconds ?? 0);
}

interface LectureSpec {
  title: string;
  kind?: LectureInput['kind'];
  /** `m:ss`; omitted for untimed content. */
  length?: string;
  preview?: boolean;
  locked?: boolean;
  unlockAt?: string;
}

interface CourseSpec extends Omit<CourseInput, 'sections' | 'externalId'> {
  /** Short key: the course is `crs-<key>`, its lectures `<key>-s<section>-l<lecture>` (1-based). */
  key: string;
  sections: Array<{ title: string; lectures: LectureSpec[] }>;
}

function course(spec: CourseSpec): CourseInput {
  const { key, sections, ...rest } = spec;
  return {
    externalId: `crs-${key}`,
    ...rest,
    sections: sections.map((section, s) => ({
      externalId: `${key}-s${s + 1}`,
      title: section.title,
      lectures: section.lectures.map((lecture, l) => ({
        externalId: `${key}-s${s + 1}-l${l + 1}`,
        title: lecture.title,
        kind: lecture.kind ?? 'video',
        durationSeconds: lecture.length ? duration(lecture.length) : 0,
        ...(lecture.locked ? { locked: true } : {}),
        ...(lecture.unlockAt ? { unlockAt: lecture.unlockAt } : {}),
        ...(lecture.preview ? { isPreview: true } : {}),
      })),
    })),
  };
}

function courses(clock: Clock, origin: string): CourseInput[] {
  return [
    course({
      key: 'typo',
      slug: 'foundations-of-typography',
      title: 'Foundations of Typography',
      description: 'Read, classify and set type with confidence: from letterform anatomy to type in product interfaces.',
      coverImageUrl: demoAssetUrl(origin, 'typographyCover'),
      status: 'published',
      price: price(3600),
      lecturers: [LIANG],
      sections: [
        {
          title: 'Reading Type',
          lectures: [
            { title: 'Why typography matters', length: '6:12', preview: true },
            { title: 'Anatomy of a letterform', length: '11:40' },
            { title: 'Classifying typefaces', length: '14:05' },
            { title: 'Quiz: name that classification', kind: 'quiz' },
          ],
        },
        {
          title: 'Setting Text',
          lectures: [
            { title: 'Measure, leading and rhythm', length: '16:20' },
            { title: 'Hierarchy with a single family', length: '13:45' },
            { title: 'Reading: the typographic scale', kind: 'text', length: '8:00' },
            { title: 'Exercise files: reset a magazine spread', kind: 'file' },
          ],
        },
        {
          title: 'Type in Interfaces',
          lectures: [
            { title: 'Variable fonts on the web', length: '18:30' },
            { title: 'Pairing typefaces for product UI', length: '12:10' },
            { title: 'Capstone brief and critique sign-up', kind: 'text', locked: true },
          ],
        },
      ],
    }),
    course({
      key: 'ds',
      slug: 'design-systems-for-product-teams',
      title: 'Design Systems for Product Teams',
      description: 'Audit, build and govern a design system your engineers will actually adopt.',
      coverImageUrl: demoAssetUrl(origin, 'designSystemsCover'),
      status: 'published',
      price: price(4800),
      lecturers: [PRIYA],
      sections: [
        {
          title: 'Foundations',
          lectures: [
            { title: "What a design system is (and isn't)", length: '9:30', preview: true },
            { title: 'Auditing an existing product', length: '15:15' },
            { title: 'Design tokens 101', length: '17:45' },
          ],
        },
        {
          title: 'Components',
          lectures: [
            { title: 'Anatomy of a button', length: '10:05' },
            { title: 'Variants and properties', length: '14:40' },
            { title: 'Documenting components', length: '12:00' },
            { title: 'Accessibility checks', length: '16:25' },
          ],
        },
        {
          title: 'Governance',
          lectures: [
            { title: 'Contribution models', length: '13:10', unlockAt: clock.inDays(7) },
            { title: 'Versioning and releases', length: '11:55', unlockAt: clock.inDays(14) },
            { title: 'Measuring adoption', length: '14:20', unlockAt: clock.inDays(21) },
            { title: 'Live review recording', length: '58:00', locked: true },
          ],
        },
      ],
    }),
    course({
      key: 'color',
      slug: 'color-theory-studio',
      title: 'Color Theory Studio',
      description: 'Hands-on colour: perception, contrast, palettes and accessible colour systems.',
      coverImageUrl: demoAssetUrl(origin, 'colorCover'),
      status: 'published',
      price: price(2800),
      lecturers: [LIANG],
      sections: [
        {
          title: 'Seeing Color',
          lectures: [
            { title: 'How we perceive colour', length: '8:45', preview: true },
            { title: 'Hue, value and saturation', length: '12:30' },
            { title: 'Simultaneous contrast', length: '10:15' },
            { title: 'Studio exercise: value scales', kind: 'file' },
          ],
        },
        {
          title: 'Color Systems',
          lectures: [
            { title: 'Building a palette from a photograph', length: '15:50' },
            { title: 'Contrast ratios and WCAG', length: '11:20' },
            { title: 'Color tokens for light and dark themes', length: '13:35' },
            { title: 'Quiz: accessible palettes', kind: 'quiz' },
          ],
        },
      ],
    }),
    course({
      key: 'figma',
      slug: 'prototyping-in-figma',
      title: 'Prototyping in Figma',
      description: 'From static frames to interactive, developer-ready prototypes.',
      coverImageUrl: demoAssetUrl(origin, 'figmaCover'),
      status: 'published',
      price: price(3200),
      lecturers: [PRIYA],
      sections: [
        {
          title: 'Frames and Auto Layout',
          lectures: [
            { title: 'Frames, groups and constraints', length: '9:10', preview: true },
            { title: 'Auto layout in depth', length: '18:05' },
            { title: 'Responsive resizing', length: '11:45' },
          ],
        },
        {
          title: 'Interactive Components',
          lectures: [
            { title: 'Interactions and smart animate', length: '14:30' },
            { title: 'Variables and conditional logic', length: '19:20' },
            { title: 'Prototyping a checkout flow', length: '21:40' },
            { title: 'Audio walkthrough: common pitfalls', kind: 'audio', length: '7:50' },
          ],
        },
        {
          title: 'Handoff',
          lectures: [
            { title: 'Dev mode and annotations', length: '10:30' },
            { title: 'Exporting assets', length: '6:40' },
            { title: 'Final project checklist', kind: 'text' },
          ],
        },
      ],
    }),
    course({
      key: 'folio',
      slug: 'portfolio-review-bootcamp',
      title: 'Portfolio Review Bootcamp',
      description: 'Four weeks to a portfolio that gets interviews. Opens next term.',
      status: 'draft',
      price: price(5200),
      lecturers: [LIANG, PRIYA],
      sections: [
        {
          title: 'Telling the Story',
          lectures: [
            { title: 'What reviewers look for', length: '12:00' },
            { title: 'Writing case studies', length: '16:00' },
            { title: 'Template: case study outline', kind: 'file' },
          ],
        },
        {
          title: 'Presenting',
          lectures: [
            { title: 'Structuring a 20-minute presentation', length: '14:00' },
            { title: 'Handling critique', length: '10:00' },
            { title: 'Mock review recording', length: '42:00', locked: true },
          ],
        },
      ],
    }),
  ];
}

function completed(lecture: string, at: string): LectureProgressInput {
  return { lecture, state: 'completed', positionSeconds: 0, completedAt: at };
}

function enrollments(clock: Clock): EnrollmentInput[] {
  return [
    {
      externalId: 'enr-mia-typo',
      course: 'crs-typo',
      user: MIA,
      enrolledAt: clock.daysAgo(120),
      expiresAt: null,
      hasLifetimeAccess: true,
      source: 'purchase',
      lastWatched: { lecture: 'typo-s2-l2', positionSeconds: 312, at: clock.daysAgo(2, 3 * HOUR) },
      progress: [
        completed('typo-s1-l1', clock.daysAgo(118)),
        completed('typo-s1-l2', clock.daysAgo(117)),
        completed('typo-s1-l3', clock.daysAgo(110)),
        completed('typo-s1-l4', clock.daysAgo(110, HOUR)),
        completed('typo-s2-l1', clock.daysAgo(30)),
        { lecture: 'typo-s2-l2', state: 'read', positionSeconds: 312 },
        { lecture: 'typo-s2-l3', state: 'unread', positionSeconds: 0 },
      ],
    },
    {
      externalId: 'enr-mia-ds',
      course: 'crs-ds',
      user: MIA,
      enrolledAt: clock.daysAgo(30),
      expiresAt: clock.inDays(60),
      hasLifetimeAccess: false,
      source: 'purchase',
      lastWatched: { lecture: 'ds-s1-l3', positionSeconds: 95, at: clock.daysAgo(1, 5 * HOUR) },
      progress: [
        completed('ds-s1-l1', clock.daysAgo(28)),
        completed('ds-s1-l2', clock.daysAgo(20)),
        { lecture: 'ds-s1-l3', state: 'read', positionSeconds: 95 },
        { lecture: 'ds-s2-l1', state: 'unread', positionSeconds: 0 },
      ],
    },
    {
      externalId: 'enr-mia-color',
      course: 'crs-color',
      user: MIA,
      enrolledAt: clock.daysAgo(10, 10 * MINUTE),
      expiresAt: clock.inDays(355),
      hasLifetimeAccess: false,
      source: 'purchase',
      progress: [{ lecture: 'color-s1-l1', state: 'read', positionSeconds: 140 }],
      lastWatched: { lecture: 'color-s1-l1', positionSeconds: 140, at: clock.daysAgo(9) },
    },
    {
      externalId: 'enr-noah-typo',
      course: 'crs-typo',
      user: NOAH,
      enrolledAt: clock.daysAgo(90),
      expiresAt: clock.inDays(275),
      hasLifetimeAccess: false,
      source: 'purchase',
      lastWatched: { lecture: 'typo-s1-l3', positionSeconds: 600, at: clock.daysAgo(4) },
      progress: [completed('typo-s1-l1', clock.daysAgo(89)), completed('typo-s1-l2', clock.daysAgo(60)), { lecture: 'typo-s1-l3', state: 'read', positionSeconds: 600 }],
    },
    {
      externalId: 'enr-noah-figma',
      course: 'crs-figma',
      user: NOAH,
      enrolledAt: clock.daysAgo(45),
      expiresAt: null,
      hasLifetimeAccess: true,
      source: 'grant',
    },
    {
      externalId: 'enr-ava-ds',
      course: 'crs-ds',
      user: AVA,
      enrolledAt: clock.daysAgo(58),
      expiresAt: clock.inDays(2),
      hasLifetimeAccess: false,
      source: 'membership',
      progress: [completed('ds-s1-l1', clock.daysAgo(58)), completed('ds-s1-l2', clock.daysAgo(50)), completed('ds-s1-l3', clock.daysAgo(45))],
      lastWatched: { lecture: 'ds-s2-l2', positionSeconds: 410, at: clock.daysAgo(3) },
    },
    {
      externalId: 'enr-ava-color',
      course: 'crs-color',
      user: AVA,
      enrolledAt: clock.daysAgo(58),
      expiresAt: clock.inDays(2),
      hasLifetimeAccess: false,
      source: 'membership',
    },
    {
      externalId: 'enr-ethan-figma',
      course: 'crs-figma',
      user: ETHAN,
      enrolledAt: clock.daysAgo(50),
      expiresAt: null,
      hasLifetimeAccess: true,
      source: 'purchase',
      progress: [completed('figma-s1-l1', clock.daysAgo(49)), completed('figma-s1-l2', clock.daysAgo(48)), completed('figma-s1-l3', clock.daysAgo(40))],
      lastWatched: { lecture: 'figma-s2-l1', positionSeconds: 75, at: clock.daysAgo(6) },
    },
    {
      externalId: 'enr-sofia-typo',
      course: 'crs-typo',
      user: SOFIA,
      enrolledAt: clock.daysAgo(70),
      expiresAt: null,
      hasLifetimeAccess: true,
      source: 'purchase',
      progress: [completed('typo-s1-l1', clock.daysAgo(69))],
    },
    {
      externalId: 'enr-lucas-ds',
      course: 'crs-ds',
      user: LUCAS,
      enrolledAt: clock.daysAgo(25),
      expiresAt: clock.inDays(340),
      hasLifetimeAccess: false,
      source: 'purchase',
    },
  ];
}

function seats(clock: Clock, users: string[], reservedDaysAgo: number) {
  return users.map((user, index) => ({ user, reservedAt: clock.daysAgo(reservedDaysAgo, index * 17 * MINUTE) }));
}

function consultingServices(clock: Clock): ImportDocument['consultingServices'] {
  const review = (weekday: Weekday, time: string, week: number) => {
    const start = clock.weekly(weekday, time, week);
    return { startsAt: iso(start), endsAt: iso(start + 45 * MINUTE) };
  };
  const officeHours = (week: number) => {
    const start = clock.weekly(3, '12:30', week);
    return { startsAt: iso(start), endsAt: iso(start + HOUR) };
  };
  const room = (id: string) => `https://meet.northwind-academy.example/r/${id}`;
  const portfolioMeetings: ConsultingMeetingInput[] = [
    { externalId: 'mtg-pr-001', slot: 'slot-pr-tue', ...review(2, '19:30', -3), state: 'scheduled', capacity: 1, roomUrl: room('pr-001'), confirmedAt: clock.daysAgo(25), confirmedBy: SAMUEL, seats: seats(clock, [MIA], 27) },
    { externalId: 'mtg-pr-002', slot: 'slot-pr-thu', ...review(4, '20:00', -1), state: 'canceled', capacity: 1, canceledAt: clock.daysAgo(9), cancelReason: 'The lecturer was ill; the session was refunded as credit.', seats: seats(clock, [NOAH], 12) },
    { externalId: 'mtg-pr-003', slot: 'slot-pr-tue', ...review(2, '19:30', 0), state: 'available', capacity: 1, roomUrl: room('pr-003'), seats: seats(clock, [MIA], 1) },
    { externalId: 'mtg-pr-004', slot: 'slot-pr-thu', ...review(4, '20:00', 0), state: 'scheduled', capacity: 1, roomUrl: room('pr-004'), confirmedAt: clock.daysAgo(2), confirmedBy: SAMUEL, seats: seats(clock, [NOAH], 4) },
    { externalId: 'mtg-pr-005', slot: 'slot-pr-tue', ...review(2, '19:30', 1), state: 'available', capacity: 1 },
    { externalId: 'mtg-pr-006', slot: 'slot-pr-thu', ...review(4, '20:00', 1), state: 'available', capacity: 1, seats: seats(clock, [SOFIA], 3) },
  ];
  const officeHourMeetings: ConsultingMeetingInput[] = [
    { externalId: 'mtg-oh-001', slot: 'slot-oh-wed', ...officeHours(-2), state: 'available', capacity: 6, seats: seats(clock, [AVA], 16) },
    { externalId: 'mtg-oh-002', slot: 'slot-oh-wed', ...officeHours(-1), state: 'scheduled', capacity: 6, roomUrl: room('oh-002'), confirmedAt: clock.daysAgo(8), confirmedBy: SAMUEL, seats: seats(clock, [MIA, ETHAN], 10) },
    {
      externalId: 'mtg-oh-live',
      slot: null,
      startsAt: clock.at(-20 * MINUTE),
      endsAt: clock.at(40 * MINUTE),
      state: 'scheduled',
      capacity: 6,
      roomUrl: room('oh-live'),
      confirmedAt: clock.daysAgo(1),
      confirmedBy: SAMUEL,
      seats: seats(clock, [MIA, AVA, LUCAS], 2),
    },
    { externalId: 'mtg-oh-003', slot: 'slot-oh-wed', ...officeHours(0), state: 'canceled', capacity: 6, canceledAt: clock.daysAgo(1), cancelReason: 'Moved to the live session today.', seats: seats(clock, [MIA, LUCAS], 5) },
    { externalId: 'mtg-oh-004', slot: 'slot-oh-wed', ...officeHours(1), state: 'scheduled', capacity: 6, roomUrl: room('oh-004'), confirmedAt: clock.daysAgo(1), confirmedBy: SAMUEL, seats: seats(clock, [AVA, LUCAS], 3) },
    { externalId: 'mtg-oh-005', slot: 'slot-oh-wed', ...officeHours(2), state: 'available', capacity: 6, roomUrl: room('oh-005'), seats: seats(clock, [MIA], 1) },
  ];
  return [
    {
      externalId: 'svc-portfolio-review',
      title: 'Portfolio Review 1:1',
      description: 'A 45-minute one-to-one review of your work with a lecturer.',
      durationMinutes: 45,
      capacity: 1,
      price: price(1500),
      courses: ['crs-typo', 'crs-figma'],
      slots: [
        { externalId: 'slot-pr-tue', weekday: 2, startTime: '19:30', durationMinutes: 45, timezone: TIMEZONE, capacity: 1, host: LIANG },
        { externalId: 'slot-pr-thu', weekday: 4, startTime: '20:00', durationMinutes: 45, timezone: TIMEZONE, capacity: 1, host: PRIYA },
      ],
      meetings: portfolioMeetings,
    },
    {
      externalId: 'svc-ds-office-hours',
      title: 'Design Systems Office Hours',
      description: 'Weekly small-group office hours: bring your tokens, components and governance questions.',
      durationMinutes: 60,
      capacity: 6,
      courses: ['crs-ds', 'crs-color'],
      slots: [{ externalId: 'slot-oh-wed', weekday: 3, startTime: '12:30', durationMinutes: 60, timezone: TIMEZONE, capacity: 6, host: PRIYA }],
      meetings: officeHourMeetings,
    },
  ];
}

function studyGroups(clock: Clock): ImportDocument['studyGroups'] {
  const session = (week: number, extra: Partial<StudyGroupMeetingInput> = {}): StudyGroupMeetingInput => {
    const start = clock.weekly(1, '20:00', week);
    return {
      externalId: `grp-typo-${week < 0 ? 'past' : 'next'}-${Math.abs(week)}`,
      session: 'ses-typo-mon',
      startsAt: iso(start),
      endsAt: iso(start + HOUR),
      state: 'available',
      roomUrl: 'https://meet.northwind-academy.example/r/typo-circle',
      ...extra,
    };
  };
  return [
    {
      externalId: 'grp-typo-circle',
      name: 'Typography Critique Circle',
      description: 'Peers from Foundations of Typography swap critiques every Monday evening.',
      course: 'crs-typo',
      members: [
        { user: MIA, joinedAt: clock.daysAgo(100) },
        { user: NOAH, joinedAt: clock.daysAgo(80) },
        { user: SOFIA, joinedAt: clock.daysAgo(65) },
      ],
      sessions: [{ externalId: 'ses-typo-mon', weekday: 1, startTime: '20:00', durationMinutes: 60, timezone: TIMEZONE }],
      meetings: [
        session(-3, { state: 'canceled', canceledAt: clock.daysAgo(23), cancelReason: 'Public holiday.' }),
        session(-2),
        session(-1),
        session(0),
        session(1),
      ],
    },
  ];
}

function events(clock: Clock, origin: string): ImportDocument['events'] {
  const lettering = clock.taipei(-20, '19:00');
  const meetup = clock.taipei(12, '18:30');
  const night = clock.taipei(30, '20:00');
  return [
    {
      externalId: 'evt-lettering-live',
      slug: 'type-and-tea-live-lettering',
      title: 'Type & Tea: Live Lettering Session',
      description: 'An evening of brush lettering, live-streamed from the studio.',
      startsAt: iso(lettering),
      endsAt: iso(lettering + 90 * MINUTE),
      timezone: TIMEZONE,
      format: 'online',
      onlineUrl: 'https://live.northwind-academy.example/type-and-tea',
      status: 'published',
      registrations: [
        { user: MIA, state: 'attended', registeredAt: clock.daysAgo(30), ticketCode: 'TT-4821' },
        { user: NOAH, state: 'no_show', registeredAt: clock.daysAgo(28), ticketCode: 'TT-4822' },
        { user: SOFIA, state: 'attended', registeredAt: clock.daysAgo(25), ticketCode: 'TT-4830' },
      ],
    },
    {
      externalId: 'evt-ds-meetup',
      slug: 'design-systems-meetup-taipei',
      title: 'Design Systems Meetup Taipei',
      description: 'Talks and lightning demos from teams running design systems in production.',
      startsAt: iso(meetup),
      endsAt: iso(meetup + 150 * MINUTE),
      timezone: TIMEZONE,
      format: 'venue',
      location: 'Songshan Cultural and Creative Park, Taipei',
      capacity: 80,
      price: price(500),
      registrations: [
        { user: MIA, state: 'registered', registeredAt: clock.daysAgo(6), ticketCode: 'DSM-0107' },
        { user: AVA, state: 'registered', registeredAt: clock.daysAgo(5), ticketCode: 'DSM-0112' },
        { user: LUCAS, state: 'canceled', registeredAt: clock.daysAgo(5), ticketCode: 'DSM-0113', canceledAt: clock.daysAgo(2) },
      ],
    },
    {
      externalId: 'evt-portfolio-night',
      slug: 'portfolio-night-online',
      title: 'Portfolio Night Online',
      description: `Show your portfolio, get feedback from working designers. Details: ${origin}/events/portfolio-night-online`,
      startsAt: iso(night),
      endsAt: iso(night + 2 * HOUR),
      timezone: TIMEZONE,
      format: 'online',
      onlineUrl: 'https://live.northwind-academy.example/portfolio-night',
      capacity: 40,
      registrations: [
        { user: SOFIA, state: 'registered', registeredAt: clock.daysAgo(3) },
        { user: ETHAN, state: 'registered', registeredAt: clock.daysAgo(1) },
      ],
    },
  ];
}

/** A payment line for one unit of a catalogue item. */
function line(kind: 'course' | 'digital_product' | 'consulting' | 'event' | 'membership_plan', item: string, title: string, dollars: number, quantity = 1) {
  return { kind, item, title, quantity, unitAmount: ntd(dollars), amount: ntd(dollars) * quantity };
}

function payments(clock: Clock): PaymentInput[] {
  const paid = (daysAgo: number): Pick<PaymentInput, 'createdAt' | 'paidAt' | 'paymentState'> => ({
    createdAt: clock.daysAgo(daysAgo),
    paidAt: clock.daysAgo(daysAgo, 2 * MINUTE),
    paymentState: 'paid',
  });
  const einvoice = (no: string, daysAgo: number) => ({ invoiceNo: no, kind: 'mobile_barcode' as const, carrier: '/MIA8K2Q', status: 'issued' as const, issuedAt: clock.daysAgo(daysAgo, 5 * MINUTE) });
  const typography = line('course', 'crs-typo', 'Foundations of Typography', 3600);
  const colorTheory = line('course', 'crs-color', 'Color Theory Studio', 2800);
  const figma = line('course', 'crs-figma', 'Prototyping in Figma', 3200);
  const audio = line('digital_product', 'prd-critique-audio', 'Design Critique Audio Series', 1200);
  return [
    // Mia: paid by credit card with a coupon, e-invoice on her mobile barcode carrier.
    {
      tradeNo: 'NWA-100101',
      user: MIA,
      amount: ntd(3240),
      currency: CURRENCY,
      paymentType: 'credit_card',
      ...paid(120),
      lineItems: [typography],
      adjustments: [{ kind: 'coupon', code: 'WELCOME10', title: 'Welcome 10% off', amount: -ntd(360) }],
      invoice: einvoice('AB-10010101', 120),
    },
    // Mia: paid in three monthly installments, company invoice.
    {
      tradeNo: 'NWA-100117',
      user: MIA,
      amount: ntd(4800),
      currency: CURRENCY,
      paymentType: 'credit_card',
      ...paid(30),
      installment: { count: 3, amount: ntd(1600), interval: 'month' },
      lineItems: [line('course', 'crs-ds', 'Design Systems for Product Teams', 4800)],
      invoice: { invoiceNo: 'AB-10011701', kind: 'company', title: 'Chen Studio Ltd.', taxId: '24536806', status: 'issued', issuedAt: clock.daysAgo(30, 5 * MINUTE) },
    },
    // Mia: a retried checkout: the card was declined, then LINE Pay went through (two payments, same line item).
    { tradeNo: 'NWA-100152', user: MIA, amount: ntd(2800), currency: CURRENCY, paymentType: 'credit_card', paymentState: 'failed', createdAt: clock.daysAgo(10, 2 * MINUTE), lineItems: [colorTheory] },
    { tradeNo: 'NWA-100153', user: MIA, amount: ntd(2800), currency: CURRENCY, paymentType: 'line_pay', ...paid(10), createdAt: clock.daysAgo(10, 8 * MINUTE), paidAt: clock.daysAgo(10, 9 * MINUTE), lineItems: [colorTheory], invoice: einvoice('AB-10015301', 10) },
    // Mia: a portfolio review session, Apple Pay.
    { tradeNo: 'NWA-100160', user: MIA, amount: ntd(1500), currency: CURRENCY, paymentType: 'apple_pay', ...paid(28), lineItems: [line('consulting', 'svc-portfolio-review', 'Portfolio Review 1:1', 1500)], invoice: einvoice('AB-10016001', 28) },
    // Mia: refunded in full.
    {
      tradeNo: 'NWA-100188',
      user: MIA,
      amount: ntd(1200),
      currency: CURRENCY,
      paymentType: 'credit_card',
      ...paid(45),
      refund: { state: 'refunded', amount: ntd(1200), requestedAt: clock.daysAgo(40), refundedAt: clock.daysAgo(38) },
      lineItems: [audio],
      invoice: { invoiceNo: 'AB-10018801', kind: 'mobile_barcode', carrier: '/MIA8K2Q', status: 'voided', issuedAt: clock.daysAgo(45, 5 * MINUTE) },
    },
    // Mia: two meetup tickets, one refunded.
    {
      tradeNo: 'NWA-100190',
      user: MIA,
      amount: ntd(1000),
      currency: CURRENCY,
      paymentType: 'google_pay',
      ...paid(6),
      refund: { state: 'partially_refunded', amount: ntd(500), requestedAt: clock.daysAgo(3), refundedAt: clock.daysAgo(2) },
      lineItems: [line('event', 'evt-ds-meetup', 'Design Systems Meetup Taipei: ticket', 500, 2)],
      invoice: einvoice('AB-10019001', 6),
    },
    // Mia: unpaid ATM transfer, deadline in three days.
    {
      tradeNo: 'NWA-100201',
      user: MIA,
      amount: ntd(9900),
      currency: CURRENCY,
      paymentType: 'atm',
      paymentState: 'unpaid',
      createdAt: clock.daysAgo(1),
      expiredAt: clock.inDays(3),
      bankCode: '822',
      bankName: 'CTBC Bank',
      codeNo: '9103522850012345',
      lineItems: [line('membership_plan', 'plan-studio-annual', 'Studio Membership (annual)', 9900)],
      invoice: { kind: 'mobile_barcode', carrier: '/MIA8K2Q', status: 'pending' },
    },
    // Mia: a convenience-store code that was never paid and expired.
    {
      tradeNo: 'NWA-100176',
      user: MIA,
      amount: ntd(1200),
      currency: CURRENCY,
      paymentType: 'convenience_store',
      paymentState: 'expired',
      createdAt: clock.daysAgo(8),
      expiredAt: clock.daysAgo(5),
      codeNo: 'LLL24110800123',
      lineItems: [audio],
    },
    // Mia: checkouts abandoned before a method was chosen: one still open, one expired.
    { tradeNo: 'NWA-100205', user: MIA, amount: ntd(3200), currency: CURRENCY, paymentType: null, paymentState: 'unpaid', createdAt: clock.at(-2 * HOUR), expiredAt: clock.at(22 * HOUR), lineItems: [figma] },
    { tradeNo: 'NWA-100143', user: MIA, amount: ntd(3200), currency: CURRENCY, paymentType: null, paymentState: 'expired', createdAt: clock.daysAgo(20), expiredAt: clock.daysAgo(19), lineItems: [figma] },
    // Other members.
    { tradeNo: 'NWA-100102', user: NOAH, amount: ntd(3600), currency: CURRENCY, paymentType: 'credit_card', ...paid(90), lineItems: [typography], invoice: { invoiceNo: 'AB-10010201', kind: 'personal', status: 'issued', issuedAt: clock.daysAgo(90) } },
    { tradeNo: 'NWA-100120', user: AVA, amount: ntd(990), currency: CURRENCY, paymentType: 'apple_pay', ...paid(58), lineItems: [line('membership_plan', 'plan-studio-monthly', 'Studio Membership (monthly)', 990)] },
    { tradeNo: 'NWA-100121', user: AVA, amount: ntd(990), currency: CURRENCY, paymentType: 'apple_pay', ...paid(28), lineItems: [line('membership_plan', 'plan-studio-monthly', 'Studio Membership (monthly)', 990)] },
    {
      tradeNo: 'NWA-100130',
      user: SOFIA,
      amount: ntd(3100),
      currency: CURRENCY,
      paymentType: 'credit_card',
      ...paid(70),
      lineItems: [typography],
      adjustments: [{ kind: 'coupon', code: 'SPRING500', title: 'Spring NT$500 off', amount: -ntd(500) }],
      invoice: { kind: 'donation', status: 'issued', invoiceNo: 'AB-10013001', issuedAt: clock.daysAgo(70) },
    },
    { tradeNo: 'NWA-100135', user: LUCAS, amount: ntd(4800), currency: CURRENCY, paymentType: 'credit_card', ...paid(25), lineItems: [line('course', 'crs-ds', 'Design Systems for Product Teams', 4800)] },
    {
      tradeNo: 'NWA-100140',
      user: ETHAN,
      amount: ntd(2880),
      currency: CURRENCY,
      paymentType: 'convenience_store',
      ...paid(50),
      codeNo: 'LLL24092100077',
      lineItems: [figma],
      adjustments: [{ kind: 'promotion', title: 'Launch week 10% off', amount: -ntd(320) }],
    },
  ];
}

function notifications(clock: Clock, origin: string): NotificationInput[] {
  const link = (path: string) => `${origin}${path}`;
  return [
    { externalId: 'ntf-mia-001', user: MIA, kind: 'meeting_reminder', title: 'Design Systems Office Hours start in 15 minutes', url: link('/me/meetings'), createdAt: clock.at(-35 * MINUTE) },
    { externalId: 'ntf-mia-002', user: MIA, kind: 'meeting_changed', title: "Wednesday's office hours were canceled", body: 'Moved to the live session today.', url: link('/me/meetings'), createdAt: clock.daysAgo(1) },
    { externalId: 'ntf-mia-003', user: MIA, kind: 'payment', title: 'ATM transfer details for Studio Membership (annual)', body: 'Transfer NT$9,900 to CTBC Bank (822) account 9103522850012345 within three days.', url: link('/me/payments'), createdAt: clock.daysAgo(1) },
    { externalId: 'ntf-mia-004', user: MIA, kind: 'event_reminder', title: 'Design Systems Meetup Taipei is coming up', url: link('/events/design-systems-meetup-taipei'), createdAt: clock.daysAgo(2) },
    { externalId: 'ntf-mia-005', user: MIA, kind: 'meeting_reminder', title: 'Portfolio review requested: awaiting confirmation', url: link('/me/meetings'), createdAt: clock.daysAgo(1), readAt: clock.daysAgo(1, HOUR) },
    { externalId: 'ntf-mia-006', user: MIA, kind: 'payment', title: 'Refund completed: Design Critique Audio Series', body: 'NT$1,200 was returned to your card.', url: link('/me/payments'), createdAt: clock.daysAgo(38), readAt: clock.daysAgo(37) },
    { externalId: 'ntf-mia-007', user: MIA, kind: 'course_update', title: 'Foundations of Typography: new exercise files', url: link('/courses/foundations-of-typography'), createdAt: clock.daysAgo(15), readAt: clock.daysAgo(14) },
    { externalId: 'ntf-mia-008', user: MIA, kind: 'lecture_unlocked', title: 'Design Systems: the Components section is open', url: link('/courses/design-systems-for-product-teams'), createdAt: clock.daysAgo(20), readAt: clock.daysAgo(20, 3 * HOUR) },
    { externalId: 'ntf-mia-009', user: MIA, kind: 'announcement', title: 'The spring term schedule is out', body: 'New cohorts, new office hours, and the Portfolio Review Bootcamp opens next term.', url: link('/posts/welcome-to-spring-term'), createdAt: clock.daysAgo(40), readAt: clock.daysAgo(39) },
    { externalId: 'ntf-noah-001', user: NOAH, kind: 'meeting_changed', title: 'Your portfolio review was canceled', createdAt: clock.daysAgo(9) },
    { externalId: 'ntf-noah-002', user: NOAH, kind: 'announcement', title: 'The spring term schedule is out', url: link('/posts/welcome-to-spring-term'), createdAt: clock.daysAgo(40) },
    { externalId: 'ntf-ava-001', user: AVA, kind: 'payment', title: 'Membership renewed', createdAt: clock.daysAgo(28), readAt: clock.daysAgo(27) },
  ];
}

export function buildDemoDocument(origin: string, now: Date): ImportDocument {
  const clock = new Clock(now);
  const student = (email: string, name: string) => ({ email, name, roles: ['student' as const] });
  return {
    formatVersion: 1,
    site: {
      origin,
      name: 'Northwind Academy of Design',
      description: 'Online courses, studio sessions and critique for working designers. Taught from Taipei.',
      timezone: TIMEZONE,
      defaultCurrency: CURRENCY,
      contactEmail: 'hello@northwind-academy.example',
      mcpConnectionsEnabled: true,
      openRegistration: false,
      appearance: { primaryColor: DEMO_COLORS.primary, accentColor: DEMO_COLORS.accent, logoUrl: demoAssetUrl(origin, 'logo'), faviconUrl: demoAssetUrl(origin, 'favicon') },
    },
    users: [
      { ...DEMO_LOGINS.member, avatarUrl: demoAssetUrl(origin, 'miaAvatar'), roles: ['student'] },
      { ...DEMO_LOGINS.operator, roles: ['operator'] },
      { ...DEMO_LOGINS.staff, roles: ['staff'] },
      { email: LIANG, name: 'Liang Wu', roles: ['lecturer'] },
      { email: PRIYA, name: 'Priya Raman', roles: ['lecturer'] },
      student(NOAH, 'Noah Kim'),
      student(AVA, 'Ava Lin'),
      student(ETHAN, 'Ethan Huang'),
      student(SOFIA, 'Sofía García'),
      student(LUCAS, 'Lucas Tsai'),
    ],
    lecturers: [
      { user: LIANG, displayName: 'Liang Wu', bio: 'Type designer and lettering artist; twelve years teaching typography.' },
      { user: PRIYA, displayName: 'Priya Raman', bio: 'Design systems lead who has shipped systems at three product companies.' },
    ],
    courses: courses(clock, origin),
    enrollments: enrollments(clock),
    digitalProducts: [
      {
        externalId: 'prd-type-specimens',
        slug: 'type-specimen-template-pack',
        title: 'Type Specimen Template Pack',
        kind: 'template',
        status: 'published',
        price: price(890),
        downloadUrl: `${origin}/downloads/type-specimen-template-pack.zip`,
        owners: [
          { user: MIA, acquiredAt: clock.daysAgo(100) },
          { user: NOAH, acquiredAt: clock.daysAgo(85) },
        ],
      },
      {
        externalId: 'prd-color-guide',
        slug: 'color-palette-field-guide',
        title: 'Color Palette Field Guide',
        kind: 'ebook',
        status: 'published',
        price: price(450),
        downloadUrl: `${origin}/downloads/color-palette-field-guide.pdf`,
        owners: [
          { user: MIA, acquiredAt: clock.daysAgo(10) },
          { user: AVA, acquiredAt: clock.daysAgo(55) },
        ],
      },
      {
        externalId: 'prd-critique-audio',
        slug: 'design-critique-audio-series',
        title: 'Design Critique Audio Series',
        kind: 'audio',
        status: 'published',
        price: price(1200),
        owners: [{ user: SOFIA, acquiredAt: clock.daysAgo(33) }],
      },
    ],
    coupons: [
      { code: 'WELCOME10', title: 'Welcome 10% off', discountKind: 'percent', percentOff: 10, redeemedCount: 1 },
      { code: 'SPRING500', title: 'Spring NT$500 off', discountKind: 'amount', amountOff: price(500), maxRedemptions: 100, redeemedCount: 1, startsAt: clock.daysAgo(90), endsAt: clock.inDays(30) },
      { code: 'BLACKFRIDAY30', title: 'Black Friday 30% off', discountKind: 'percent', percentOff: 30, startsAt: clock.daysAgo(200), endsAt: clock.daysAgo(196), active: false },
    ],
    membershipPlans: [
      { externalId: 'plan-studio-monthly', name: 'Studio Membership (monthly)', description: 'Every published course while you are a member.', price: price(990), billingInterval: 'month' },
      { externalId: 'plan-studio-annual', name: 'Studio Membership (annual)', description: 'Twelve months for the price of ten.', price: price(9900), billingInterval: 'year' },
    ],
    subscriptions: [
      { plan: 'plan-studio-monthly', user: AVA, state: 'active', startedAt: clock.daysAgo(58), currentPeriodStart: clock.daysAgo(28), currentPeriodEnd: clock.inDays(2) },
      { plan: 'plan-studio-annual', user: ETHAN, state: 'canceled', startedAt: clock.daysAgo(400), currentPeriodStart: clock.daysAgo(400), currentPeriodEnd: clock.daysAgo(35), canceledAt: clock.daysAgo(40) },
    ],
    consultingServices: consultingServices(clock),
    studyGroups: studyGroups(clock),
    events: events(clock, origin),
    payments: payments(clock),
    notifications: notifications(clock, origin),
    notificationSubscriptions: [
      { user: MIA, kind: 'meeting_reminder', channel: 'email', enabled: true },
      { user: MIA, kind: 'meeting_reminder', channel: 'push', enabled: true },
      { user: MIA, kind: 'meeting_changed', channel: 'email', enabled: true },
      { user: MIA, kind: 'payment', channel: 'email', enabled: true },
      { user: MIA, kind: 'course_update', channel: 'in_app', enabled: true },
      { user: MIA, kind: 'lecture_unlocked', channel: 'push', enabled: false },
      { user: MIA, kind: 'event_reminder', channel: 'email', enabled: true },
      { user: MIA, kind: 'announcement', channel: 'email', enabled: false },
      { user: NOAH, kind: 'announcement', channel: 'email', enabled: false },
    ],
    oauthClients: [
      {
        clientId: DEMO_CLIENTS.member.clientId,
        name: 'Northwind Demo Member App',
        audience: 'member',
        confidential: false,
        scopes: [...DEMO_CLIENTS.member.scopes],
        redirectUris: [...DEMO_CLIENTS.member.redirectUris],
        createdBy: OLIVIA,
      },
      {
        clientId: DEMO_CLIENTS.operator.clientId,
        name: 'Northwind Demo Operator Console',
        audience: 'operator',
        confidential: true,
        clientSecret: DEMO_CLIENTS.operator.clientSecret,
        scopes: [...DEMO_CLIENTS.operator.scopes],
        redirectUris: [...DEMO_CLIENTS.operator.redirectUris],
        createdBy: OLIVIA,
      },
      {
        clientId: 'vendor-claude',
        name: 'Claude',
        audience: 'operator',
        confidential: false,
        kind: 'vendor_platform',
        scopes: ['openid', 'profile', 'email', 'courses:read', 'students:read', 'orders:read', 'events:read', 'school:read'],
        redirectUris: ['https://claude.ai/api/mcp/auth_callback'],
      },
      {
        clientId: 'vendor-chatgpt',
        name: 'ChatGPT',
        audience: 'operator',
        confidential: false,
        kind: 'vendor_platform',
        scopes: ['openid', 'profile', 'email', 'courses:read', 'students:read', 'orders:read', 'events:read', 'school:read'],
        redirectUris: ['https://chatgpt.com/connector_platform_oauth_redirect'],
      },
      {
        clientId: 'vendor-cursor',
        name: 'Cursor',
        audience: 'operator',
        confidential: false,
        kind: 'vendor_platform',
        scopes: ['openid', 'profile', 'email', 'courses:read', 'curriculum:read', 'pages:read', 'posts:read', 'school:read'],
        redirectUris: ['https://www.cursor.com/agents/mcp/oauth/callback', 'http://localhost:8787/callback'],
      },
    ],
    vendorPlatforms: [
      { clientName: 'Claude', client: 'vendor-claude' },
      { clientName: 'ChatGPT', client: 'vendor-chatgpt' },
      { clientName: 'Cursor', client: 'vendor-cursor' },
    ],
    posts: [
      {
        slug: 'welcome-to-spring-term',
        title: 'Welcome to the spring term',
        body: 'New cohorts start this month. Office hours move to Wednesdays at 12:30, and the Portfolio Review Bootcamp opens next term.',
        author: OLIVIA,
        status: 'published',
        publishedAt: clock.daysAgo(40),
      },
      {
        slug: 'designing-with-variable-fonts',
        title: 'Designing with variable fonts',
        body: 'Variable fonts let one file carry a whole family. Here is how we use them in the Foundations of Typography capstone.',
        author: LIANG,
        status: 'published',
        publishedAt: clock.daysAgo(12),
      },
      { slug: 'summer-workshop-plans', title: 'Summer workshop plans', body: 'Draft: outline of the summer workshop series.', author: OLIVIA, status: 'draft' },
    ],
    pages: [
      { slug: 'about', title: 'About Northwind', body: 'Northwind Academy of Design teaches typography, colour, prototyping and design systems to working designers.', status: 'published' },
      { slug: 'faq', title: 'Frequently asked questions', body: 'How long do I keep access? Lifetime for most courses; membership courses while you are a member.', status: 'published' },
      { slug: 'refund-policy', title: 'Refund policy', body: 'Full refunds within 14 days of purchase if you have completed less than a quarter of a course.', status: 'published' },
    ],
  };
}

async function siteCount(db: Database): Promise<number> {
  const row = await db('sites').count({ count: '*' }).first();
  return Number(row?.count ?? 0);
}

/**
 * Seeds the demo school into a database with no site at all, through the importer. Returns null (and writes nothing)
 * when any site exists, so a restart never touches a configured or already-seeded database. When two instances start
 * on one empty database at once, the one whose import loses the race finds the other's site and returns null.
 */
export async function seedDemoSchoolIfEmpty(db: Database, origin: string, now = new Date()): Promise<ImportReport | null> {
  if ((await siteCount(db)) > 0) return null;
  try {
    return await importSiteDocument(db, buildDemoDocument(origin, now));
  } catch (error) {
    if ((await siteCount(db)) > 0) return null;
    throw error;
  }
}
