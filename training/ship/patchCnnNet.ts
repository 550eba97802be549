/**
 * A tiny CNN written out in Float32Array loops (issue 23 §1 experiment, training/ship/patchCnn.ts):
 * forward with the activations kept, backward, Adam. No library: the pure-JS backends of the
 * npm CNN libraries are no faster than these loops on a CPU, and the forward pass has to be
 * plain TS anyway for src/.
 *
 * Layout: one input channel of S × S (S = PATCH), then for each conv layer a 3 × 3 'same'
 * convolution + bias, ReLU and a 2 × 2 max-pool; the last pooled map (CHW order) goes into one
 * dense unit, the logit. Weights: conv [cout][cin][3][3], dense [C·s·s].
 */
import { mulberry32 } from '../../src/prng.ts';

export const PATCH = 32;

export interface CnnWeights {
  /** Channels of each conv layer. */
  channels: number[];
  size: number;
  conv: Array<{ w: Float32Array; b: Float32Array }>;
  dense: { w: Float32Array; b: Float32Array };
}

export function initCnn(channels: number[], size = PATCH, seed = 23): CnnWeights {
  const rand = mulberry32(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(rand() + 1e-12)) * Math.cos(2 * Math.PI * rand());
  const conv: CnnWeights['conv'] = [];
  let cin = 1;
  let s = size;
  for (const cout of channels) {
    const w = new Float32Array(cout * cin * 9);
    const sd = Math.sqrt(2 / (cin * 9));
    for (let i = 0; i < w.length; i++) w[i] = gauss() * sd;
    conv.push({ w, b: new Float32Array(cout) });
    cin = cout;
    s = s >> 1;
  }
  const n = cin * s * s;
  const w = new Float32Array(n);
  for (let i = 0; i < n; i++) w[i] = gauss() * Math.sqrt(1 / n);
  return { channels, size, conv, dense: { w, b: new Float32Array(1) } };
}

/** Multiply-accumulates of one forward pass. */
export function forwardMacs(net: CnnWeights): number {
  let cin = 1;
  let s = net.size;
  let macs = 0;
  for (const cout of net.channels) {
    macs += cout * cin * 9 * s * s;
    cin = cout;
    s >>= 1;
  }
  return macs + net.dense.w.length;
}

/** im2col of x (cin × s × s) for a 3 × 3 'same' convolution: cols[p·K + ci·9 + ky·3 + kx], K = 9·cin, 0 outside. */
function im2col(x: Float32Array, cin: number, s: number, cols: Float32Array): void {
  const K = cin * 9;
  cols.fill(0);
  for (let r = 0; r < s; r++)
    for (let c = 0; c < s; c++) {
      const po = (r * s + c) * K;
      for (let ky = 0; ky < 3; ky++) {
        const rr = r + ky - 1;
        if (rr < 0 || rr >= s) continue;
        for (let kx = 0; kx < 3; kx++) {
          const cc = c + kx - 1;
          if (cc < 0 || cc >= s) continue;
          const xi = rr * s + cc;
          const k = ky * 3 + kx;
          for (let ci = 0; ci < cin; ci++) cols[po + ci * 9 + k] = x[ci * s * s + xi]!;
        }
      }
    }
}

/** y[co][p] = b[co] + W[co] · cols[p]. */
function convCols(cols: Float32Array, K: number, ss: number, w: Float32Array, b: Float32Array, cout: number, y: Float32Array): void {
  for (let p = 0; p < ss; p++) {
    const po = p * K;
    for (let co = 0; co < cout; co++) {
      const wo = co * K;
      let z = b[co]!;
      for (let k = 0; k < K; k++) z += w[wo + k]! * cols[po + k]!;
      y[co * ss + p] = z;
    }
  }
}

export interface Activations {
  /** Per layer: conv input, pre-pool ReLU output, pooled output, argmax of the pool. */
  layers: Array<{ x: Float32Array; cols: Float32Array; relu: Float32Array; pool: Float32Array; arg: Int32Array }>;
  logit: number;
}

