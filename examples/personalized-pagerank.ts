/**
 * One algorithm on its own: personalized PageRank over a small knowledge graph.
 *
 * Build a graph from extraction records (as any graph-extraction model returns them), merge the
 * entities, and rank every entity by its proximity to the entities a question mentions, with
 * NodeRAG's shallow PPR (teleport 0.5, 2 iterations).
 *
 *   pnpm tsx examples/personalized-pagerank.ts
 */
import { KnowledgeGraphBuilder, normalizeEntityName, personalizedPageRank } from '@grag/core/graph';

export function run(): [string, number][] {
  const builder = new KnowledgeGraphBuilder();
  builder.addExtraction(
    {
      entities: [
        { name: 'Ilse Marren', type: 'person', description: 'Marine biologist.' },
        { name: 'Lindqvist Institute', type: 'organization', description: 'Research institute on Orsa.' },
        { name: 'Orsa', type: 'geo', description: 'An island.' },
      ],
      relations: [
        { source: 'Ilse Marren', target: 'Lindqvist Institute', description: 'directs', weight: 2 },
        { source: 'Lindqvist Institute', target: 'Orsa', description: 'is on', weight: 1 },
      ],
    },
    { chunkId: 'c1', docId: 'institute' },
  );
  builder.addExtraction(
    {
      entities: [
        { name: 'ILSE MARREN', type: 'person', description: 'Born in Merrow Falls.' },
        { name: 'Merrow Falls', type: 'geo', description: 'Inland town.' },
        { name: 'Tobias Wren', type: 'person', description: 'Composer.' },
      ],
      relations: [
        { source: 'Ilse Marren', target: 'Merrow Falls', description: 'was born in', weight: 1 },
        { source: 'Ilse Marren', target: 'Tobias Wren', description: 'is married to', weight: 1 },
      ],
    },
    { chunkId: 'c2', docId: 'marren' },
  );
  const kg = builder.build();
  const graph = kg.toGraph();
  const seeds = ['Orsa'].map(normalizeEntityName);
  const ranks = personalizedPageRank(graph, seeds, { teleport: 0.5, iterations: 2 });
  const ranked = [...ranks].sort((a, b) => b[1] - a[1]);
  console.log(
    `${kg.entities.size} entities (ILSE MARREN merged into Ilse Marren), ${kg.relations.size} relations`,
  );
  console.log(
    `Descriptions of Ilse Marren: ${kg.entities.get(normalizeEntityName('Ilse Marren'))!.descriptions.join(' | ')}`,
  );
  for (const [id, score] of ranked)
    console.log(`  ${kg.entities.get(id)!.name.padEnd(20)} ${score.toFixed(4)}`);
  return ranked;
}

if (import.meta.url === `file://${process.argv[1]}`) run();
