/**
 * The replica process run from the TypeScript sources (tests, `pnpm grag`, the benchmarks): tsx's
 * loader registered first (the primary's `--import` flags are not passed on), then the replica
 * module itself. The built package starts `replica-entry.js` directly.
 */
const { register } = await import(process.env.GRAG_REPLICA_TSX_API);
register();
const { runReplica } = await import(new URL('./replica.ts', import.meta.url).href);
runReplica();
