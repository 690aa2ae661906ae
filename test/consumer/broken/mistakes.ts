// Each line below is a mistake the generated types must catch; test/consumer-types.test.ts expects every one of
// them to be reported, at this line, by tsc -p test/consumer/tsconfig.broken.json.
import { MemberSyllabusDocument } from '../../../generated/client/member-a/graphql.js';
import { adminClient } from '../src/admin-console.js';
import { execute } from '../src/graphql-client.js';

export async function mistakes(origin: string, token: string): Promise<unknown[]> {
  const data = await execute(`${origin}/member/graphql`, token, MemberSyllabusDocument, { first: 'ten' }); // MISTAKE: variable type
  const course = data.viewer.enrolledCourses.nodes[0];
  const client = adminClient(origin, token);
  return [
    course?.description, // MISTAKE: field not selected by the operation
    course?.sections[0]?.lectures[0]?.state === 'watched', // MISTAKE: not a LectureState
    await client.GET('/schools'), // MISTAKE: no such path
    await client.PATCH('/school', { params: { header: { 'If-Match': '"v1"' } }, body: { name: 42 } }), // MISTAKE: wrong member type
    await client.PATCH('/school', { body: { name: 'x' } }), // MISTAKE: If-Match is required
  ];
}
