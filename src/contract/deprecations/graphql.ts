export * from '../../deprecations/graphql-deprecations.js';
