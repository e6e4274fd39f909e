/**
 * Lazy loading of TensorFlow.js for training. Nothing here runs until a model is trained: the
 * training-free embedder and inference of trained models never load tfjs.
 */
import type * as TfCore from '@tensorflow/tfjs-core';

/** The tfjs-core module. */
export type Tf = typeof TfCore;
type Tensor = TfCore.Tensor;

/** A loaded tfjs and the name of the backend it runs on (`'cpu'`, or `'tensorflow'` with tfjs-node). */
export interface LoadedTf {
  tf: Tf;
  backend: string;
}

let loading: Promise<LoadedTf> | undefined;

function isModuleNotFound(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
}

/**
 * Load tfjs-core once. When `@tensorflow/tfjs-node` is installed it is imported (it registers the
 * native `'tensorflow'` backend and takes priority); otherwise the pure-JS CPU backend is used.
 * Gradients of the kernels the models use are registered when no other package registered them
 * (the tfjs-core ESM build that would register them cannot be imported by Node).
 */
export function loadTf(): Promise<LoadedTf> {
  loading ??= (async () => {
    const tf = (await import('@tensorflow/tfjs-core')) as Tf;
    const nodeBackend = '@tensorflow/tfjs-node';
    try {
      await import(/* @vite-ignore */ nodeBackend);
    } catch (error) {
      if (!isModuleNotFound(error)) throw error;
    }
    await import('@tensorflow/tfjs-backend-cpu');
    await tf.ready();
    registerMissingGradients(tf);
    return { tf, backend: tf.getBackend() };
  })();
  return loading;
}

/**
 * Sum `grad` over the axes it was broadcast along, back to `shape`. Summing over leading axes is
 * done as a product with a row of ones (the CPU backend reduces a non-last axis slowly).
 */
function unbroadcast(tf: Tf, grad: Tensor, shape: number[]): Tensor {
  const axes = tf.broadcast_util.getReductionAxes(shape, grad.shape);
  if (axes.length === 0) return tf.reshape(grad, shape);
  const lead = grad.rank - shape.length;
  const trailing = grad.shape.slice(lead);
  const leadingOnly =
    lead > 0 &&
    axes.length === lead &&
    axes.every((a, i) => a === i) &&
    trailing.every((n, i) => n === shape[i]);
  if (leadingOnly) {
    const inner = trailing.reduce((a, b) => a * b, 1);
    const outer = grad.size / inner;
    const summed = tf.matMul(tf.ones([1, outer]), tf.reshape(grad, [outer, inner]));
    return tf.reshape(summed, shape);
  }
  return tf.reshape(tf.sum(grad, axes), shape);
}

/** `shape` with the reduced `axes` kept as size 1. */
function keptShape(shape: number[], axes: number[]): number[] {
  return shape.map((n, i) => (axes.includes(i) ? 1 : n));
}

/**
 * Gradient functions (our own) of the kernels used by the two attention models, registered only
 * where none is registered yet.
 */
export function registerMissingGradients(tf: Tf): void {
  const configs = [...arithmeticGradients(tf), ...activationGradients(tf), ...shapeGradients(tf)];
  for (const config of configs) {
    if (tf.getGradient(config.kernelName) === undefined) tf.registerGradient(config);
  }
}

/** Gradients of the element-wise arithmetic and the reductions (with broadcasting undone). */
function arithmeticGradients(tf: Tf): TfCore.GradConfig[] {
  return [
    {
      kernelName: 'Add',
      inputsToSave: ['a', 'b'],
      gradFunc: (dy, [a, b]) => ({
        a: () => unbroadcast(tf, dy as Tensor, a!.shape),
        b: () => unbroadcast(tf, dy as Tensor, b!.shape),
      }),
    },
    {
      kernelName: 'Sub',
      inputsToSave: ['a', 'b'],
      gradFunc: (dy, [a, b]) => ({
        a: () => unbroadcast(tf, dy as Tensor, a!.shape),
        b: () => unbroadcast(tf, tf.neg(dy as Tensor), b!.shape),
      }),
    },
    {
      kernelName: 'Multiply',
      inputsToSave: ['a', 'b'],
      gradFunc: (dy, [a, b]) => ({
        a: () => unbroadcast(tf, tf.mul(dy as Tensor, b!), a!.shape),
        b: () => unbroadcast(tf, tf.mul(dy as Tensor, a!), b!.shape),
      }),
    },
    {
      kernelName: 'RealDiv',
      inputsToSave: ['a', 'b'],
      gradFunc: (dy, [a, b]) => ({
        a: () => unbroadcast(tf, tf.div(dy as Tensor, b!), a!.shape),
        b: () => unbroadcast(tf, tf.neg(tf.div(tf.mul(dy as Tensor, a!), tf.square(b!))), b!.shape),
      }),
    },
    { kernelName: 'Neg', gradFunc: (dy) => ({ x: () => tf.neg(dy as Tensor) }) },
    {
      kernelName: 'Sum',
      inputsToSave: ['x'],
      gradFunc: (dy, [x], attrs) => ({
        x: () => {
          const axes = tf.util.parseAxisParam((attrs as unknown as TfCore.SumAttrs).axis, x!.shape);
          const kept = axes.length === x!.rank ? [] : keptShape(x!.shape, axes);
          return tf.mul(tf.onesLike(x!), tf.reshape(dy as Tensor, kept));
        },
      }),
    },
    {
      kernelName: 'Max',
      inputsToSave: ['x'],
      outputsToSave: [true],
      gradFunc: (dy, [x, y], attrs) => ({
        x: () => {
          const axes = tf.util.parseAxisParam(
            (attrs as unknown as TfCore.MaxAttrs).reductionIndices,
            x!.shape,
          );
          const shape = keptShape(x!.shape, axes);
          const mask = tf.cast(tf.equal(x!, tf.reshape(y!, shape)), 'float32');
          return tf.mul(mask, tf.reshape(dy as Tensor, shape));
        },
      }),
    },
  ];
}

