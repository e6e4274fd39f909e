import type { TaskSuite } from '../tasks/types.js';
import type { Document } from '../types.js';

const PEOPLE = ['Anton Kessler', 'Mira Kessler', 'Tomas Brandt', 'Ilse Varga', 'Jonas Holm', 'Petra Lind'];
const PLACES = ['Varnholm', 'Orsa', 'Kestrel Bay', 'Dunmore', 'Ashford'];
const THINGS = [
  'the Kessler Shipyard',
  'the Orsa Marine Institute',
  'the Varnholm Regatta',
  'the Dunmore Lighthouse',
];

/**
 * `count` short documents of three sentences about recurring people, places and organizations,
 * for build tests. Every sentence differs (each names a year), so no text repeats in a build.
 */
export function entityDocuments(count: number): Document[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `d${i}`,
    title: `Record ${i}`,
    text:
      `${PEOPLE[i % 6]} visited ${PLACES[i % 5]} in ${1880 + i}. ` +
      `${PEOPLE[(i + 1) % 6]} worked for ${THINGS[i % 4]} in ${PLACES[(i + 2) % 5]} from ${1920 + i}. ` +
      `In ${1960 + i}, ${THINGS[(i + 1) % 4]} hired ${PEOPLE[(i + 3) % 6]}.`,
  }));
}

/** How many task calls a {@link trackTasks} suite has in flight, at most, and has made. */
export interface TaskTracking {
  inFlight: number;
  peak: number;
  /** `extractGraph` calls made. */
  extracted: number;
}

const TASKS = [
  'extractGraph',
  'decomposeSemanticUnits',
  'summarize',
  'titleAndDescription',
  'extractQueryEntities',
  'extractQueryGraph',
  'assessCommunity',
  'answer',
] as const;

/**
 * Wrap `base` so every task call records how many run at once (each waits one macrotask first,
 * so concurrent calls overlap) and, with `fail`, graph extraction throws for a text containing it.
 */
export function trackTasks(base: TaskSuite, fail?: string): { tasks: TaskSuite; seen: TaskTracking } {
  const seen: TaskTracking = { inFlight: 0, peak: 0, extracted: 0 };
  const tasks = { id: base.id } as Record<string, unknown>;
  for (const name of TASKS) {
    const fn = (base[name] as (...args: unknown[]) => Promise<unknown>).bind(base);
    tasks[name] = async (...args: unknown[]) => {
      seen.inFlight += 1;
      seen.peak = Math.max(seen.peak, seen.inFlight);
      try {
        await new Promise((resolve) => setImmediate(resolve));
        if (name === 'extractGraph') {
          seen.extracted += 1;
          if (fail && String(args[0]).includes(fail)) throw new Error('the model is down');
        }
        return await fn(...args);
      } finally {
        seen.inFlight -= 1;
      }
    };
  }
  return { tasks: tasks as unknown as TaskSuite, seen };
}