export function allocActivations(net: CnnWeights): Activations {
  let cin = 1;
  let s = net.size;
  const layers: Activations['layers'] = [];
  let x = new Float32Array(s * s);
  for (const cout of net.channels) {
    const relu = new Float32Array(cout * s * s);
    const h = s >> 1;
    const pool = new Float32Array(cout * h * h);
    layers.push({ x, cols: new Float32Array(s * s * cin * 9), relu, pool, arg: new Int32Array(cout * h * h) });
    x = pool;
    cin = cout;
    s = h;
  }
  void cin;
  return { layers, logit: 0 };
}

/** Forward pass of `input` (S × S) into `a`; returns the logit. */
export function forward(net: CnnWeights, input: Float32Array, a: Activations): number {
  a.layers[0]!.x.set(input);
  let cin = 1;
  let s = net.size;
  for (let l = 0; l < net.channels.length; l++) {
    const cout = net.channels[l]!;
    const L = a.layers[l]!;
    im2col(L.x, cin, s, L.cols);
    convCols(L.cols, cin * 9, s * s, net.conv[l]!.w, net.conv[l]!.b, cout, L.relu);
    for (let i = 0; i < L.relu.length; i++) if (L.relu[i]! < 0) L.relu[i] = 0;
    const h = s >> 1;
    for (let c = 0; c < cout; c++)
      for (let r = 0; r < h; r++)
        for (let q = 0; q < h; q++) {
          const i0 = c * s * s + 2 * r * s + 2 * q;
          let best = i0;
          if (L.relu[i0 + 1]! > L.relu[best]!) best = i0 + 1;
          if (L.relu[i0 + s]! > L.relu[best]!) best = i0 + s;
          if (L.relu[i0 + s + 1]! > L.relu[best]!) best = i0 + s + 1;
          const o = c * h * h + r * h + q;
          L.pool[o] = L.relu[best]!;
          L.arg[o] = best;
        }
    cin = cout;
    s = h;
  }
  const last = a.layers[a.layers.length - 1]!.pool;
  let z = net.dense.b[0]!;
  for (let i = 0; i < last.length; i++) z += net.dense.w[i]! * last[i]!;
  a.logit = z;
  return z;
}

export function zeroGrads(net: CnnWeights): CnnWeights {
  return {
    channels: net.channels,
    size: net.size,
    conv: net.conv.map((c) => ({ w: new Float32Array(c.w.length), b: new Float32Array(c.b.length) })),
    dense: { w: new Float32Array(net.dense.w.length), b: new Float32Array(1) },
  };
}

