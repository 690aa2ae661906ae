export * from '../http/layout.js';
