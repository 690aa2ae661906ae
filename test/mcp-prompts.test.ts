import { expect } from 'chai';
import { findUserByEmail, type User } from '../src/accounts/users.js';
import type { Variant } from '../src/config/config.js';
import type { Database } from '../src/db/connection.js';
import { buildDemoDocument, DEMO_LOGINS } from '../src/demo/demo-school.js';
import type { ImportDocument } from '../src/import/document.js';
import { importSiteDocument } from '../src/import/import-site.js';
import { describeEachDatabase, type ScratchDatabase } from './support/databases.js';
import { MCP_ERAS, postModern, withMcpClient, type AnyMcpClient, type McpEra } from './support/mcp-clients.js';
import { memberToken } from './support/member-api.js';
import { startTestServer, type TestServer } from './support/server.js';

/**
 * MCP prompts at /mcp: which callers see which prompts, what each prompt's messages embed (the same JSON the matching
 * resource and tool give the same caller), the arguments' completions, and the errors for bad arguments and for
 * callers without the scopes, on both stores, both protocol eras and both variants.
 */

const MIA = DEMO_LOGINS.member.email;
const NOAH = 'noah.kim@example.com';
const READER = 'reader.member@example.com';
const DAY = 24 * 60 * 60_000;

const MEMBER_PROMPTS: Record<Variant, string[]> = {
  A: ['weekly_study_plan', 'catch_up_on_course', 'prepare_for_consulting_meeting', 'find_a_course'],
  B: ['weekly_study_plan', 'catch_up_on_course', 'find_a_course'],
};

// --- what the clients answer ---------------------------------------------------------------------------------------

interface PromptContent {
  type: string;
  text?: string;
  resource?: { uri: string; mimeType?: string; text?: string };
}

interface PromptAnswer {
  description?: string;
  messages: Array<{ role: string; content: PromptContent }>;
}

/** The parts of the clients the tests use; both eras' clients have them with these shapes. */
interface PromptClient {
  listPrompts(): Promise<{ prompts: Array<{ name: string; title?: string; description?: string; arguments?: Array<{ name: string; description?: string; required?: boolean }> }> }>;
  getPrompt(params: { name: string; arguments?: Record<string, string> }): Promise<PromptAnswer>;
  complete(params: { ref: { type: 'ref/prompt'; name: string }; argument: { name: string; value: string }; context?: { arguments?: Record<string, string> } }): Promise<{ completion: { values: string[]; total?: number; hasMore?: boolean } }>;
  readResource(params: { uri: string }): Promise<{ contents: Array<{ uri: string; mimeType?: string; text?: string }> }>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<{ isError?: boolean; structuredContent?: Record<string, unknown>; content: unknown }>;
}

const promptClient = (client: AnyMcpClient): PromptClient => client as unknown as PromptClient;

/** An embedded resource of a prompt's messages: its URI, media type and parsed JSON. */
interface Embedded {
  uri: string;
  mimeType: string | undefined;
  json: unknown;
}

function embeddedOf(answer: PromptAnswer): Embedded[] {
  return answer.messages
    .filter((message) => message.content.type === 'resource')
    .map((message) => {
      const resource = message.content.resource;
      if (resource?.text === undefined) throw new Error('an embedded resource without text');
      return { uri: resource.uri, mimeType: resource.mimeType, json: JSON.parse(resource.text) as unknown };
    });
}

function textsOf(answer: PromptAnswer): string[] {
  return answer.messages.filter((message) => message.content.type === 'text').map((message) => message.content.text ?? '');
}

async function toolJson<T>(client: PromptClient, name: string, args: Record<string, unknown> = {}): Promise<T> {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError === true) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent as T;
}

async function resourceJson(client: PromptClient, uri: string): Promise<unknown> {
  const { contents } = await client.readResource({ uri });
  return JSON.parse(contents[0]?.text ?? 'null') as unknown;
}

async function completions(client: PromptClient, prompt: string, argument: string, value: string): Promise<string[]> {
  const { completion } = await client.complete({ ref: { type: 'ref/prompt', name: prompt }, argument: { name: argument, value } });
  return completion.values;
}

/** The JSON-RPC error code a client call failed with (both clients put it on the error as `code`). */
async function failureCode(call: Promise<unknown>): Promise<{ code: unknown; message: string }> {
  const failure = await call.then(
    () => null,
    (error: unknown) => error,
  );
  expect(failure, 'the call should fail').to.be.instanceOf(Error);
  return { code: (failure as { code?: unknown }).code, message: (failure as Error).message };
}

