// Named typed arrays reused across calls (one set per thread): tile-sized working rasters that
// would otherwise be allocated, page-faulted, zeroed and collected for every tile. A buffer's
// content is unspecified when handed out; the caller writes every element it reads.

/** The typed arrays a Scratch hands out. */
export type ScratchArray = Float64Array | Float32Array | Int32Array | Uint8Array;

type ScratchCtor<T extends ScratchArray> = { new (n: number): T; readonly BYTES_PER_ELEMENT: number };

export class Scratch {
  private readonly buffers = new Map<string, ScratchArray>();

  /** A named reusable array of `ctor`'s type and exactly n elements (content unspecified). */
  array<T extends ScratchArray>(name: string, ctor: ScratchCtor<T>, n: number): T {
    let b = this.buffers.get(name);
    if (!(b instanceof ctor) || b.length < n) {
      b = new ctor(n);
      this.buffers.set(name, b);
    }
    return (b.length === n ? b : b.subarray(0, n)) as T;
  }
}
