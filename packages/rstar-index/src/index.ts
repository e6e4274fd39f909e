export * from './options.js';
export * from './rstar-tree.js';
