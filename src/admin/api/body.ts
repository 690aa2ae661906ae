import bodyParser from 'koa-bodyparser';
import type { ParameterizedContext } from 'koa';
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
  | { kind: 'too_large' };

const JSON_MEDIA_TYPES = ['application/json', 'application/merge-patch+json'];
const MAX_BODY = '64kb';

interface BodyParserErrorHolder {
  bodyError?: Error;
}

const parseJson = bodyParser({
  enableTypes: ['json'],
  extendTypes: { json: JSON_MEDIA_TYPES },
  jsonLimit: MAX_BODY,
  strict: true,
  onerror: (error, ctx) => {
    (ctx.state as BodyParserErrorHolder).bodyError = error;
  },
});

function hasBody(ctx: ParameterizedContext): boolean {
  const length = ctx.request.length;
  return ctx.get('transfer-encoding') !== '' || (length !== undefined && length > 0);
}

export async function readRequestBody(ctx: ParameterizedContext): Promise<RequestBodyState> {
  if (!hasBody(ctx)) return { kind: 'none' };
  const mediaType = (ctx.request.type || '').toLowerCase();
  if (!JSON_MEDIA_TYPES.includes(mediaType)) return { kind: 'unsupported', mediaType };
  await parseJson(ctx, async () => undefined);
  const error = (ctx.state as BodyParserErrorHolder).bodyError;
  if (error !== undefined) {
    const status = (error as { status?: unknown }).status;
    if (status === 413) return { kind: 'too_large' };
    return { kind: 'malformed', mediaType, message: error.message };
  }
  const raw = (ctx.request as { rawBody?: unknown }).rawBody;
  if (typeof raw === 'string' && raw.trim() === '') return { kind: 'none' };
  return { kind: 'json', mediaType, value: ctx.request.body };
}

/** The parsed body the operation may see, or the problem the request's body is for this operation. */
export function acceptedBody(state: RequestBodyState, mediaTypes: readonly string[], method: string): unknown {
  if (state.kind === 'none') return undefined;
  if (mediaTypes.length === 0) throw new InvalidRequestProblem('This operation takes no request body.', [{ pointer: '', message: 'must be empty' }]);
  if (state.kind === 'too_large') throw new AdminProblem(413, 'request_too_large', `The request body is larger than ${MAX_BODY}.`);
  // A non-JSON body in a media type the operation declares (the bytes of a storage upload) is left unread here: the
  // operation's handler streams it from ctx.req itself, with its own size limit, after authentication and routing.
  if (state.kind === 'unsupported' && mediaTypes.includes(state.mediaType)) return undefined;
  if (state.kind === 'unsupported' || !mediaTypes.includes(state.mediaType)) throw new UnsupportedMediaTypeProblem(mediaTypes, method);
  if (state.kind === 'malformed') throw new InvalidRequestProblem('The request body is not valid JSON.', [{ pointer: '', message: `is not a JSON object: ${state.message}` }]);
  return state.value;
}
