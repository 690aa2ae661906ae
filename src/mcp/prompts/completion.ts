import { myCourseSyllabusResource } from '../resources/my-course-syllabus.js';
import type { ToolContext } from '../session.js';

/** The values that start with `prefix`, ignoring case, each once, in the order given (completions keep a stable order). */
export function startingWith(values: Iterable<string>, prefix: string): string[] {
  const wanted = prefix.toLowerCase();
  return [...new Set(values)].filter((value) => value.toLowerCase().startsWith(wanted));
}

/**
 * Completion of a course argument of a member prompt: the slugs of the member's own courses that start with what was
 * typed, newest enrollment first. The same values as the `{slug}` of the member's course-syllabus template, since the
 * prompt reads that resource for the course.
 */
export async function completeEnrolledCourse(context: ToolContext, prefix: string): Promise<string[]> {
  return (await myCourseSyllabusResource.spec.complete?.(context, 'slug', prefix)) ?? [];
}
