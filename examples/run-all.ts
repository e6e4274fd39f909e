/** Runs every example and checks what it must show; `pnpm examples` calls this. */
import { run as customPipeline } from './custom-pipeline.js';
import { run as personalizedPageRank } from './personalized-pagerank.js';

function check(condition: boolean, message: string): void {
  if (!condition) {
    console.error(`example check failed: ${message}`);
    process.exit(1);
  }
}

console.log('# personalized-pagerank');
const ranked = personalizedPageRank();
check(ranked[0]?.[0] === 'orsa', 'the seed ranks first');
check(ranked.length === 5, 'ILSE MARREN and Ilse Marren merge into one of 5 entities');

console.log('\n# custom-pipeline');
const result = await customPipeline();
check(
  result.context.includes('directed by the biologist Ilse Marren'),
  'the passage with the answer is in the context',
);
check(result.tokens <= 1500, 'the context fits its budget');
check(
  result.citations.length > 0 && result.citations.every((id) => result.items.some((i) => i.id === id)),
  'the answer cites passages of the context',
);

console.log('\nexamples: 2 passed, 0 failed');
