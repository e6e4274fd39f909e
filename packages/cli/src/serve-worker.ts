/**
 * The setup module of `grag serve --workers`: each retrieval worker loads the indexes with the
 * methods of the command line and the providers the configuration and each manifest name, as the
 * server's thread loaded them (the offline task suite and embedder, or the OpenAI-compatible models
 * of the configuration, made anew in each worker).
 */
import type { LoadIndexesOptions } from '@grag/server';
import type { GragConfig } from './config.js';
import { createProviders } from './providers.js';
import { METHODS } from './registry.js';

/** What `grag serve` passes to each worker. */
export interface ServeWorkerData {
  config: GragConfig;
}

/** The methods and the load context of a worker of `grag serve`. */
export default function serveWorkerSetup(data: ServeWorkerData): LoadIndexesOptions {
  return {
    methods: METHODS.map((m) => m.method),
    context: (manifest) => createProviders(data.config, { manifest }).ctx,
  };
}
