import Router from '@koa/router';
import type { Database } from '../../db/connection.js';
import { acceptBody, DEFAULT_BODY_LIMIT } from '../../http/body.js';
import type { SiteContext, SiteState } from '../../http/state.js';
import type { Services } from '../../services.js';
import { addressLimits } from '../anonymous-limits.js';
import { limitFailures } from '../failure-limits.js';
import { OAUTH_PATHS } from '../endpoints.js';
import { InvalidClientMetadataError } from '../errors.js';
import { readRegistrationRequest } from './read-registration-request.js';
import { registrationResponse } from './registration-response.js';
import { findVendorPlatform, type VendorPlatform } from '../../clients/vendor-platforms.js';

/** Spec, Errors: an unrecognised name is refused and no body change helps; say how a client is really obtained. */
const HOW_TO_GET_A_CLIENT =
  'This endpoint is not open dynamic client registration (RFC 7591): it only answers the client_id of vendor platforms ' +
  "pre-registered on this site's allowlist, so no change to the request body will help. To get a client, ask the " +
  'site operator to create an OAuth application in the site admin area (Developers, OAuth applications) and give you ' +
  'its client_id; or, where the site permits your host, use the HTTPS URL of a Client ID Metadata Document as client_id.';

async function matchVendorPlatform(db: Database, siteId: number, clientName: string | undefined): Promise<VendorPlatform> {
  if (clientName === undefined || clientName.trim() === '') {
    throw new InvalidClientMetadataError(`client_name is required. ${HOW_TO_GET_A_CLIENT}`);
  }
  const platform = await findVendorPlatform(db, siteId, clientName);
  if (!platform) throw new InvalidClientMetadataError(`client_name "${clientName.trim()}" is not a known vendor platform. ${HOW_TO_GET_A_CLIENT}`);
  return platform;
}

function sendRegistration(ctx: SiteContext, platform: VendorPlatform): void {
  ctx.status = 201;
  // The response describes a client's credentials; nothing on the way may store it (RFC 6749 5.1 by analogy).
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Pragma', 'no-cache');
  ctx.body = registrationResponse(platform.clientName, platform.client);
}

/** `POST /api/oauth/register`: the vendor-platform allowlist on `client_name` (spec, Authentication 5). */
export function registrationRoutes(services: Services): Router<SiteState> {
  const { db } = services;
  const router = new Router<SiteState>();
  // RFC 7591 3.1: a JSON object; the form encoding of the other OAuth endpoints is accepted as well.
  router.post(OAUTH_PATHS.register, acceptBody({ json: DEFAULT_BODY_LIMIT, form: DEFAULT_BODY_LIMIT }), limitFailures(db, 'registration-failures', addressLimits(services.config.anonymousLimits).failures), async (ctx) => {
    const request = readRegistrationRequest(ctx);
    const platform = await matchVendorPlatform(db, ctx.state.site.id, request.clientName);
    sendRegistration(ctx, platform);
  });
  return router;
}
