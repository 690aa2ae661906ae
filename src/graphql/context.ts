import type { Variant } from '../config/config.js';
import type { Database } from '../db/connection.js';
import type { Site } from '../sites/sites.js';

/** What every member GraphQL resolver receives (graphql-codegen's `contextType`). */
export interface GraphQLContext {
  db: Database;
  site: Site;
  variant: Variant;
}
