export * from './cli.js';
export * from './config.js';
export * from './corpus.js';
export * from './progress.js';
export * from './providers.js';
export * from './registry.js';
