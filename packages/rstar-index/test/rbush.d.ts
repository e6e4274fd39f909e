/** The part of rbush 4 (untyped) the tests and the benchmark use. */
declare module 'rbush' {
  export interface BBox {
    minX: number;
    minY: number;
    maxX: number;
    maxY: number;
  }
  export default class RBush<T extends BBox = BBox> {
    constructor(maxEntries?: number);
    load(items: readonly T[]): this;
    insert(item: T): this;
    remove(item: T, equals?: (a: T, b: T) => boolean): this;
    search(box: BBox): T[];
    all(): T[];
  }
}
