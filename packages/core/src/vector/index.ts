export * from './flat.js';
export * from './math.js';
export * from './types.js';
