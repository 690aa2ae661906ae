import type { Resolvers } from '../../../generated/graphql/resolvers.js';
import type { Variant } from '../../config/config.js';
import { scalarResolvers } from '../scalars.js';
import { sharedResolvers } from './shared/index.js';
import { variantAResolvers } from './variant-a/index.js';

/** The resolvers of a variant: the shared schema's (variant B = shared only), plus variant A's additions. */
export function resolversFor(variant: Variant): Resolvers[] {
  return variant === 'A' ? [scalarResolvers, sharedResolvers, variantAResolvers] : [scalarResolvers, sharedResolvers];
}
