import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { Middleware, ParameterizedContext } from 'koa';
import koaCompress from 'koa-compress';

/** Answers smaller than this go out as they are: compressing them saves less than it costs. */
export const COMPRESSION_THRESHOLD_BYTES = 1024;

/** Moderate levels: most of the saving for a fraction of the CPU of the maximum ones. */
const GZIP_OPTIONS: zlib.ZlibOptions = { level: 6 };
const BROTLI_OPTIONS: zlib.BrotliOptions = { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } };

/**
 * The media types compressed: JSON (problem+json, the GraphQL response type and other `+json` types included), HTML,
 * YAML, Markdown and plain text. Never an event stream (an SSE message must reach the client when it is written), nor
 * images, archives and other formats that are compressed already.
 */
const COMPRESSED_TYPES = /^(?:application\/(?:json|[\w.-]+\+json|yaml)|text\/(?:html|markdown|plain))$/i;

export function isCompressedType(mediaType: string): boolean {
  return COMPRESSED_TYPES.test(mediaType);
}

/**
 * A page of a browser session (HTML with `Cache-Control: no-store`: the sign-in, consent and admin pages, which carry
 * CSRF tokens and personal data next to text a request can choose) is not compressed: the size of a compressed answer
 * would tell an eavesdropper whether a guess matches a secret on the page (the BREACH attack).
 */
function isSessionPage(ctx: ParameterizedContext): boolean {
  return ctx.response.type === 'text/html' && /(?:^|,)\s*no-store\b/i.test(ctx.response.get('Cache-Control'));
}

/**
 * gzip or br (the client's choice, br preferred on a tie) for answers of a compressed type over
 * COMPRESSION_THRESHOLD_BYTES; every answer says `Vary: Accept-Encoding`. A client that sends no Accept-Encoding
 * gets the answer as it is (RFC 9110 12.5.3 would allow any coding; identity is what such clients expect).
 */
export function responseCompression(): Middleware {
  // koa-compress 5 also knows zstd and deflate (its types do not list zstd): gzip and br only.
  const options: koaCompress.CompressOptions & { zstd: false } = {
    threshold: COMPRESSION_THRESHOLD_BYTES,
    filter: isCompressedType,
    gzip: GZIP_OPTIONS,
    br: BROTLI_OPTIONS,
    deflate: false,
    zstd: false,
  };
  const compress = koaCompress(options);
  return (ctx, next) => {
    // Most machine clients (and the bench) ask for no coding: nothing to negotiate for them.
    if (ctx.get('accept-encoding') === '') {
      ctx.vary('Accept-Encoding');
      return next();
    }
    return compress(ctx, async () => {
      await next();
      if (isSessionPage(ctx)) (ctx as { compress?: boolean }).compress = false;
    });
  };
}

type StaticEncoding = 'br' | 'gzip';

/** The quality (`q`) an Accept-Encoding header gives one coding, directly or through `*`; 0 when it gives none. */
function codingQuality(acceptEncoding: string, coding: string): number {
  let named: number | undefined;
  let wildcard = 0;
  for (const item of acceptEncoding.split(',')) {
    const [name, ...parameters] = item.split(';').map((part) => part.trim().toLowerCase());
    const q = parameters.find((parameter) => parameter.startsWith('q='));
    const quality = q === undefined ? 1 : Number(q.slice(2));
    if (!Number.isFinite(quality)) continue;
    if (name === coding) named = Math.max(named ?? 0, quality);
    else if (name === '*') wildcard = Math.max(wildcard, quality);
  }
  return named ?? wildcard;
}

/** br or gzip as koa-compress would choose (the higher quality, br on a tie), or null for the answer as it is. */
function chosenCoding(acceptEncoding: string): StaticEncoding | null {
  const br = codingQuality(acceptEncoding, 'br');
  const gzip = codingQuality(acceptEncoding, 'gzip');
  if (br > 0 && br >= gzip) return 'br';
  return gzip > 0 ? 'gzip' : null;
}

const ENCODERS: Record<StaticEncoding, (body: Buffer) => Promise<Buffer>> = {
  br: (body) => promisify(zlib.brotliCompress)(body, { ...BROTLI_OPTIONS, params: { ...BROTLI_OPTIONS.params, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length } }),
  gzip: (body) => promisify(zlib.gzip)(body, GZIP_OPTIONS),
};

/**
 * A large body served many times unchanged (the admin API contract): serialized once and compressed once per coding,
 * off the event loop, then answered from memory, instead of compressing the same bytes for every request.
 */
export class StaticBody {
  readonly identity: Buffer;
  private readonly encoded = new Map<StaticEncoding, Promise<Buffer>>();

  constructor(text: string) {
    this.identity = Buffer.from(text, 'utf8');
  }

  /** Sets the body in the coding the request accepts (br, gzip or none), with Content-Encoding and Vary. */
  async answer(ctx: ParameterizedContext): Promise<void> {
    ctx.vary('Accept-Encoding');
    const accepted = chosenCoding(ctx.get('accept-encoding'));
    if (accepted === null) {
      ctx.body = this.identity;
      return;
    }
    let encoded = this.encoded.get(accepted);
    if (!encoded) {
      encoded = ENCODERS[accepted](this.identity);
      this.encoded.set(accepted, encoded);
      // A failed compression is tried again by the next request, not remembered.
      encoded.catch(() => this.encoded.delete(accepted));
    }
    ctx.body = await encoded;
    ctx.set('Content-Encoding', accepted);
  }
}
