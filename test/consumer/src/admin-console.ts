import createClient from 'openapi-fetch';
import type { components, paths } from '../../../generated/admin-api.js';

/** An operator console's typed admin client: openapi-fetch over the paths openapi-typescript generated. */
export function adminClient(origin: string, token: string) {
  return createClient<paths>({ baseUrl: `${origin}/api/admin/v1`, headers: { authorization: `Bearer ${token}` } });
}

export type School = components['schemas']['School'];

/** Renames the school the way a settings form does: read, then write with the ETag as If-Match. */
export async function renameSchool(origin: string, token: string, name: string): Promise<School> {
  const client = adminClient(origin, token);
  const read = await client.GET('/school');
  if (!read.data) throw new Error(`read failed: ${read.error?.code ?? read.response.status}`);
  const etag = read.response.headers.get('etag') ?? '';
  const written = await client.PATCH('/school', { params: { header: { 'If-Match': etag } }, body: { name } });
  if (!written.data) throw new Error(`write failed: ${written.error?.code ?? written.response.status}`);
  return written.data;
}
