export * from '../contracts/vector.js';
export * from './flat.js';
export * from './math.js';
