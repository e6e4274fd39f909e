/**
 * Settings presets chosen by provider: a method whose build options include `preset` (the paper
 * packages: E2GraphRAG, KET-RAG) builds with its `'offline'` preset (grag's measured offline
 * settings) when grag runs offline, and with its `'paper'` preset (the paper's configuration)
 * against an OpenAI-compatible endpoint or in an estimate of one. `--set preset=…` wins.
 */
import type { MethodEntry } from './registry.js';

/** How grag runs: the offline providers, an OpenAI-compatible endpoint, or an estimate of one. */
export type ProviderMode = 'offline' | 'openai' | 'estimate';

/** The build options with the preset the providers choose, and the line that says which. */
export interface PresetChoice {
  options: Record<string, unknown>;
  /** One line naming the preset and why, for stderr; undefined when the method has no presets. */
  line?: string;
}

/** Whether `entry`'s method takes a `preset` build option. */
export function hasPresets(entry: MethodEntry): boolean {
  return entry.method.optionKeys?.build.includes('preset') === true;
}

/**
 * `options` with the preset of `entry` for providers of `mode`: an explicit `preset` is kept;
 * otherwise `'offline'` with the offline providers, `'paper'` with an endpoint or an estimate.
 */
export function choosePreset(
  entry: MethodEntry,
  mode: ProviderMode,
  options: Readonly<Record<string, unknown>>,
): PresetChoice {
  if (!hasPresets(entry)) return { options: { ...options } };
  if (options.preset !== undefined) {
    return {
      options: { ...options },
      line: `grag: ${entry.name} builds with its ${String(options.preset)} preset (--set preset=${String(options.preset)}).`,
    };
  }
  const preset = mode === 'offline' ? 'offline' : 'paper';
  const other = preset === 'offline' ? 'paper' : 'offline';
  const why =
    preset === 'offline'
      ? "grag's measured settings for the offline providers"
      : "the paper's configuration, for an OpenAI-compatible endpoint";
  return {
    options: { ...options, preset },
    line: `grag: ${entry.name} builds with its ${preset} preset (${why}); --set preset=${other} for the ${other === 'paper' ? "paper's configuration" : 'offline settings'}.`,
  };
}
