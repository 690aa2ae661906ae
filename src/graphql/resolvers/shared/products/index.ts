import type { DigitalProductResolvers, ViewerResolvers } from '../../../../../generated/graphql/resolvers.js';
import { encodeNodeId } from '../../../../member/ids.js';
import { digitalProducts } from './digital-products.js';

export const productViewerResolvers: ViewerResolvers = { digitalProducts };

export const digitalProductResolvers: DigitalProductResolvers = {
  id: (product) => encodeNodeId('DigitalProduct', product.id),
};
