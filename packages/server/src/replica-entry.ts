/** The module a replica process of `serve({ processes })` runs (see replica.ts). */
import { runReplica } from './replica.js';

runReplica();
