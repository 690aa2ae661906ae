import type { TypedDocumentString } from '../../../generated/client/member-a/graphql.js';

/**
 * The smallest typed GraphQL client a member app needs: the generated documents are typed strings, so the result
 * and variables types follow from the document passed in (docs/contract-workflow.md, "Types for frontend teams").
 */
export class MemberApiError extends Error {}

export async function execute<Result, Variables>(endpoint: string, token: string, document: TypedDocumentString<Result, Variables>, variables: Variables): Promise<Result> {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/graphql-response+json' },
    body: JSON.stringify({ query: document.toString(), variables }),
  });
  const body = (await response.json()) as { data?: Result | null; errors?: Array<{ message: string }> };
  if (body.errors?.length || !body.data) throw new MemberApiError(body.errors?.map((error) => error.message).join('; ') ?? `HTTP ${response.status}`);
  return body.data;
}
