/**
 * Turns of the event loop for the steps of a query that keep the CPU busy (a retrieval on a local
 * index, an answer by a local reader). Node accepts one new connection per turn of its event loop,
 * and reads every request that is ready in the same turn: when each request ran its retrieval and
 * answer in the turn that read it, a turn with twenty busy connections lasted seconds, and a
 * connection opened meanwhile waited that many turns to be accepted (a load test's 32nd connection
 * waited over 10 s). {@link nextTurn} starts one waiting step per turn, in the order they asked,
 * so new connections are accepted and requests read between steps, and no query waits behind
 * queries that came after it. A step that waits for the network (a remote model) only waits for
 * its turn to start.
 */

/** Steps waiting for their turn, first come first served. */
const waiting: (() => void)[] = [];
let pumping = false;

/** Start the next waiting step, and the one after it in the next turn of the event loop. */
function pump(): void {
  const next = waiting.shift();
  if (next === undefined) {
    pumping = false;
    return;
  }
  // The step runs in this turn's microtasks, right after this returns; the next one next turn
  // (an immediate queued from an immediate waits for the next turn).
  next();
  setImmediate(pump);
}

/**
 * Resolves when it is this step's turn: in a later turn of the event loop than the call, after
 * every step that asked before it, one step per turn. Shared by every server in the process (they
 * share its event loop).
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (!pumping) {
      pumping = true;
      setImmediate(pump);
    }
  });
}
