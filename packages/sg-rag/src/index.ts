export * from './kg.js';
export * from './method.js';
export * from './plan.js';
