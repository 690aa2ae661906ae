import Router from '@koa/router';
import type { SiteState } from '../../http/state.js';
import type { Services } from '../../services.js';
import { ValidationError } from '../../shared/errors.js';
import { USAGE_APIS } from '../../usage/export-format.js';
import { elementUsagePage, usageDaysProblem, usageWindow, type UsageFilter, type UsagePage } from '../../usage/report.js';
import { operatorPage, sendAdminHtml } from './area.js';
import { ADMIN_PATHS } from './paths.js';
import { usagePage, type UsageFilterValues } from './views/usage.js';

/**
 * The admin area's API usage page (docs/usage.md, "Reading the usage"): the same report as the admin API's
 * `GET /usage`, filtered by API and by the beginning of an element's name, 50 elements a page. Read-only, so it needs no
 * CSRF token; it is shown to every operator (the admin API is counted whether or not the MCP beta is on).
 */

const PAGE_SIZE = 50;
const MAX_ELEMENT_LENGTH = 191;

function queryValue(value: string | string[] | undefined): string {
  return typeof value === 'string' ? value.trim() : '';
}

/** The link to the page after this one: the same filters and the cursor. */
function nextPagePath(values: UsageFilterValues, cursor: string): string {
  const query = new URLSearchParams({ days: values.days, ...(values.api === '' ? {} : { api: values.api }), ...(values.element === '' ? {} : { element: values.element }), after: cursor });
  return `${ADMIN_PATHS.usage}?${query.toString()}`;
}

export function adminUsageRoutes(services: Services): Router<SiteState> {
  const { db } = services;
  const retentionDays = services.config.usageRetentionDays;
  const router = new Router<SiteState>();

  router.get(
    ADMIN_PATHS.usage,
    operatorPage(db, async (page) => {
      const query = page.ctx.query;
      const rawApi = queryValue(query.api);
      const api = USAGE_APIS.find((known) => known === rawApi);
      const values: UsageFilterValues = { days: queryValue(query.days) || String(Math.min(30, retentionDays)), api: api ?? '', element: queryValue(query.element) };
      const days = /^\d{1,4}$/.test(values.days) ? Number(values.days) : Number.NaN;
      const problem =
        rawApi !== '' && api === undefined
          ? `Choose an API from the list (${USAGE_APIS.join(', ')}).`
          : values.element.length > MAX_ELEMENT_LENGTH
            ? `An element name is at most ${MAX_ELEMENT_LENGTH} characters.`
            : Number.isNaN(days)
              ? `Days must be a whole number from 1 to ${retentionDays}.`
              : usageDaysProblem(days, retentionDays);
      const base = { chrome: page.chrome, values, retentionDays, elements: [], nextPage: null, continued: false };
      if (problem !== null) {
        sendAdminHtml(page.ctx, 400, usagePage({ ...base, window: null, error: problem }));
        return;
      }
      const filter: UsageFilter = { ...(api === undefined ? {} : { api }), ...(values.element === '' ? {} : { prefix: values.element }) };
      const window = usageWindow(days);
      let cursor = queryValue(query.after);
      const list = (from: string | undefined): Promise<UsagePage> => elementUsagePage(db, page.site.id, window, filter, { limit: PAGE_SIZE, ...(from === undefined ? {} : { cursor: from }) });
      const found = await list(cursor === '' ? undefined : cursor).catch((error: unknown) => {
        // A stale or mangled "Next page" link starts again from the first page.
        if (!(error instanceof ValidationError && error.code === 'invalid_cursor')) throw error;
        cursor = '';
        return list(undefined);
      });
      sendAdminHtml(
        page.ctx,
        200,
        usagePage({ ...base, window, elements: found.elements, nextPage: found.nextCursor === null ? null : nextPagePath(values, found.nextCursor), continued: cursor !== '' }),
      );
    }),
  );
  return router;
}
