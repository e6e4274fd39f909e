export * from './bm25.js';
export * from './methods.js';
