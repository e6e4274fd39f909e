const marker = Symbol.for('grag.error');

/**
 * Base class of every error grag throws. Use `GragError.isInstance(e)` (or a subclass's
 * `isInstance`) rather than `instanceof`: it works across duplicated installs.
 */
export class GragError extends Error {
  readonly [marker] = true;
  /** Stable machine-readable kind, e.g. `'invalid-argument'`. */
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'GragError';
    this.code = code;
  }

  static isInstance(error: unknown): error is GragError {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[marker] === true;
  }
}

function hasCode(error: unknown, code: string): boolean {
  return GragError.isInstance(error) && error.code === code;
}

/** A caller passed a value that cannot be used. `argument` names it. */
export class InvalidArgumentError extends GragError {
  readonly argument: string;
  constructor(argument: string, message: string, options?: { cause?: unknown }) {
    super('invalid-argument', message, options);
    this.name = 'InvalidArgumentError';
    this.argument = argument;
  }
  static override isInstance(error: unknown): error is InvalidArgumentError {
    return hasCode(error, 'invalid-argument');
  }
}

/** A model answered with text that could not be parsed into the task's output. `raw` keeps the text. */
export class ModelOutputError extends GragError {
  readonly task: string;
  readonly raw: string;
  constructor(task: string, raw: string, message: string, options?: { cause?: unknown }) {
    super('model-output', message, options);
    this.name = 'ModelOutputError';
    this.task = task;
    this.raw = raw;
  }
  static override isInstance(error: unknown): error is ModelOutputError {
    return hasCode(error, 'model-output');
  }
}

/** An index directory is missing, of another method, or of an unsupported format version. */
export class IndexFormatError extends GragError {
  readonly path: string;
  readonly version: number | undefined;
  constructor(path: string, version: number | undefined, message: string, options?: { cause?: unknown }) {
    super('index-format', message, options);
    this.name = 'IndexFormatError';
    this.path = path;
    this.version = version;
  }
  static override isInstance(error: unknown): error is IndexFormatError {
    return hasCode(error, 'index-format');
  }
}

/** A model provider call failed (HTTP status, network, timeout). `retryable` says whether retrying may help. */
export class ProviderError extends GragError {
  readonly provider: string;
  readonly status: number | undefined;
  readonly retryable: boolean;
  constructor(
    provider: string,
    message: string,
    details: { status?: number; retryable?: boolean; cause?: unknown } = {},
  ) {
    super('provider', message, { cause: details.cause });
    this.name = 'ProviderError';
    this.provider = provider;
    this.status = details.status;
    this.retryable = details.retryable ?? false;
  }
  static override isInstance(error: unknown): error is ProviderError {
    return hasCode(error, 'provider');
  }
}

/** An input file or record could not be read. `path` names it. */
export class InputError extends GragError {
  readonly path: string;
  constructor(path: string, message: string, options?: { cause?: unknown }) {
    super('input', message, options);
    this.name = 'InputError';
    this.path = path;
  }
  static override isInstance(error: unknown): error is InputError {
    return hasCode(error, 'input');
  }
}

/** Output could not be written where asked, or writing it would destroy files grag did not make. `path` names it. */
export class OutputError extends GragError {
  readonly path: string;
  constructor(path: string, message: string, options?: { cause?: unknown }) {
    super('output', message, options);
    this.name = 'OutputError';
    this.path = path;
  }
  static override isInstance(error: unknown): error is OutputError {
    return hasCode(error, 'output');
  }
}

/** An object was used before it was ready (e.g. an embedder that must be fitted first). */
export class StateError extends GragError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('state', message, options);
    this.name = 'StateError';
  }
  static override isInstance(error: unknown): error is StateError {
    return hasCode(error, 'state');
  }
}

/** The operation was cancelled through an AbortSignal. */
export class AbortError extends GragError {
  constructor(message = 'The operation was aborted.', options?: { cause?: unknown }) {
    super('aborted', message, options);
    this.name = 'AbortError';
  }
  static override isInstance(error: unknown): error is AbortError {
    return hasCode(error, 'aborted');
  }
}

/**
 * Power iteration did not reach the requested tolerance within the allowed number of iterations.
 * `delta` is the L1 change of the last iteration.
 */
export class ConvergenceError extends GragError {
  readonly iterations: number;
  readonly delta: number;
  constructor(iterations: number, delta: number, message: string) {
    super('no-convergence', message);
    this.name = 'ConvergenceError';
    this.iterations = iterations;
    this.delta = delta;
  }
  static override isInstance(error: unknown): error is ConvergenceError {
    return hasCode(error, 'no-convergence');
  }
}

/**
 * A work item of a build stage failed after the provider's own retries. The message names the
 * stage, the item (e.g. the chunk id) and how to resume.
 */
export class BuildStageError extends GragError {
  readonly stage: string;
  readonly item: string;
  constructor(stage: string, item: string, message: string, options?: { cause?: unknown }) {
    super('build-stage', message, options);
    this.name = 'BuildStageError';
    this.stage = stage;
    this.item = item;
  }
  static override isInstance(error: unknown): error is BuildStageError {
    return hasCode(error, 'build-stage');
  }
}

/** Throw an {@link AbortError} when `signal` is aborted. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new AbortError(undefined, { cause: signal.reason });
}
