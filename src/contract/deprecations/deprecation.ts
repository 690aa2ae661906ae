export * from '../../deprecations/deprecation.js';
