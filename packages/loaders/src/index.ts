/**
 * @grag/loaders: files into grag documents whose segments say where each part of the text comes
 * from — PDF page, heading path, CSV row, JSON record — so every citation can show it.
 */
export type {
  LoadedFile,
  Loader,
  LoaderInput,
  LoaderLimits,
  LoaderOptions,
  RecordFields,
  SkippedInput,
} from '@grag/core';
export { textLoader } from '@grag/core/kit';
export { DEFAULT_LOADER_LIMITS } from './limits.js';
export { defaultLoaders, findLoader, type LoadFileOptions, loadFile } from './load-file.js';
export {
  csvLoader,
  docxLoader,
  htmlLoader,
  jsonLoader,
  jsonlLoader,
  markdownLoader,
  pdfLoader,
} from './loaders.js';