// --- raw JSON-RPC, for HTTP statuses and the ids of errors ------------------------------------------------------

interface JsonRpcAnswer {
  jsonrpc: string;
  id: unknown;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

/** One JSON-RPC request as a client of `era` sends it, without a handshake (the endpoint is stateless). */
async function rawPost(origin: string, era: McpEra, id: number | string, method: string, params: Record<string, unknown>, token?: string): Promise<Response> {
  if (era === '2026-07-28') {
    const name = method === 'prompts/get' ? (params.name as string) : undefined;
    return postModern(origin, id, method, params, { ...(token === undefined ? {} : { token }), ...(name === undefined ? {} : { name }) });
  }
  return fetch(`${origin}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': era,
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
  });
}

async function expectInvalidParams(origin: string, era: McpEra, id: number | string, params: Record<string, unknown>, token: string | undefined, messagePart: RegExp): Promise<void> {
  const response = await rawPost(origin, era, id, 'prompts/get', params, token);
  expect(response.status, JSON.stringify(params)).to.equal(200);
  const answer = (await response.json()) as JsonRpcAnswer;
  expect(answer.id, 'the error carries the request id').to.equal(id);
  expect(answer.error?.code, JSON.stringify(answer)).to.equal(-32602);
  expect(answer.error?.message).to.match(messagePart);
}

// --- test data -------------------------------------------------------------------------------------------------

/**
 * The demo school plus a member with one course and no meetings (Reader), and a second member (Noah, from the demo)
 * whose courses Mia does not have.
 */
function schoolDocument(origin: string, now: number): ImportDocument {
  const demo = buildDemoDocument(origin, new Date(now));
  return {
    ...demo,
    users: [...(demo.users ?? []), { email: READER, name: 'Reader Member', roles: ['student'] }],
    enrollments: [...(demo.enrollments ?? []), { externalId: 'enr-reader-draft', course: 'crs-folio', user: READER, enrolledAt: new Date(now - 5 * DAY).toISOString(), hasLifetimeAccess: true }],
  };
}

interface MyCourse {
  slug: string;
  title: string;
  accessEnded: boolean;
}

interface Meeting {
  id: string;
  service: { id: string; title: string } | null;
}

for (const variant of ['A', 'B'] as const) {
  describeEachDatabase(`MCP prompts, variant ${variant}`, (scratch) => promptSuite(variant, scratch));
}

function promptSuite(variant: Variant, scratch: () => ScratchDatabase): void {
  let server: TestServer;
  let db: Database;
  let origin: string;
  let host: string;
  let schoolName: string;
  const tokens = {} as Record<'mia' | 'identity' | 'noah' | 'reader', string>;

  async function userOf(email: string): Promise<User> {
    const user = await findUserByEmail(db, email);
    if (!user) throw new Error(`no user ${email}`);
    return user;
  }

  before(async function () {
    this.timeout(120_000);
    db = scratch().db;
    server = await startTestServer(scratch(), { variant });
    origin = server.siteA.origin;
    host = new URL(origin).host;
    const document = schoolDocument(origin, Date.now());
    schoolName = document.site.name;
    await importSiteDocument(db, document);
    const [mia, noah, reader] = await Promise.all([userOf(MIA), userOf(NOAH), userOf(READER)]);
    tokens.mia = await memberToken(db, server.siteA, mia);
    tokens.identity = await memberToken(db, server.siteA, mia, 'openid profile email');
    tokens.noah = await memberToken(db, server.siteA, noah, 'openid account:read');
    tokens.reader = await memberToken(db, server.siteA, reader, 'openid account:read');
  });

  after(async () => {
    await server?.stop();
  });

  for (const era of MCP_ERAS) {
    describe(`over ${era}`, () => {
      const withClient = <T>(token: string | undefined, use: (client: PromptClient) => Promise<T>): Promise<T> => withMcpClient(origin, era, token, (client) => use(promptClient(client)));

      describe('prompts/list', () => {
        it('shows an anonymous caller only the public prompt, with a title, a description and its arguments', async () => {
          const { prompts } = await withClient(undefined, (client) => client.listPrompts());
          expect(prompts.map((prompt) => prompt.name)).to.deep.equal(['find_a_course']);
          expect(prompts[0]).to.deep.include({ title: 'Find a course for me' });
          expect(prompts[0]?.arguments).to.deep.include({ name: 'interest', description: 'What the person wants to learn or get better at, in their own words, e.g. "typography for interfaces".', required: true });
          // An argument's title is on the wire (the SDK clients' schemas drop it).
          const raw = (await (await rawPost(origin, era, 1, 'prompts/list', {})).json()) as JsonRpcAnswer;
          expect(raw.result?.prompts).to.deep.equal([{ ...prompts[0], arguments: [{ name: 'interest', title: 'What you want to learn', description: prompts[0]?.arguments?.[0]?.description, required: true }] }]);
        });

        it(`shows a member every prompt of variant ${variant}, each described for a person with described arguments`, async () => {
          const { prompts } = await withClient(tokens.mia, (client) => client.listPrompts());
          expect(prompts.map((prompt) => prompt.name)).to.deep.equal(MEMBER_PROMPTS[variant]);
          for (const prompt of prompts) {
            expect(prompt.title, prompt.name).to.be.a('string').and.not.equal('');
            expect(prompt.description, prompt.name).to.be.a('string').with.length.above(80);
            for (const argument of prompt.arguments ?? []) expect(argument.description, `${prompt.name}.${argument.name}`).to.be.a('string').with.length.above(20);
          }
          const byName = new Map(prompts.map((prompt) => [prompt.name, prompt]));
          expect(byName.get('weekly_study_plan')?.arguments?.map((argument) => [argument.name, argument.required])).to.deep.equal([
            ['hours_per_week', false],
            ['focus_course', false],
          ]);
          expect(byName.get('catch_up_on_course')?.arguments?.map((argument) => [argument.name, argument.required])).to.deep.equal([['course', true]]);
          if (variant === 'A') expect(byName.get('prepare_for_consulting_meeting')?.arguments?.map((argument) => [argument.name, argument.required])).to.deep.equal([['meeting', false]]);
        });

        it('shows a member token without account:read the member prompts too: getting one is what starts the step-up', async () => {
          const { prompts } = await withClient(tokens.identity, (client) => client.listPrompts());
          expect(prompts.map((prompt) => prompt.name)).to.deep.equal(MEMBER_PROMPTS[variant]);
        });
      });

      describe('find_a_course', () => {
        it('works anonymously: the interest in the instruction and the public catalogue embedded, the JSON resources/read and search_courses give', async () => {
          await withClient(undefined, async (client) => {
            const answer = await client.getPrompt({ name: 'find_a_course', arguments: { interest: 'type for screens' } });
            expect(answer.messages.every((message) => message.role === 'user')).to.equal(true);
            const [instruction] = textsOf(answer);
            expect(instruction).to.include('"type for screens"').and.to.include(schoolName);
            const embedded = embeddedOf(answer);
            expect(embedded.map((item) => item.uri)).to.deep.equal([`school://${host}/courses`]);
            expect(embedded[0]?.mimeType).to.equal('application/json');
            expect(embedded[0]?.json).to.deep.equal(await resourceJson(client, `school://${host}/courses`));
            const search = await toolJson<{ courses: unknown[]; totalCount: number }>(client, 'search_courses', { first: 50 });
            expect(embedded[0]?.json).to.deep.include({ courses: search.courses, totalCount: search.totalCount });
          });
        });

        it('completes the word being typed from the published course titles, never a draft course’s', async () => {
          await withClient(undefined, async (client) => {
            expect(await completions(client, 'find_a_course', 'interest', 'typ')).to.deep.equal(['Typography']);
            expect(await completions(client, 'find_a_course', 'interest', 'TYP'), 'ignoring case').to.deep.equal(['Typography']);
            expect(await completions(client, 'find_a_course', 'interest', 'learn pro'), 'the words typed before are kept').to.deep.equal(['learn Product', 'learn Prototyping']);
            expect(await completions(client, 'find_a_course', 'interest', 'portf'), 'Portfolio Review Bootcamp is a draft').to.deep.equal([]);
            expect(await completions(client, 'find_a_course', 'interest', 'zzz')).to.deep.equal([]);
            const all = await completions(client, 'find_a_course', 'interest', '');
            expect(all).to.include.members(['Color', 'Design', 'Figma', 'Foundations', 'Typography']);
            expect(all, 'filler words are left out').not.to.include.members(['of', 'for', 'in']);
            expect([...all].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase())), 'alphabetical').to.deep.equal(all);
          });
        });

        it('answers a missing, blank or unknown argument with -32602 carrying the request id', async () => {
          await expectInvalidParams(origin, era, 11, { name: 'find_a_course', arguments: {} }, undefined, /interest is required/);
          await expectInvalidParams(origin, era, 'twelve', { name: 'find_a_course', arguments: { interest: '   ' } }, undefined, /interest is required/);
          await expectInvalidParams(origin, era, 13, { name: 'find_a_course', arguments: { interest: 'type', budget: 'low' } }, undefined, /budget is not an argument of find_a_course/);
          await expectInvalidParams(origin, era, 14, { name: 'find_a_course', arguments: { interest: 'x'.repeat(501) } }, undefined, /at most 500 characters/);
          await expectInvalidParams(origin, era, 15, { name: 'no_such_prompt', arguments: {} }, undefined, /Prompt no_such_prompt not found/);
        });
      });

      describe('weekly_study_plan', () => {
        it("embeds the member's courses and schedule, the JSON resources/read and the tools give", async () => {
          await withClient(tokens.mia, async (client) => {
            const answer = await client.getPrompt({ name: 'weekly_study_plan' });
            const embedded = embeddedOf(answer);
            expect(embedded.map((item) => item.uri)).to.deep.equal([`school://${host}/me/courses`, `school://${host}/me/schedule`]);
            for (const item of embedded) {
              expect(item.mimeType).to.equal('application/json');
              expect(item.json, item.uri).to.deep.equal(await resourceJson(client, item.uri));
            }
            const courses = await toolJson<{ courses: MyCourse[]; totalCount: number }>(client, 'list_my_courses', { first: 100 });
            expect(embedded[0]?.json).to.deep.include({ courses: courses.courses, totalCount: courses.totalCount });
            if (variant === 'A') {
              const meetings = await toolJson<{ meetings: Meeting[] }>(client, 'list_my_meetings', { when: 'upcoming', first: 50 });
              const schedule = embedded[1]?.json as { items: Array<{ kind: string; meeting?: unknown }> };
              expect(schedule.items.filter((item) => item.kind === 'meeting').map((item) => item.meeting)).to.deep.equal(meetings.meetings);
            }
            const [instruction] = textsOf(answer);
            expect(instruction).to.include('suggest a realistic amount').and.to.include(server.siteA.timezone);
          });
        });

        it('with hours_per_week and focus_course: the hours in the instruction and that course’s syllabus with progress embedded, as get_my_course_syllabus gives it', async () => {
          await withClient(tokens.mia, async (client) => {
            const answer = await client.getPrompt({ name: 'weekly_study_plan', arguments: { hours_per_week: '7.5', focus_course: 'design-systems-for-product-teams' } });
            const embedded = embeddedOf(answer);
            const syllabusUri = `school://${host}/me/courses/design-systems-for-product-teams/syllabus`;
            expect(embedded.map((item) => item.uri)).to.deep.equal([`school://${host}/me/courses`, `school://${host}/me/schedule`, syllabusUri]);
            expect(embedded[2]?.json).to.deep.equal(await toolJson(client, 'get_my_course_syllabus', { course: 'design-systems-for-product-teams' }));
            expect(embedded[2]?.json).to.deep.equal(await resourceJson(client, syllabusUri));
            const [instruction] = textsOf(answer);
            expect(instruction).to.include('about 7.5 hours').and.to.include('Give most of the time to design-systems-for-product-teams');
            // A blank optional argument is one not given.
            const blank = await client.getPrompt({ name: 'weekly_study_plan', arguments: { hours_per_week: '', focus_course: ' ' } });
            expect(embeddedOf(blank).map((item) => item.uri)).to.deep.equal([`school://${host}/me/courses`, `school://${host}/me/schedule`]);
          });
        });

        it('answers hours that are no number of hours, a course the member is not enrolled in and an unknown argument with -32602 and the request id', async () => {
          await expectInvalidParams(origin, era, 21, { name: 'weekly_study_plan', arguments: { hours_per_week: 'lots' } }, tokens.mia, /hours_per_week must be a number of hours/);
          await expectInvalidParams(origin, era, 22, { name: 'weekly_study_plan', arguments: { hours_per_week: '200' } }, tokens.mia, /hours_per_week/);
          await expectInvalidParams(origin, era, 23, { name: 'weekly_study_plan', arguments: { focus_course: 'prototyping-in-figma' } }, tokens.mia, /focus_course: .*prototyping-in-figma/);
          await expectInvalidParams(origin, era, 24, { name: 'weekly_study_plan', arguments: { focus: 'x' } }, tokens.mia, /focus is not an argument of weekly_study_plan/);
        });

        it("completes hours from a few sensible values and focus_course from the member's own course slugs only", async () => {
          const mine = await withClient(tokens.mia, async (client) => {
            expect(await completions(client, 'weekly_study_plan', 'hours_per_week', '')).to.deep.equal(['2', '3', '5', '8', '10', '15', '20']);
            expect(await completions(client, 'weekly_study_plan', 'hours_per_week', '1')).to.deep.equal(['10', '15']);
            const courses = await toolJson<{ courses: MyCourse[] }>(client, 'list_my_courses', { first: 100 });
            const slugs = courses.courses.map((course) => course.slug);
            expect(await completions(client, 'weekly_study_plan', 'focus_course', ''), 'newest enrollment first, as list_my_courses').to.deep.equal(slugs);
            expect(await completions(client, 'weekly_study_plan', 'focus_course', 'DESIGN'), 'ignoring case').to.deep.equal(['design-systems-for-product-teams']);
            expect(await completions(client, 'weekly_study_plan', 'focus_course', 'prototyping'), "Noah's course, not Mia's").to.deep.equal([]);
            expect(await completions(client, 'weekly_study_plan', 'no_such_argument', '')).to.deep.equal([]);
            return slugs;
          });
          expect(mine).to.have.members(['foundations-of-typography', 'design-systems-for-product-teams', 'color-theory-studio']);
          const noahs = await withClient(tokens.noah, (client) => completions(client, 'weekly_study_plan', 'focus_course', ''));
          expect(noahs).to.have.members(['foundations-of-typography', 'prototyping-in-figma']);
          const readers = await withClient(tokens.reader, (client) => completions(client, 'weekly_study_plan', 'focus_course', ''));
          expect(readers, 'a course of any catalogue status the member is enrolled in').to.deep.equal(['portfolio-review-bootcamp']);
        });
      });

      describe('catch_up_on_course', () => {
        it('embeds the course’s syllabus with the member’s progress and asks to pick up from resumeAt and nextUp', async () => {
          await withClient(tokens.mia, async (client) => {
            const answer = await client.getPrompt({ name: 'catch_up_on_course', arguments: { course: 'foundations-of-typography' } });
            const uri = `school://${host}/me/courses/foundations-of-typography/syllabus`;
            const embedded = embeddedOf(answer);
            expect(embedded.map((item) => item.uri)).to.deep.equal([uri]);
            const syllabus = await toolJson<{ resumeAt: unknown; nextUp: unknown }>(client, 'get_my_course_syllabus', { course: 'foundations-of-typography' });
            expect(embedded[0]?.json).to.deep.equal(syllabus).and.to.deep.equal(await resourceJson(client, uri));
            expect(syllabus.resumeAt).not.to.equal(null);
            const [instruction] = textsOf(answer);
            expect(instruction).to.include('resumeAt').and.to.include('nextUp').and.to.include('foundations-of-typography');
          });
        });

        it('answers a missing course, a course the member is not enrolled in (another member’s, an unknown one) and an unknown argument with -32602 naming the argument', async () => {
          await expectInvalidParams(origin, era, 31, { name: 'catch_up_on_course', arguments: {} }, tokens.mia, /course is required/);
          await expectInvalidParams(origin, era, 32, { name: 'catch_up_on_course' }, tokens.mia, /course is required/);
          await expectInvalidParams(origin, era, 33, { name: 'catch_up_on_course', arguments: { course: 'prototyping-in-figma' } }, tokens.mia, /course: .*not enrolled/);
          await expectInvalidParams(origin, era, 34, { name: 'catch_up_on_course', arguments: { course: 'no-such-course' } }, tokens.mia, /course: /);
          await expectInvalidParams(origin, era, 35, { name: 'catch_up_on_course', arguments: { course: 'color-theory-studio', pace: 'fast' } }, tokens.mia, /pace is not an argument/);
          // The real client sees the same error.
          const refused = await withClient(tokens.mia, (client) => failureCode(client.getPrompt({ name: 'catch_up_on_course', arguments: { course: 'prototyping-in-figma' } })));
          expect(refused.code).to.equal(-32602);
        });

        it("completes course from the member's own slugs", async () => {
          await withClient(tokens.mia, async (client) => {
            expect(await completions(client, 'catch_up_on_course', 'course', 'f')).to.deep.equal(['foundations-of-typography']);
            expect(await completions(client, 'catch_up_on_course', 'course', 'p')).to.deep.equal([]);
          });
          await withClient(tokens.noah, async (client) => {
            expect(await completions(client, 'catch_up_on_course', 'course', 'p')).to.deep.equal(['prototyping-in-figma']);
            expect(await completions(client, 'catch_up_on_course', 'course', 'color'), "Mia's course, not Noah's").to.deep.equal([]);
          });
        });
      });

      if (variant === 'A') {
        describe('prepare_for_consulting_meeting', () => {
          it('by default prepares the next upcoming meeting: the meeting as list_my_meetings gives it, and progress to review', async () => {
            await withClient(tokens.mia, async (client) => {
              const { meetings } = await toolJson<{ meetings: Meeting[] }>(client, 'list_my_meetings', { when: 'upcoming', first: 50 });
              expect(meetings).to.have.length.above(1);
              const answer = await client.getPrompt({ name: 'prepare_for_consulting_meeting' });
              const [instruction, meetingText] = textsOf(answer);
              expect(JSON.parse(meetingText ?? 'null')).to.deep.equal(meetings[0]);
              expect(instruction).to.include('questions to bring').and.to.include('review');
            });
          });

          it('for each upcoming meeting: the syllabi with progress of the courses its consulting service covers, or the member’s courses for a study-group meeting', async () => {
            await withClient(tokens.mia, async (client) => {
              const { meetings } = await toolJson<{ meetings: Meeting[] }>(client, 'list_my_meetings', { when: 'upcoming', first: 50 });
              const { services } = await toolJson<{ services: Array<{ id: string; courses: Array<{ slug: string; title: string }> }> }>(client, 'list_consulting_services', { first: 50 });
              const { courses } = await toolJson<{ courses: MyCourse[] }>(client, 'list_my_courses', { first: 100 });
              const live = new Set(courses.filter((course) => !course.accessEnded).map((course) => course.slug));
              const kinds = new Set<string>();
              for (const meeting of meetings) {
                const answer = await client.getPrompt({ name: 'prepare_for_consulting_meeting', arguments: { meeting: meeting.id } });
                expect(JSON.parse(textsOf(answer)[1] ?? 'null'), meeting.id).to.deep.equal(meeting);
                const embedded = embeddedOf(answer);
                const covered = (services.find((service) => service.id === meeting.service?.id)?.courses ?? [])
                  .filter((course) => live.has(course.slug))
                  .sort((a, b) => a.title.localeCompare(b.title))
                  .map((course) => course.slug);
                if (covered.length === 0) {
                  kinds.add('courses');
                  expect(embedded.map((item) => item.uri), meeting.id).to.deep.equal([`school://${host}/me/courses`]);
                  expect(embedded[0]?.json).to.deep.equal(await resourceJson(client, `school://${host}/me/courses`));
                } else {
                  kinds.add('syllabi');
                  expect(embedded.map((item) => item.uri), meeting.id).to.deep.equal(covered.map((slug) => `school://${host}/me/courses/${slug}/syllabus`));
                  for (const [index, slug] of covered.entries()) expect(embedded[index]?.json).to.deep.equal(await toolJson(client, 'get_my_course_syllabus', { course: slug }));
                }
              }
              expect([...kinds].sort(), 'the demo has both kinds of upcoming meeting').to.deep.equal(['courses', 'syllabi']);
            });
          });

          it('answers a meeting that is not one of the member’s upcoming ones, and a member with none, with -32602 and the request id', async () => {
            const past = await withClient(tokens.mia, (client) => toolJson<{ meetings: Meeting[] }>(client, 'list_my_meetings', { when: 'past', first: 1 }));
            const pastId = past.meetings[0]?.id ?? '';
            await expectInvalidParams(origin, era, 41, { name: 'prepare_for_consulting_meeting', arguments: { meeting: pastId } }, tokens.mia, /meeting: .*not one of the member's upcoming meetings/);
            await expectInvalidParams(origin, era, 42, { name: 'prepare_for_consulting_meeting', arguments: { meeting: 'not-a-meeting' } }, tokens.mia, /meeting: /);
            await expectInvalidParams(origin, era, 43, { name: 'prepare_for_consulting_meeting', arguments: {} }, tokens.reader, /no upcoming consulting meeting/);
            await expectInvalidParams(origin, era, 44, { name: 'prepare_for_consulting_meeting', arguments: { meeting: pastId, topic: 'x' } }, tokens.mia, /topic is not an argument/);
          });

          it("completes meeting with the ids of the member's own upcoming meetings, soonest first", async () => {
            await withClient(tokens.mia, async (client) => {
              const { meetings } = await toolJson<{ meetings: Meeting[] }>(client, 'list_my_meetings', { when: 'upcoming', first: 50 });
              const ids = meetings.map((meeting) => meeting.id);
              expect(await completions(client, 'prepare_for_consulting_meeting', 'meeting', '')).to.deep.equal(ids);
              const prefix = (ids[1] ?? '').slice(0, 12);
              expect(await completions(client, 'prepare_for_consulting_meeting', 'meeting', prefix)).to.deep.equal(ids.filter((id) => id.toLowerCase().startsWith(prefix.toLowerCase())));
              expect(await completions(client, 'prepare_for_consulting_meeting', 'meeting', 'zzz')).to.deep.equal([]);
            });
            expect(await withClient(tokens.reader, (client) => completions(client, 'prepare_for_consulting_meeting', 'meeting', ''))).to.deep.equal([]);
          });
        });
      } else {
        describe('prepare_for_consulting_meeting', () => {
          it('does not exist in variant B (no consulting meetings): -32602 not found, and no completions', async () => {
            await expectInvalidParams(origin, era, 45, { name: 'prepare_for_consulting_meeting', arguments: {} }, tokens.mia, /Prompt prepare_for_consulting_meeting not found/);
            expect(await withClient(tokens.mia, (client) => completions(client, 'prepare_for_consulting_meeting', 'meeting', ''))).to.deep.equal([]);
          });
        });
      }

      describe('callers without the scopes', () => {
        it('answers an anonymous prompts/get or completion of a member prompt with the HTTP 401 challenge that starts OAuth', async () => {
          for (const [method, params] of [
            ['prompts/get', { name: 'weekly_study_plan', arguments: {} }],
            ['completion/complete', { ref: { type: 'ref/prompt', name: 'catch_up_on_course' }, argument: { name: 'course', value: '' } }],
          ] as const) {
            const response = await rawPost(origin, era, 51, method, params);
            expect(response.status, method).to.equal(401);
            const challenge = response.headers.get('www-authenticate') ?? '';
            expect(challenge).to.match(/^Bearer /);
            expect(challenge).to.include(`resource_metadata="${origin}/.well-known/oauth-protected-resource"`);
            expect(challenge).to.include('scope="account:read"');
            const body = (await response.json()) as { id?: unknown };
            expect(body.id, 'the request id').to.equal(51);
          }
        });

        it('answers a member token without account:read with HTTP 403 insufficient_scope (step-up), for prompts/get and completions alike', async () => {
          for (const [method, params] of [
            ['prompts/get', { name: 'catch_up_on_course', arguments: { course: 'foundations-of-typography' } }],
            ['completion/complete', { ref: { type: 'ref/prompt', name: 'weekly_study_plan' }, argument: { name: 'focus_course', value: '' } }],
          ] as const) {
            const response = await rawPost(origin, era, 52, method, params, tokens.identity);
            expect(response.status, method).to.equal(403);
            const challenge = response.headers.get('www-authenticate') ?? '';
            expect(challenge).to.include('error="insufficient_scope"');
            expect(challenge).to.include('scope="account:read"');
            expect(challenge).to.include(`resource_metadata="${origin}/.well-known/oauth-protected-resource"`);
            const body = (await response.json()) as { error?: string };
            expect(body.error).to.equal('insufficient_scope');
          }
        });

        it('lets an anonymous caller complete the public prompt’s argument, and a member too', async () => {
          expect(await withClient(undefined, (client) => completions(client, 'find_a_course', 'interest', 'des'))).to.deep.equal(['Design']);
          expect(await withClient(tokens.identity, (client) => completions(client, 'find_a_course', 'interest', 'des'))).to.deep.equal(['Design']);
          expect(await withClient(undefined, (client) => completions(client, 'no_such_prompt', 'interest', 'des')), 'an unknown prompt has no values').to.deep.equal([]);
        });
      });
    });
  }
}
