import type { ChatCallOptions, Document } from '@grag/core';
import { createBuildContext } from '@grag/core/kit';
import { createPromptTasks } from '@grag/core/tasks';
import { createScriptedChatModel, createScriptedEmbedder } from '@grag/core/test';
import { hnswIndexFactory } from '@grag/hnsw';

/** A hand-made two-document corpus. */
export const DOCS: Document[] = [
  {
    id: 'kessler',
    title: 'Kessler Shipyard',
    text: 'Anton Kessler founded the Kessler Shipyard in 1881. The shipyard built ferries for Orsa.',
  },
  {
    id: 'orsa',
    title: 'Orsa',
    text: 'Orsa is an island in the Veskan Strait. Anton Kessler was born on Orsa.',
  },
];

/** What the scripted model answers for the decomposition of each document. */
export const UNITS: Record<string, { semantic_unit: string; entities: string[]; relationships: string[] }[]> =
  {
    kessler: [
      {
        semantic_unit: 'Anton Kessler founded the Kessler Shipyard in 1881.',
        entities: ['Anton Kessler', 'Kessler Shipyard', '1881'],
        relationships: ['Anton Kessler, founded, Kessler Shipyard'],
      },
      {
        semantic_unit: 'The Kessler Shipyard built ferries for Orsa.',
        entities: ['Kessler Shipyard', 'Orsa'],
        relationships: ['Kessler Shipyard, built ferries for, Orsa'],
      },
    ],
    orsa: [
      {
        semantic_unit: 'Orsa is an island in the Veskan Strait.',
        entities: ['Orsa', 'Veskan Strait'],
        relationships: ['Orsa, lies in, Veskan Strait'],
      },
      {
        semantic_unit: 'Anton Kessler was born on Orsa.',
        entities: ['anton kessler', 'ORSA'],
        relationships: ['Anton Kessler, born on, Orsa'],
      },
    ],
  };

function userText(call: ChatCallOptions): string {
  return call.messages.map((m) => m.content).join('\n');
}

/** Which task a prompt is for, from its instruction line. */
export function taskOf(call: ChatCallOptions): string {
  const text = userText(call);
  if (text.includes('semantic units')) return 'decompose';
  if (text.includes('describe the same entity')) return 'attribute';
  if (text.includes('short title')) return 'title';
  if (text.includes('List the entities named in the question')) return 'query-entities';
  return 'other';
}

/**
 * A build context on a scripted chat model and the scripted bag-of-words embedder, with the HNSW
 * vector index NodeRAG's paper builds (its base layer gives the semantic edges).
 */
export function scriptedContext() {
  let communities = 0;
  const chat = createScriptedChatModel((call) => {
    const text = userText(call);
    switch (taskOf(call)) {
      case 'decompose': {
        const doc = text.includes('Anton Kessler founded') ? 'kessler' : 'orsa';
        return JSON.stringify({ units: UNITS[doc] });
      }
      case 'attribute': {
        const name = text.includes('island') ? 'Orsa' : 'the entity';
        return `Summary of ${name}: ${text.includes('ferries') ? 'ferries were built for it.' : 'see units.'}`;
      }
      case 'title':
        communities++;
        return JSON.stringify({
          title: `Theme ${communities}`,
          description: `Insight number ${communities}.`,
        });
      case 'query-entities': {
        const question = /<<<\n([\s\S]*?)\n>>>/.exec(text)?.[1] ?? '';
        return JSON.stringify({ entities: question.match(/[A-Z][a-z]+(?: [A-Z][a-z]+)*/g) ?? [] });
      }
      default:
        throw new Error(`unexpected prompt: ${text.slice(0, 200)}`);
    }
  });
  const embedder = createScriptedEmbedder({ dimensions: 32 });
  const ctx = createBuildContext({
    embedder,
    tasks: createPromptTasks(chat),
    chat,
    vectorIndex: hnswIndexFactory(),
  });
  return { ctx, chat, embedder };
}
