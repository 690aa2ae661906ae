import type { Resolvers } from '../../../generated/graphql/resolvers.js';
import type { VariantProfile } from '../../variant.js';
import { scalarResolvers } from '../scalars.js';
import { sharedResolvers } from './shared/index.js';
import { variantAResolvers } from './variant-a/index.js';

/** The resolvers of each schema folder a deployment can load: every folder's SDL comes with its resolvers. */
const RESOLVERS_OF_FOLDER: Readonly<Record<string, Resolvers>> = {
  schema: sharedResolvers,
  'schema/variant-a': variantAResolvers,
};

/** The resolvers of a deployment's schema: the scalars, then those of each schema folder it loads. */
export function resolversFor(variant: VariantProfile): Resolvers[] {
  return [
    scalarResolvers,
    ...variant.memberGraphql.schemaFolders.map((folder) => {
      const resolvers = RESOLVERS_OF_FOLDER[folder];
      if (!resolvers) throw new Error(`no resolvers for the schema folder ${folder}`);
      return resolvers;
    }),
  ];
}
