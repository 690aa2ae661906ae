export * from '../http/html.js';
