export * from '../../deprecations/openapi-deprecations.js';
