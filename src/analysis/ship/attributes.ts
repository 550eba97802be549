// Per-vessel attributes from a detection's pixel blob: length, width and image axis from the
// σ0-weighted second moments of the pixels clearly above the sea, corrected for the radar's
// blur by a linear fit to AIS (OpenSARShip, cross-validated by scene; docs/ship.md). Pure, on
// typed arrays: it runs inside the tile function (worker thread). Imports nothing.

export interface VesselShape {
  /** Raw weighted extents (m): √12 · standard deviation along and across the axis. */
  rawLengthM: number;
  rawWidthM: number;
  /** Axis in the image, degrees from the azimuth (row) axis towards range, [0, 180). */
  axisDeg: number;
  /** Ratio of the axis variances (≥ 1); near 1 the axis is not settled. */
  elongation: number;
}

/**
 * Weighted moments over the blob's pixels whose σ0 exceeds `background` by `minContrastDb`
 * (the ship's body, not its skirt of blur and speckle), weight σ0 − background.
 * `pixels` are tile-local linear indices; `values` the tile's σ0 of the channel.
 */
export function vesselShape(
  pixels: ArrayLike<number>,
  values: Float32Array,
  width: number,
  spacing: { range: number; azimuth: number },
  background: number,
  minContrastDb = 10,
): VesselShape {
  const level = background * 10 ** (minContrastDb / 10);
  let sw = 0;
  let sx = 0;
  let sy = 0;
  let sxx = 0;
  let syy = 0;
  let sxy = 0;
  const accumulate = (threshold: number): void => {
    sw = sx = sy = sxx = syy = sxy = 0;
    for (let k = 0; k < pixels.length; k++) {
      const p = pixels[k]!;
      const v = values[p]!;
      if (!(v > threshold)) continue;
      const wgt = v - background;
      const row = (p / width) | 0;
      const x = (p - row * width) * spacing.range;
      const y = row * spacing.azimuth;
      sw += wgt;
      sx += wgt * x;
      sy += wgt * y;
      sxx += wgt * x * x;
      syy += wgt * y * y;
      sxy += wgt * x * y;
    }
  };
  accumulate(level);
  // A faint vessel with no pixel that far above the sea: use every blob pixel above it.
  if (sw <= 0) accumulate(background);
  if (sw <= 0) return { rawLengthM: 0, rawWidthM: 0, axisDeg: 0, elongation: 1 };
  const mx = sx / sw;
  const my = sy / sw;
  const cxx = Math.max(0, sxx / sw - mx * mx);
  const cyy = Math.max(0, syy / sw - my * my);
  const cxy = sxy / sw - mx * my;
  const half = (cxx + cyy) / 2;
  const root = Math.sqrt(((cxx - cyy) / 2) ** 2 + cxy * cxy);
  const l1 = half + root;
  const l2 = Math.max(0, half - root);
  const theta = 0.5 * Math.atan2(2 * cxy, cxx - cyy); // from the range (x) axis towards azimuth
  let axisDeg = 90 - (theta * 180) / Math.PI;
  axisDeg = ((axisDeg % 180) + 180) % 180;
  return { rawLengthM: Math.sqrt(12 * l1), rawWidthM: Math.sqrt(12 * l2), axisDeg, elongation: l2 > 0 ? l1 / l2 : Infinity };
}

/**
 * The fitted correction (docs/ship.md, "Attributes"; fitted by eval/shipChips.ts `fitAttributeModel`
 * on all four OpenSARShip scenes, least absolute deviations; its scene-held-out error is what
 * docs/ship.md quotes): length = a + b·(blob length) + c·(body length), width the same form.
 * The body is the σ0-weighted moments of the pixels ≥ 10 dB above the sea; the blob length is
 * the detector's extent along the axis (cluster.ts). At S-1's ~20 m resolution a hull's width
 * is below the blur, so the width comes out as the hull proportions of the lengths.
 */
export const ATTRIBUTE_MODEL: Readonly<AttributeModel> = {
  minContrastDb: 10,
  length: [16.46, 0.2876, 0.5126],
  width: [2.309, 0.06, 0.0548],
};

export interface AttributeModel {
  minContrastDb: number;
  /** [a, b, c]: a + b · blob length + c · body length (m). */
  length: [number, number, number];
  width: [number, number, number];
}

export interface VesselAttributes {
  lengthM: number;
  widthM: number;
  /** Image axis, degrees from the azimuth (row) axis towards range, [0, 180). */
  axisDeg: number;
  /** The model's inputs (m): the blob's extent along its axis and the body's weighted length. */
  blobLengthM: number;
  bodyLengthM: number;
}

export function vesselAttributes(blobLengthM: number, shape: VesselShape, model: AttributeModel = ATTRIBUTE_MODEL): VesselAttributes {
  const lin = (k: [number, number, number]) => Math.max(0, k[0] + k[1] * blobLengthM + k[2] * shape.rawLengthM);
  return { lengthM: lin(model.length), widthM: lin(model.width), axisDeg: shape.axisDeg, blobLengthM, bodyLengthM: shape.rawLengthM };
}