/** Accumulates into `g` the gradient of the loss with dLoss/dlogit = `dz`, after forward(net, ·, a). */
export function backward(net: CnnWeights, a: Activations, dz: number, g: CnnWeights, scratch: { d: Float32Array[] }): void {
  const nl = net.channels.length;
  const last = a.layers[nl - 1]!.pool;
  g.dense.b[0]! += dz;
  if (scratch.d.length === 0) {
    for (const L of a.layers) scratch.d.push(new Float32Array(L.relu.length), new Float32Array(L.x.length));
    for (const L of a.layers) scratch.d.push(new Float32Array(0), new Float32Array(L.cols.length));
  }
  // dPool of the last layer.
  let dPool: Float32Array = new Float32Array(last.length);
  for (let i = 0; i < last.length; i++) {
    g.dense.w[i]! += dz * last[i]!;
    dPool[i] = dz * net.dense.w[i]!;
  }
  let s = net.size >> (nl - 1);
  for (let l = nl - 1; l >= 0; l--) {
    const L = a.layers[l]!;
    const cout = net.channels[l]!;
    const cin = l === 0 ? 1 : net.channels[l - 1]!;
    const dRelu = scratch.d[2 * l]!;
    dRelu.fill(0);
    for (let o = 0; o < dPool.length; o++) {
      const i = L.arg[o]!;
      if (L.relu[i]! > 0) dRelu[i] = dPool[o]!;
    }
    const ss = s * s;
    const K = cin * 9;
    const { w } = net.conv[l]!;
    const gw = g.conv[l]!.w;
    const gb = g.conv[l]!.b;
    const dx = scratch.d[2 * l + 1]!;
    const needDx = l > 0;
    const dCols = needDx ? scratch.d[2 * l + 1 + 2 * nl]! : dx;
    if (needDx) dCols.fill(0);
    // Only the pool's argmax pixels carry a gradient (≤ 1 in 4): sparse updates.
    for (let co = 0; co < cout; co++) {
      const wo = co * K;
      for (let p = 0; p < ss; p++) {
        const d = dRelu[co * ss + p]!;
        if (d === 0) continue;
        gb[co]! += d;
        const po = p * K;
        for (let k = 0; k < K; k++) gw[wo + k]! += d * L.cols[po + k]!;
        if (needDx) for (let k = 0; k < K; k++) dCols[po + k]! += d * w[wo + k]!;
      }
    }
    if (needDx) {
      // col2im.
      dx.fill(0);
      for (let r = 0; r < s; r++)
        for (let c = 0; c < s; c++) {
          const po = (r * s + c) * K;
          for (let ky = 0; ky < 3; ky++) {
            const rr = r + ky - 1;
            if (rr < 0 || rr >= s) continue;
            for (let kx = 0; kx < 3; kx++) {
              const cc = c + kx - 1;
              if (cc < 0 || cc >= s) continue;
              const xi = rr * s + cc;
              const k = ky * 3 + kx;
              for (let ci = 0; ci < cin; ci++) dx[ci * ss + xi]! += dCols[po + ci * 9 + k]!;
            }
          }
        }
    }
    if (l > 0) {
      dPool = dx;
      s <<= 1;
    }
  }
}

/** Adam over every weight array, gradients averaged over `batch`, L2 weight decay on conv/dense weights. */
export class Adam {
  private m: Float32Array[];
  private v: Float32Array[];
  private t = 0;
  constructor(
    net: CnnWeights,
    public lr = 1e-3,
    private decay = 1e-4,
  ) {
    const arrs = params(net);
    this.m = arrs.map((a) => new Float32Array(a.length));
    this.v = arrs.map((a) => new Float32Array(a.length));
  }
  step(net: CnnWeights, g: CnnWeights, batch: number): void {
    this.t++;
    const b1 = 0.9;
    const b2 = 0.999;
    const c1 = 1 - b1 ** this.t;
    const c2 = 1 - b2 ** this.t;
    const P = params(net);
    const G = params(g);
    P.forEach((p, k) => {
      const gk = G[k]!;
      const m = this.m[k]!;
      const v = this.v[k]!;
      const isWeight = k % 2 === 0;
      for (let i = 0; i < p.length; i++) {
        const gi = gk[i]! / batch + (isWeight ? this.decay * p[i]! : 0);
        m[i] = b1 * m[i]! + (1 - b1) * gi;
        v[i] = b2 * v[i]! + (1 - b2) * gi * gi;
        p[i]! -= (this.lr * (m[i]! / c1)) / (Math.sqrt(v[i]! / c2) + 1e-8);
      }
      gk.fill(0);
    });
  }
}

/** Weight arrays in a fixed order: conv w, b per layer, then dense w, b (weights at even indices). */
function params(net: CnnWeights): Float32Array[] {
  return [...net.conv.flatMap((c) => [c.w, c.b]), net.dense.w, net.dense.b];
}

export function toJson(net: CnnWeights): { channels: number[]; size: number; conv: Array<{ w: number[]; b: number[] }>; dense: { w: number[]; b: number[] } } {
  const r = (a: Float32Array) => Array.from(a, (v) => Number(v.toPrecision(6)));
  return { channels: net.channels, size: net.size, conv: net.conv.map((c) => ({ w: r(c.w), b: r(c.b) })), dense: { w: r(net.dense.w), b: r(net.dense.b) } };
}
