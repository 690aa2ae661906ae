import type { ParameterizedContext } from 'koa';
import { bodyText, DEFAULT_BODY_LIMIT, parseJson, readBodyBytes } from '../../http/body.js';
import { AdminProblem, InvalidRequestProblem, UnsupportedMediaTypeProblem } from './problems.js';

/**
 * The request body of an admin operation. It is read before routing but judged only after authentication (so a
 * request without a token gets 401 whatever its body): the media type must be one the operation lists
 * (`application/json`, and `application/merge-patch+json` for PATCH), else 415; malformed JSON is 400 at pointer "".
 * Only JSON is read here; another media type an operation declares is left for its handler (see acceptedBody).
 */
export type RequestBodyState =
  | { kind: 'none' }
  | { kind: 'json'; mediaType: string; value: unknown }
  | { kind: 'unsupported'; mediaType: string }
  | { kind: 'malformed'; mediaType: string; message: string }
  | { kind: 'too_large'; limit: number };

const JSON_MEDIA_TYPES = ['application/json', 'application/merge-patch+json'];

function hasBody(ctx: ParameterizedContext): boolean {
  const length = ctx.request.length;
  return ctx.get('transfer-encoding') !== '' || (length !== undefined && length > 0);
}

/** Reads at most `limit` bytes: the matched operation's limit (`x-schoolgate-max-body-bytes`), 64 KB otherwise. */
export async function readRequestBody(ctx: ParameterizedContext, limit = DEFAULT_BODY_LIMIT): Promise<RequestBodyState> {
  if (!hasBody(ctx)) return { kind: 'none' };
  const mediaType = (ctx.request.type || '').toLowerCase();
  if (!JSON_MEDIA_TYPES.includes(mediaType)) return { kind: 'unsupported', mediaType };
  const read = await readBodyBytes(ctx.req, { limit, decodeContentEncoding: true });
  if (read.kind === 'too_large') return { kind: 'too_large', limit };
  if (read.kind === 'unsupported_encoding') return { kind: 'malformed', mediaType, message: `Unsupported Content-Encoding: ${read.encoding}` };
  if (read.kind === 'undecodable') return { kind: 'malformed', mediaType, message: read.message };
  const text = bodyText(read.bytes);
  if (text === '') return { kind: 'none' };
  const parsed = parseJson(text, { objectOrArray: true, refuseProtoKeys: true });
  if (parsed.kind === 'malformed') return { kind: 'malformed', mediaType, message: parsed.message };
  return { kind: 'json', mediaType, value: parsed.value };
}

function sizeText(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MB` : `${Math.round(bytes / 1024)}kb`;
}

/** The parsed body the operation may see, or the problem the request's body is for this operation. */
export function acceptedBody(state: RequestBodyState, mediaTypes: readonly string[], method: string): unknown {
  if (state.kind === 'none') return undefined;
  if (mediaTypes.length === 0) throw new InvalidRequestProblem('This operation takes no request body.', [{ pointer: '', message: 'must be empty' }]);
  if (state.kind === 'too_large') throw new AdminProblem(413, 'request_too_large', `The request body is larger than ${sizeText(state.limit)}.`);
  // A non-JSON body in a media type the operation declares (the bytes of a storage upload) is left unread here: the
  // operation's handler streams it from ctx.req itself, with its own size limit, after authentication and routing.
  if (state.kind === 'unsupported' && mediaTypes.includes(state.mediaType)) return undefined;
  if (state.kind === 'unsupported' || !mediaTypes.includes(state.mediaType)) throw new UnsupportedMediaTypeProblem(mediaTypes, method);
  if (state.kind === 'malformed') throw new InvalidRequestProblem('The request body is not valid JSON.', [{ pointer: '', message: `is not a JSON object: ${state.message}` }]);
  return state.value;
}
