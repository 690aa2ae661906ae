import type { ImportDocument } from '../../src/import/document.js';
import type { Site } from '../../src/sites/sites.js';

const DAY = 86_400_000;

/**
 * A school for member API tests, as an import document: three published courses of two sections of three lectures
 * (the second locked, the third unlocking in a week), the member enrolled in each (lifetime, running, expired), with
 * some progress and a last-watched lecture in the first. Times are relative to `now` (ms).
 */
export function memberSchool(site: Site, member: { email: string; name: string }, now: number): ImportDocument {
  const at = (offset: number): string => new Date(now + offset).toISOString();
  const courses = [1, 2, 3].map((c) => ({
    externalId: `c${c}`,
    slug: `course-${c}`,
    title: `Course ${c}`,
    status: 'published' as const,
    sections: [1, 2].map((s) => ({
      externalId: `c${c}-s${s}`,
      title: `Section ${s}`,
      lectures: [1, 2, 3].map((l) => ({
        externalId: `c${c}-s${s}-l${l}`,
        title: `Lecture ${s}.${l}`,
        kind: 'video' as const,
        durationSeconds: 60 * l,
        ...(l === 2 ? { locked: true } : {}),
        ...(l === 3 ? { unlockAt: at(7 * DAY) } : {}),
      })),
    })),
  }));
  return {
    formatVersion: 1,
    site: { origin: site.origin, name: site.name, subdomain: site.subdomain },
    users: [{ email: member.email, name: member.name, roles: ['student'] }],
    courses,
    enrollments: courses.map((course, c) => ({
      externalId: `e${c}`,
      course: course.externalId,
      user: member.email,
      enrolledAt: at(-(c + 1) * DAY),
      hasLifetimeAccess: c === 0,
      expiresAt: c === 0 ? null : at((c === 2 ? -1 : 30) * DAY),
      ...(c === 0 ? { lastWatched: { lecture: 'c1-s1-l2', positionSeconds: 30, at: at(-DAY) } } : {}),
      progress: [
        { lecture: `${course.externalId}-s1-l1`, state: 'completed' as const, completedAt: at(-DAY) },
        { lecture: `${course.externalId}-s1-l2`, state: 'read' as const, positionSeconds: 30 },
      ],
    })),
  };
}
