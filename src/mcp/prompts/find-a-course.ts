import { listPublicCourses } from '../../catalog/courses.js';
import { CATALOGUE_LIMITS } from '../../catalog/context.js';
import { definePrompt, PromptArgumentError } from '../prompt.js';
import { courseCatalogueResource } from '../resources/course-catalogue.js';
import type { ToolContext } from '../session.js';
import { requiredArgumentValue } from './arguments.js';
import { embedResource, userText } from './embed.js';

const MAX_INTEREST_LENGTH = 500;
/** Title words too short or too common to be worth suggesting as an interest. */
const MIN_WORD_LENGTH = 3;
const FILLER_WORDS = new Set(['and', 'for', 'the', 'with', 'from', 'into', 'your']);

/**
 * Words of the published course titles that start with `partial` (ignoring case), each once in the spelling the
 * catalogue first uses, alphabetically. The catalogue's own search narrows the courses to read: a title word that
 * starts with `partial` contains it.
 */
async function titleWordsStartingWith(context: ToolContext, partial: string): Promise<string[]> {
  const wanted = partial.toLowerCase();
  const words = new Map<string, string>();
  let after: string | null = null;
  for (;;) {
    const page = await listPublicCourses(context.catalog(), { query: partial === '' ? null : partial, first: CATALOGUE_LIMITS.maxSize, after });
    for (const course of page.nodes) {
      for (const word of course.title.split(/[^\p{L}\p{N}]+/u)) {
        const key = word.toLowerCase();
        if (key.length < MIN_WORD_LENGTH || FILLER_WORDS.has(key) || !/\p{L}/u.test(word) || !key.startsWith(wanted) || words.has(key)) continue;
        words.set(key, word);
      }
    }
    const last = page.cursors.at(-1);
    if (!page.hasNextPage || last === undefined) break;
    after = last;
  }
  return [...words.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, word]) => word);
}

export const findACourse = definePrompt({
  name: 'find_a_course',
  title: 'Find a course for me',
  description:
    "Find the courses in this school's public catalogue that fit what someone wants to learn, best first, each with why it fits, its length, price and link. Attaches the catalogue of published courses. Public: no sign-in needed.",
  scopes: [],
  arguments: [
    {
      name: 'interest',
      title: 'What you want to learn',
      description: 'What the person wants to learn or get better at, in their own words, e.g. "typography for interfaces".',
      required: true,
      // Completes the word being typed from the words of the course titles, keeping what comes before it.
      complete: async (context, prefix) => {
        const partial = /[^\s]*$/u.exec(prefix)?.[0] ?? '';
        if (partial.length > 100) return [];
        const before = prefix.slice(0, prefix.length - partial.length);
        return (await titleWordsStartingWith(context, partial)).map((word) => `${before}${word}`);
      },
    },
  ],
  async get(context, args) {
    const interest = requiredArgumentValue(args, 'interest');
    if (interest.length > MAX_INTEREST_LENGTH) throw new PromptArgumentError(`interest must be at most ${MAX_INTEREST_LENGTH} characters`);
    const catalogue = await embedResource(context, courseCatalogueResource);
    const steps = [
      'Recommend the courses that fit best, best first, each with a sentence on why it fits, its length (totalDurationSeconds, in hours and minutes), its price and its link (url).',
      'If nothing fits well, say so plainly and name the closest course.',
      'Use only the attached catalogue; do not suggest courses that are not in it.',
    ];
    const instruction = [
      `Which courses at ${context.site.name} fit what I want to learn: ${JSON.stringify(interest)}?`,
      `Attached: the school's public course catalogue (${courseCatalogueResource.uri(context.site)}).`,
      steps.map((step) => `- ${step}`).join('\n'),
    ].join('\n\n');
    return { description: `Courses that fit: ${interest.slice(0, 80)}`, messages: [userText(instruction), ...catalogue] };
  },
});
