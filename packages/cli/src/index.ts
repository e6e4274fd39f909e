// The public types (CliIO, the progress view, config from the environment) use Node's stream and
// environment types: this directive, kept in dist/index.d.ts, loads them from the `@types/node`
// this package depends on, so a consumer's type-check needs no @types/node of its own.
/// <reference types="node" preserve="true" />
export * from './cli.js';
export * from './config.js';
export * from './corpus.js';
export { defaultCacheDir } from './index-command.js';
export * from './progress.js';
export * from './providers.js';
export * from './registry.js';
export * from './simulate.js';
