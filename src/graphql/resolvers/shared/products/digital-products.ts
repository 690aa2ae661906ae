import type { ViewerResolvers } from '../../../../../generated/graphql/resolvers.js';
import { listDigitalProducts } from '../../../../member/products.js';
import { toConnection } from '../../connection.js';

/** Viewer.digitalProducts: products the viewer may download, newest grant first. */
export const digitalProducts: NonNullable<ViewerResolvers['digitalProducts']> = async (_viewer, args, context) => toConnection(await listDigitalProducts(context, args));
