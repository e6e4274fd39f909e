export * from './bm25.js';
export * from './entry-points.js';
export * from './fusion.js';
export * from './residual.js';