/** Gradients of the activations and element-wise functions. */
function activationGradients(tf: Tf): TfCore.GradConfig[] {
  return [
    {
      kernelName: 'Relu',
      inputsToSave: ['x'],
      gradFunc: (dy, [x]) => ({ x: () => tf.mul(dy as Tensor, tf.cast(tf.greater(x!, 0), 'float32')) }),
    },
    {
      kernelName: 'LeakyRelu',
      inputsToSave: ['x'],
      gradFunc: (dy, [x], attrs) => ({
        x: () => {
          const alpha = (attrs as unknown as TfCore.LeakyReluAttrs).alpha;
          return tf.mul(dy as Tensor, tf.where(tf.greater(x!, 0), tf.onesLike(x!), tf.fill(x!.shape, alpha)));
        },
      }),
    },
    {
      kernelName: 'Sigmoid',
      outputsToSave: [true],
      gradFunc: (dy, [y]) => ({ x: () => tf.mul(dy as Tensor, tf.mul(y!, tf.sub(1, y!))) }),
    },
    {
      kernelName: 'Softplus',
      inputsToSave: ['x'],
      gradFunc: (dy, [x]) => ({ x: () => tf.mul(dy as Tensor, tf.sigmoid(x!)) }),
    },
    {
      kernelName: 'Log1p',
      inputsToSave: ['x'],
      gradFunc: (dy, [x]) => ({ x: () => tf.div(dy as Tensor, tf.add(x!, 1)) }),
    },
    {
      kernelName: 'Exp',
      outputsToSave: [true],
      gradFunc: (dy, [y]) => ({ x: () => tf.mul(dy as Tensor, y!) }),
    },
    {
      kernelName: 'Square',
      inputsToSave: ['x'],
      gradFunc: (dy, [x]) => ({ x: () => tf.mul(dy as Tensor, tf.mul(x!, 2)) }),
    },
    {
      kernelName: 'Rsqrt',
      outputsToSave: [true],
      gradFunc: (dy, [y]) => ({ x: () => tf.mul(dy as Tensor, tf.mul(tf.pow(y!, 3), -0.5)) }),
    },
  ];
}

/** Gradients of slicing, reshaping and batched matrix products. */
function shapeGradients(tf: Tf): TfCore.GradConfig[] {
  return [
    {
      kernelName: 'Slice',
      inputsToSave: ['x'],
      gradFunc: (dy, [x], attrs) => ({
        x: () => {
          const { begin, size } = attrs as unknown as TfCore.SliceAttrs;
          const [start, length] = tf.slice_util.parseSliceParams(x!, begin, size) as [number[], number[]];
          const paddings = x!.shape.map(
            (n, i) => [start[i]!, n - start[i]! - length[i]!] as [number, number],
          );
          return tf.pad(dy as Tensor, paddings);
        },
      }),
    },
    {
      kernelName: 'Reshape',
      inputsToSave: ['x'],
      gradFunc: (dy, [x]) => ({ x: () => tf.reshape(dy as Tensor, x!.shape) }),
    },
    {
      kernelName: 'BatchMatMul',
      inputsToSave: ['a', 'b'],
      gradFunc: (dy, [a, b], attrs) => {
        const sameBatch = a!.rank === b!.rank && a!.shape.slice(0, -2).every((n, i) => n === b!.shape[i]);
        if (a!.rank > 3 || !sameBatch) {
          throw new Error(
            'dominance-gnn: the BatchMatMul gradient registered here needs rank 2, or rank 3 with equal batch sizes.',
          );
        }
        const { transposeA, transposeB } = attrs as unknown as TfCore.BatchMatMulAttrs;
        const g = dy as Tensor;
        const m = (x: Tensor, y: Tensor, tx: boolean, ty: boolean) => tf.matMul(x, y, tx, ty);
        if (!transposeA && !transposeB)
          return { a: () => m(g, b!, false, true), b: () => m(a!, g, true, false) };
        if (transposeA && !transposeB)
          return { a: () => m(b!, g, false, true), b: () => m(a!, g, false, false) };
        if (!transposeA && transposeB)
          return { a: () => m(g, b!, false, false), b: () => m(g, a!, true, false) };
        return { a: () => m(b!, g, true, true), b: () => m(g, a!, true, true) };
      },
    },
  ];
}
