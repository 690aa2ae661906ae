import { createHash } from 'node:crypto';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { printSchemaWithDirectives } from '@graphql-tools/utils';
import type { Middleware } from 'koa';
import type { SiteState } from '../http/state.js';
import type { VariantProfile } from '../variant.js';
import { typeDefsFor } from './sdl.js';

/** Where the member SDL is served: beside the member API, e.g. `/member/graphql/schema.graphql`. */
export function memberSchemaDocumentPath(variant: VariantProfile): string {
  return `${variant.memberGraphql.path}/schema.graphql`;
}

/**
 * The member SDL of this deployment, printed from the same schema files the endpoint executes (src/graphql/sdl.ts),
 * with every applied directive kept (`@requiresScope`, `@specifiedBy`, `@deprecated`) and every description: what
 * graphql-codegen and editors generate from, without a token.
 */
export function memberSchemaDocument(variant: VariantProfile): string {
  return `${printSchemaWithDirectives(makeExecutableSchema({ typeDefs: typeDefsFor(variant) }))}\n`;
}

/**
 * GET|HEAD {member API path}/schema.graphql: the SDL, public like /openapi.json, the same for every site of the
 * deployment. Printed once at start-up; a strong ETag (its SHA-256) answers revalidation with 304 (RFC 9110 13.1.2),
 * and shared caches may keep it five minutes, since a deployment can change it.
 */
export function memberSchemaDocumentRoute(variant: VariantProfile): Middleware<SiteState> {
  const body = Buffer.from(memberSchemaDocument(variant), 'utf8');
  const etag = `"${createHash('sha256').update(body).digest('base64url')}"`;
  return async (ctx) => {
    ctx.status = 200;
    ctx.type = 'application/graphql; charset=utf-8';
    ctx.etag = etag;
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.set('X-Content-Type-Options', 'nosniff');
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    ctx.body = body;
  };
}
