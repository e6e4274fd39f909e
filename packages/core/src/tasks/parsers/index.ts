/**
 * The task parsers, one module per task: model text in, records plus {@link ParseIssue}s out.
 * Parsers are pure and never throw on model text; whatever they cannot use is reported as an
 * issue, with its raw text.
 * Issues about a record lost because its text could not be read carry `repairable: true` (what a
 * repair retry may recover); defaults filled in and output cut off do not.
 */

export * from './answer.js';
export * from './community-assessment.js';
export * from './graph-extraction.js';
export * from './query-entities.js';
export * from './query-graph.js';
export * from './semantic-units.js';
export * from './summary.js';
export * from './title-description.js';
