/**
 * The states of a retrieval task's shared cancellation flag (`RetrieveTask.abort`, an `Int32Array`
 * on a `SharedArrayBuffer`): the server writes them, the worker reads them (retrieval-worker.ts).
 */

/** The client is still there. */
export const RUNNING = 0;
/** The client disconnected; the worker stops the retrieval. */
export const ABORTED = 1;
/** The reply is in; the worker stops listening. */
export const SETTLED = 2;
