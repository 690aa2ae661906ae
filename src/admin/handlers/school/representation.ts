import type { components } from '../../../../generated/admin-api.js';
import type { Site } from '../../../sites/sites.js';

export type School = components['schemas']['School'];

export function schoolRepresentation(site: Site): School {
  return {
    id: site.id,
    origin: site.origin,
    subdomain: site.subdomain,
    name: site.name,
    description: site.description,
    timezone: site.timezone,
    defaultCurrency: site.defaultCurrency,
    contactEmail: site.contactEmail,
    createdAt: site.createdAt.toISOString(),
    updatedAt: site.updatedAt.toISOString(),
  };
}
