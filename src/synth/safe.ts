/**
 * Synthetic Sentinel-1 IW GRDH products in the SAFE format: the product folder with
 * manifest.safe, per-polarisation annotation, calibration and noise XML and UInt16
 * measurement TIFFs, plus `<product>.truth.geojson` beside it. What is written is what
 * src/imagery reads back: DN² = (σ0·A² + η)·S, with A the σ0 calibration LUT, η the noise
 * LUT (both interpolated exactly as the reader interpolates them) and S speckle of
 * `looks` equivalent looks — the inverse of σ0 = (DN² − η)/A².
 *
 * `writeSafeSlcMetadata` writes an annotation-only SLC product (no pixels): the catalog
 * indexes it as productType SLC, and the GRD reader refuses it.
 */
import { createHash } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Position } from '../geo/types.ts';
import { LutRowInterpolator } from '../imagery/index.ts';
import { GrdGeometry } from './geometry.ts';
import {
  absoluteOrbitAt,
  addSeconds,
  anxTime,
  compactUtc,
  dataTakeId,
  relativeOrbit,
  safeTime,
  EARTH_RADIUS_M,
  ORBIT_ALTITUDE_M,
  RADAR_FREQUENCY_HZ,
  type PassDirection,
  type SynthMission,
} from './orbit.ts';
import { hashSeed, Random, SpeckleSampler } from './random.ts';
import {
  GrdScene,
  IW_GRDH_ENL,
  neszDb,
  platformStateAt,
  subSwathAt,
  subSwathBounds,
  subSwathPrf,
  type GrdSceneSpec,
  type Polarisation,
  type SubSwath,
} from './scene.ts';
import { TiffWriter, type TiffGcp } from './tiff.ts';
import { writeTruth } from './truth.ts';

/** Azimuth time between GRDH lines (s): 10 m at the ground speed of the zero-Doppler line. */
export const GRDH_AZIMUTH_TIME_INTERVAL = 1.498521330831371e-3;
/** β0 calibration constant of IPF ≥ 2.9 IW GRD products (the real LUTs hold 474 throughout). */
export const BETA_NOUGHT_LUT = 474;
/** IPF version written to the manifest: ≥ 2.9, so the noise LUT has azimuth vectors. */
const IPF_VERSION = '003.71';
/** Calibration and noise vectors every ~1 s of azimuth time, every 40 pixels, as in real products. */
const LUT_LINE_STEP = 667;
const LUT_PIXEL_STEP = 40;
/** Lines of one IW burst (2.758 s) in GRD time: the period of the azimuth noise scalloping. */
const BURST_LINES = 2.758273 / GRDH_AZIMUTH_TIME_INTERVAL;

export interface SafeGrdSpec extends GrdSceneSpec {
  /** Default 'S1A'. */
  mission?: SynthMission;
  /** Zero-Doppler time of the first line (ISO 8601 UTC or Date). */
  start: string | Date;
  /** Scene centre (lon, lat). */
  center: Position;
  /** Full-image size in pixels; default 4000 × 3000. A real IW GRDH scene is ~25,000 × 16,700. */
  width?: number;
  height?: number;
  /** Default 'ascending'. */
  passDirection?: PassDirection;
  /** Incidence at pixel 0 (degrees); default 30.14, the near edge of IW1. */
  nearIncidenceDeg?: number;
  /** Default ['VV', 'VH'] (1SDV); ['VV'] gives 1SSV. */
  pols?: Polarisation[];
  /** Equivalent number of looks of the speckle; default 4.4 (IW GRDH). */
  looks?: number;
  /** Noise-equivalent σ0: the real scalloped sub-swath pattern (default) or a flat level in dB. */
  nesz?: 'sentinel1' | number;
  /** Rows per TIFF strip; default 1, as ESA writes measurements. */
  rowsPerStrip?: number;
  /**
   * Write only this window of the full image, with a pixel geotransform carrying the offset
   * (as GDAL crops, like the North-Sea sample); the annotation still describes the full image.
   */
  crop?: { x0: number; y0: number; width: number; height: number };
  /** 4 hex digits; default derived from the seed. */
  productUid?: string;
  /** Default 'Fast-24h'. */
  timeliness?: string;
  /**
   * Paints on the rendered σ0 (linear, before speckle and noise) of rows y0 … y0+rows−1,
   * columns x0 … x0+width−1, row-major with stride `width` (src/synth/grdCity.ts: buildings).
   */
  overlay?: (geometry: GrdGeometry, y0: number, rows: number, x0: number, width: number, vv: Float32Array | null, vh: Float32Array | null) => void;
}

export interface WriteSafeResult {
  productPath: string;
  groundTruthPath: string;
  productId: string;
}

// ------------------------------------------------------------------ formatting

/** `6.647480e+02`: six decimals, two-digit exponent, as ESA writes LUT values. */
export function sci(v: number): string {
  const s = v.toExponential(6);
  return s.replace(/e([+-])(\d)$/, 'e$10$2');
}

function xmlEscape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function md5(text: string | Buffer): string {
  return createHash('md5').update(text).digest('hex');
}

const pad = (n: number, w: number) => String(n).padStart(w, '0');

// ------------------------------------------------------------------ identity

export interface ProductIdentity {
  mission: SynthMission;
  productType: 'GRD' | 'SLC';
  pols: Polarisation[];
  start: Date;
  stop: Date;
  absoluteOrbit: number;
  relativeOrbit: number;
  anx: Date;
  dataTake: number;
  uid: string;
  passDirection: PassDirection;
  timeliness: string;
}

function identity(
  mission: SynthMission,
  productType: 'GRD' | 'SLC',
  pols: Polarisation[],
  start: Date,
  stop: Date,
  passDirection: PassDirection,
  seed: number,
  uid: string | undefined,
  timeliness: string,
): ProductIdentity {
  const absoluteOrbit = absoluteOrbitAt(mission, start);
  return {
    mission,
    productType,
    pols,
    start,
    stop,
    absoluteOrbit,
    relativeOrbit: relativeOrbit(mission, absoluteOrbit),
    anx: anxTime(mission, absoluteOrbit),
    dataTake: dataTakeId(mission, absoluteOrbit),
    uid: (uid ?? (hashSeed(seed, productType, start.getTime()) & 0xffff).toString(16)).toUpperCase().padStart(4, '0'),
    passDirection,
    timeliness,
  };
}

function polarisationCode(pols: Polarisation[]): string {
  if (pols.includes('VV') && pols.includes('VH')) return 'DV';
  if (pols.length === 1 && pols[0] === 'VV') return 'SV';
  throw new RangeError(`unsupported polarisations ${pols.join('+')}: use ['VV', 'VH'] or ['VV']`);
}

/** `S1A_IW_GRDH_1SDV_<start>_<stop>_<orbit>_<datatake>_<uid>`. */
export function productName(id: ProductIdentity): string {
  const type = id.productType === 'GRD' ? 'GRDH' : 'SLC_';
  return [
    id.mission,
    'IW',
    type,
    `1S${polarisationCode(id.pols)}`,
    compactUtc(id.start),
    compactUtc(id.stop),
    pad(id.absoluteOrbit, 6),
    id.dataTake.toString(16).toUpperCase().padStart(6, '0'),
    id.uid,
  ].join('_');
}

/** `s1a-iw-grd-vv-20240613t173329-20240613t173354-054308-06a1b2-001`. */
function memberStem(id: ProductIdentity, swath: string, pol: Polarisation, imageNumber: number): string {
  return [
    id.mission.toLowerCase(),
    swath.toLowerCase(),
    id.productType.toLowerCase(),
    pol.toLowerCase(),
    compactUtc(id.start).toLowerCase(),
    compactUtc(id.stop).toLowerCase(),
    pad(id.absoluteOrbit, 6),
    id.dataTake.toString(16).padStart(6, '0'),
    pad(imageNumber, 3),
  ].join('-');
}

function adsHeader(id: ProductIdentity, swath: string, pol: Polarisation, imageNumber: number): string {
  return `  <adsHeader>
    <missionId>${id.mission}</missionId>
    <productType>${id.productType}</productType>
    <polarisation>${pol}</polarisation>
    <mode>IW</mode>
    <swath>${swath}</swath>
    <startTime>${safeTime(id.start)}</startTime>
    <stopTime>${safeTime(id.stop)}</stopTime>
    <absoluteOrbitNumber>${id.absoluteOrbit}</absoluteOrbitNumber>
    <missionDataTakeId>${id.dataTake}</missionDataTakeId>
    <imageNumber>${pad(imageNumber, 3)}</imageNumber>
  </adsHeader>`;
}

// ------------------------------------------------------------------ manifest

interface ManifestFile {
  /** Path relative to the SAFE root. */
  href: string;
  /** dataObject ID. */
  objectId: string;
  repId: string;
  mimeType: string;
  size: number;
  md5: string;
  /** 'Metadata Unit' or 'Measurement Data Unit'. */
  unitType: 'Metadata Unit' | 'Measurement Data Unit';
  /** For measurements: the metadata objects that annotate them. */
  annotatedBy?: string[];
}

function manifestXml(id: ProductIdentity, footprint: Position[], files: ManifestFile[], sliceNumber: number): string {
  const productLabel = id.productType === 'GRD' ? 'GRD' : 'SLC';
  const version = id.productType === 'GRD' ? 'level-1/grd/standard/iwdp' : 'level-1/slc/standard/iwdp';
  const units = files
    .map((f) => {
      const dmd = f.annotatedBy ? ` dmdID="${f.annotatedBy.map((a) => `${a}Annotation`).join(' ')} "` : '';
      return `      <xfdu:contentUnit unitType="${f.unitType}" repID="${f.repId}"${dmd}>
        <dataObjectPointer dataObjectID="${f.objectId}"/>
      </xfdu:contentUnit>`;
    })
    .join('\n');
  const annotations = files
    .filter((f) => f.unitType === 'Metadata Unit')
    .map(
      (f) => `    <metadataObject ID="${f.objectId}Annotation" classification="DESCRIPTION" category="DMD">
      <dataObjectPointer dataObjectID="${f.objectId}"/>
    </metadataObject>`,
    )
    .join('\n');
  const objects = files
    .map(
      (f) => `    <dataObject ID="${f.objectId}" repID="${f.repId}">
      <byteStream mimeType="${f.mimeType}" size="${f.size}">
        <fileLocation locatorType="URL" href="./${f.href}"/>
        <checksum checksumName="MD5">${f.md5}</checksum>
      </byteStream>
    </dataObject>`,
    )
    .join('\n');
  const coordinates = footprint.map(([lon, lat]) => `${lat.toFixed(6)},${lon.toFixed(6)}`).join(' ');
  const startAnxMs = id.start.getTime() - id.anx.getTime();
  const stopAnxMs = id.stop.getTime() - id.anx.getTime();
  const cycle = 263 + Math.floor((id.absoluteOrbit - 43633 + 87) / 175);
  const processingStart = addSeconds(id.start, 2400);
  return `<?xml version="1.0" encoding="UTF-8"?>
<xfdu:XFDU xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:gml="http://www.opengis.net/gml" xmlns:xfdu="urn:ccsds:schema:xfdu:1" xmlns:safe="http://www.esa.int/safe/sentinel-1.0" xmlns:s1="http://www.esa.int/safe/sentinel-1.0/sentinel-1" xmlns:s1sar="http://www.esa.int/safe/sentinel-1.0/sentinel-1/sar" xmlns:s1sarl1="http://www.esa.int/safe/sentinel-1.0/sentinel-1/sar/level-1" xmlns:s1sarl2="http://www.esa.int/safe/sentinel-1.0/sentinel-1/sar/level-2" xmlns:gx="http://www.google.com/kml/ext/2.2" version="esa/safe/sentinel-1.0/sentinel-1/sar/${version}">
  <informationPackageMap>
    <xfdu:contentUnit unitType="SAFE Archive Information Package" textInfo="Sentinel-1 IW Level-1 ${productLabel} Product" dmdID="acquisitionPeriod platform generalProductInformation measurementOrbitReference measurementFrameSet" pdiID="processing">
${units}
    </xfdu:contentUnit>
  </informationPackageMap>
  <metadataSection>
${annotations}
    <metadataObject ID="processing" classification="PROVENANCE" category="PDI">
      <metadataWrap mimeType="text/xml" vocabularyName="SAFE" textInfo="Processing">
        <xmlData>
          <safe:processing name="${productLabel === 'GRD' ? 'GRD Post Processing' : 'SLC Processing'}" start="${safeTime(processingStart)}" stop="${safeTime(addSeconds(processingStart, 600))}">
            <safe:facility country="None" name="sarwatch" organisation="sarwatch" site="synthetic">
              <safe:software name="Sentinel-1 IPF" version="${IPF_VERSION}"/>
            </safe:facility>
            <safe:resource name="sarwatch synthetic product: simulated data, not an ESA product" role="Synthetic Data Generator"/>
          </safe:processing>
        </xmlData>
      </metadataWrap>
    </metadataObject>
    <metadataObject ID="platform" classification="DESCRIPTION" category="DMD">
      <metadataWrap mimeType="text/xml" vocabularyName="SAFE" textInfo="Platform Description">
        <xmlData>
          <safe:platform>
            <safe:nssdcIdentifier>${id.mission === 'S1A' ? '2014-016A' : '2016-025A'}</safe:nssdcIdentifier>
            <safe:familyName>SENTINEL-1</safe:familyName>
            <safe:number>${id.mission.slice(2)}</safe:number>
            <safe:instrument>
              <safe:familyName abbreviation="SAR">Synthetic Aperture Radar</safe:familyName>
              <safe:extension>
                <s1sarl1:instrumentMode>
                  <s1sarl1:mode>IW</s1sarl1:mode>
${(id.productType === 'GRD' ? ['IW'] : ['IW1', 'IW2', 'IW3']).map((s) => `                  <s1sarl1:swath>${s}</s1sarl1:swath>`).join('\n')}
                </s1sarl1:instrumentMode>
              </safe:extension>
            </safe:instrument>
          </safe:platform>
        </xmlData>
      </metadataWrap>
    </metadataObject>
    <metadataObject ID="measurementOrbitReference" classification="DESCRIPTION" category="DMD">
      <metadataWrap mimeType="text/xml" vocabularyName="SAFE" textInfo="Orbit Reference">
        <xmlData>
          <safe:orbitReference>
            <safe:orbitNumber type="start">${id.absoluteOrbit}</safe:orbitNumber>
            <safe:orbitNumber type="stop">${id.absoluteOrbit}</safe:orbitNumber>
            <safe:relativeOrbitNumber type="start">${id.relativeOrbit}</safe:relativeOrbitNumber>
            <safe:relativeOrbitNumber type="stop">${id.relativeOrbit}</safe:relativeOrbitNumber>
            <safe:cycleNumber>${cycle}</safe:cycleNumber>
            <safe:phaseIdentifier>1</safe:phaseIdentifier>
            <safe:extension>
              <s1:orbitProperties>
                <s1:pass>${id.passDirection.toUpperCase()}</s1:pass>
                <s1:ascendingNodeTime>${safeTime(id.anx)}</s1:ascendingNodeTime>
              </s1:orbitProperties>
            </safe:extension>
          </safe:orbitReference>
        </xmlData>
      </metadataWrap>
    </metadataObject>
    <metadataObject ID="generalProductInformation" classification="DESCRIPTION" category="DMD">
      <metadataWrap mimeType="text/xml" vocabularyName="SAFE" textInfo="General Product Information">
        <xmlData>
          <s1sarl1:standAloneProductInformation>
            <s1sarl1:instrumentConfigurationID>7</s1sarl1:instrumentConfigurationID>
            <s1sarl1:missionDataTakeID>${id.dataTake}</s1sarl1:missionDataTakeID>
${id.pols.map((p) => `            <s1sarl1:transmitterReceiverPolarisation>${p}</s1sarl1:transmitterReceiverPolarisation>`).join('\n')}
            <s1sarl1:productClass>S</s1sarl1:productClass>
            <s1sarl1:productClassDescription>SAR Standard L1 Product</s1sarl1:productClassDescription>
            <s1sarl1:productComposition>Slice</s1sarl1:productComposition>
            <s1sarl1:productType>${id.productType}</s1sarl1:productType>
            <s1sarl1:productTimelinessCategory>${xmlEscape(id.timeliness)}</s1sarl1:productTimelinessCategory>
            <s1sarl1:sliceProductFlag>true</s1sarl1:sliceProductFlag>
            <s1sarl1:segmentStartTime>${safeTime(addSeconds(id.start, -25 * (sliceNumber - 1)))}</s1sarl1:segmentStartTime>
            <s1sarl1:sliceNumber>${sliceNumber}</s1sarl1:sliceNumber>
            <s1sarl1:totalSlices>${sliceNumber + 8}</s1sarl1:totalSlices>
          </s1sarl1:standAloneProductInformation>
        </xmlData>
      </metadataWrap>
    </metadataObject>
    <metadataObject ID="acquisitionPeriod" classification="DESCRIPTION" category="DMD">
      <metadataWrap mimeType="text/xml" vocabularyName="SAFE" textInfo="Acquisition Period">
        <xmlData>
          <safe:acquisitionPeriod>
            <safe:startTime>${safeTime(id.start)}</safe:startTime>
            <safe:stopTime>${safeTime(id.stop)}</safe:stopTime>
            <safe:extension>
              <s1:timeANX>
                <s1:startTimeANX>${sci(startAnxMs)}</s1:startTimeANX>
                <s1:stopTimeANX>${sci(stopAnxMs)}</s1:stopTimeANX>
              </s1:timeANX>
            </safe:extension>
          </safe:acquisitionPeriod>
        </xmlData>
      </metadataWrap>
    </metadataObject>
    <metadataObject ID="measurementFrameSet" classification="DESCRIPTION" category="DMD">
      <metadataWrap mimeType="text/xml" vocabularyName="SAFE" textInfo="Frame Set">
        <xmlData>
          <safe:frameSet>
            <safe:frame>
              <safe:footPrint srsName="http://www.opengis.net/gml/srs/epsg.xml#4326">
                <gml:coordinates>${coordinates}</gml:coordinates>
              </safe:footPrint>
            </safe:frame>
          </safe:frameSet>
        </xmlData>
      </metadataWrap>
    </metadataObject>
    <metadataObject ID="s1Level1ProductSchema" classification="SYNTAX" category="REP">
      <metadataReference mimeType="text/xml" vocabularyName="XML Schema" locatorType="URL" href="./support/s1-level-1-product.xsd"/>
    </metadataObject>
    <metadataObject ID="s1Level1NoiseSchema" classification="SYNTAX" category="REP">
      <metadataReference mimeType="text/xml" vocabularyName="XML Schema" locatorType="URL" href="./support/s1-level-1-noise.xsd"/>
    </metadataObject>
    <metadataObject ID="s1Level1CalibrationSchema" classification="SYNTAX" category="REP">
      <metadataReference mimeType="text/xml" vocabularyName="XML Schema" locatorType="URL" href="./support/s1-level-1-calibration.xsd"/>
    </metadataObject>
    <metadataObject ID="s1Level1MeasurementSchema" classification="SYNTAX" category="REP">
      <metadataReference mimeType="text/xml" vocabularyName="SDF" locatorType="URL" href="./support/s1-level-1-measurement.xsd"/>
    </metadataObject>
  </metadataSection>
  <dataObjectSection>
${objects}
  </dataObjectSection>
</xfdu:XFDU>
`;
}

function objectId(kind: string, stem: string): string {
  return `${kind}${stem.replace(/-/g, '')}`;
}

// ------------------------------------------------------------------ LUTs

interface LutSet {
  lines: number[];
  pixels: number[];
  /** Per vector (same for every line: the LUTs depend on range only), formatted as written. */
  sigma: string[];
  beta: string[];
  gamma: string[];
  dn: string[];
  noise: string[];
  /** Azimuth noise blocks: one per sub-swath present. */
  blocks: { swath: SubSwath; firstPixel: number; lastPixel: number; lines: number[]; values: string[] }[];
}

function buildLuts(g: GrdGeometry, nesz: 'sentinel1' | number, seed: number): LutSet {
  const lines: number[] = [];
  for (let l = 0; ; l += LUT_LINE_STEP) {
    lines.push(l);
    if (l >= g.height - 1) break;
  }
  const pixels: number[] = [];
  for (let p = 0; p < g.width; p += LUT_PIXEL_STEP) pixels.push(p);
  if (pixels[pixels.length - 1] !== g.width - 1) pixels.push(g.width - 1);
  const sigma: string[] = [];
  const beta: string[] = [];
  const gamma: string[] = [];
  const dn: string[] = [];
  const noise: string[] = [];
  for (const p of pixels) {
    const theta = (g.incidenceAngle(p) * Math.PI) / 180;
    // σ0 = β0·sin θ and γ0 = σ0 / cos θ, so A_σ = A_β / √sin θ and A_γ = A_σ·√cos θ.
    const aSigma = BETA_NOUGHT_LUT / Math.sqrt(Math.sin(theta));
    sigma.push(sci(aSigma));
    beta.push(sci(BETA_NOUGHT_LUT));
    gamma.push(sci(aSigma * Math.sqrt(Math.cos(theta))));
    dn.push(sci(BETA_NOUGHT_LUT));
    // η (DN²) = NESZ · A_σ²: the noise power that calibrates to the noise-equivalent σ0.
    noise.push(sci(Math.pow(10, neszDb(g.incidenceAngle(p), nesz) / 10) * aSigma * aSigma));
  }
  // Azimuth scalloping: the antenna's azimuth pattern over each burst, a few per cent.
  const rng = new Random(seed, 'noise-azimuth');
  const blocks: LutSet['blocks'] = [];
  let first = 0;
  for (let p = 1; p <= g.width; p++) {
    const swath = subSwathAt(g.incidenceAngle(first));
    if (p < g.width && subSwathAt(g.incidenceAngle(p)) === swath) continue;
    const blockLines: number[] = [];
    for (let l = 0; l < g.height - 1; l += 10) blockLines.push(l);
    blockLines.push(g.height - 1);
    const phase = rng.range(0, BURST_LINES);
    const depth = rng.range(0.03, 0.07);
    const values = blockLines.map((l) => sci(1 + depth * Math.sin((Math.PI * (l + phase)) / BURST_LINES) ** 2));
    blocks.push({ swath, firstPixel: first, lastPixel: p - 1, lines: blockLines, values });
    first = p;
  }
  return { lines, pixels, sigma, beta, gamma, dn, noise, blocks };
}

/**
 * A_σ² and η per pixel of a window, as the reader's interpolation gives them. Every LUT
 * vector of a synthetic product holds the same values (they depend on range only), so the
 * range interpolation is done once; only the azimuth noise factor changes per line. The
 * values are the written strings parsed back, as the XML reader parses them.
 */
class DnLuts {
  private readonly a2: Float64Array;
  private readonly etaRange: Float64Array;
  private readonly block: Int8Array;
  private readonly blocks: { lines: Float64Array; values: Float64Array }[];
  private readonly factors: Float64Array;

  constructor(luts: LutSet, x0: number, width: number) {
    const pixels = Float64Array.from(luts.pixels);
    const sigma = new LutRowInterpolator([{ line: 0, pixels, values: Float32Array.from(luts.sigma.map(Number)) }]);
    const noise = new LutRowInterpolator([{ line: 0, pixels, values: Float32Array.from(luts.noise.map(Number)) }]);
    const a = new Float32Array(width);
    const eta = new Float32Array(width);
    sigma.fillRow(0, x0, a);
    noise.fillRow(0, x0, eta);
    this.a2 = Float64Array.from(a, (v) => v * v);
    this.etaRange = Float64Array.from(eta);
    this.block = new Int8Array(width).fill(-1);
    luts.blocks.forEach((b, k) => {
      for (let x = Math.max(x0, b.firstPixel); x <= Math.min(x0 + width - 1, b.lastPixel); x++) this.block[x - x0] = k;
    });
    this.blocks = luts.blocks.map((b) => ({ lines: Float64Array.from(b.lines), values: Float64Array.from(b.values.map(Number)) }));
    this.factors = new Float64Array(luts.blocks.length);
  }

  /** Fill A_σ² (shared row) and η for one line. */
  row(line: number, eta: Float64Array): Float64Array {
    this.blocks.forEach((b, k) => {
      this.factors[k] = interpolateLinear(b.lines, b.values, line);
    });
    for (let x = 0; x < eta.length; x++) {
      const k = this.block[x]!;
      eta[x] = k < 0 ? this.etaRange[x]! : this.etaRange[x]! * this.factors[k]!;
    }
    return this.a2;
  }
}

function interpolateLinear(xs: Float64Array, ys: Float64Array, x: number): number {
  const n = xs.length;
  if (x <= xs[0]!) return ys[0]!;
  if (x >= xs[n - 1]!) return ys[n - 1]!;
  let lo = 0;
  let hi = n - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (xs[mid]! <= x) lo = mid;
    else hi = mid;
  }
  return ys[lo]! + ((x - xs[lo]!) / (xs[hi]! - xs[lo]!)) * (ys[hi]! - ys[lo]!);
}

function lineTime(start: Date, line: number): string {
  return safeTime(addSeconds(start, line * GRDH_AZIMUTH_TIME_INTERVAL));
}

function calibrationXml(id: ProductIdentity, pol: Polarisation, imageNumber: number, luts: LutSet): string {
  const n = luts.pixels.length;
  const vectors = luts.lines
    .map(
      (line) => `    <calibrationVector>
      <azimuthTime>${lineTime(id.start, line)}</azimuthTime>
      <line>${line}</line>
      <pixel count="${n}">${luts.pixels.join(' ')}</pixel>
      <sigmaNought count="${n}">${luts.sigma.join(' ')}</sigmaNought>
      <betaNought count="${n}">${luts.beta.join(' ')}</betaNought>
      <gamma count="${n}">${luts.gamma.join(' ')}</gamma>
      <dn count="${n}">${luts.dn.join(' ')}</dn>
    </calibrationVector>`,
    )
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<calibration>
${adsHeader(id, 'IW', pol, imageNumber)}
  <calibrationInformation>
    <absoluteCalibrationConstant>1.000000e+00</absoluteCalibrationConstant>
  </calibrationInformation>
  <calibrationVectorList count="${luts.lines.length}">
${vectors}
  </calibrationVectorList>
</calibration>
`;
}

function noiseXml(id: ProductIdentity, pol: Polarisation, imageNumber: number, luts: LutSet): string {
  const n = luts.pixels.length;
  const range = luts.lines
    .map(
      (line) => `    <noiseRangeVector>
      <azimuthTime>${lineTime(id.start, line)}</azimuthTime>
      <line>${line}</line>
      <pixel count="${n}">${luts.pixels.join(' ')}</pixel>
      <noiseRangeLut count="${n}">${luts.noise.join(' ')}</noiseRangeLut>
    </noiseRangeVector>`,
    )
    .join('\n');
  const azimuth = luts.blocks
    .map(
      (b) => `    <noiseAzimuthVector>
      <swath>${b.swath}</swath>
      <firstAzimuthLine>${b.lines[0]}</firstAzimuthLine>
      <firstRangeSample>${b.firstPixel}</firstRangeSample>
      <lastAzimuthLine>${b.lines[b.lines.length - 1]}</lastAzimuthLine>
      <lastRangeSample>${b.lastPixel}</lastRangeSample>
      <line count="${b.lines.length}">${b.lines.join(' ')}</line>
      <noiseAzimuthLut count="${b.values.length}">${b.values.join(' ')}</noiseAzimuthLut>
    </noiseAzimuthVector>`,
    )
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<noise>
${adsHeader(id, 'IW', pol, imageNumber)}
  <noiseRangeVectorList count="${luts.lines.length}">
${range}
  </noiseRangeVectorList>
  <noiseAzimuthVectorList count="${luts.blocks.length}">
${azimuth}
  </noiseAzimuthVectorList>
</noise>
`;
}

interface GridPoint {
  line: number;
  pixel: number;
  lon: number;
  lat: number;
  incidence: number;
  elevation: number;
  slantRangeTime: number;
}

/** Geolocation grid: 21 pixels (every 1/20 of the width) × 11 lines (every 1/10 of the height). */
function geolocationGrid(g: GrdGeometry): GridPoint[] {
  const out: GridPoint[] = [];
  const lines = Array.from({ length: 11 }, (_, i) => Math.round(((g.height - 1) * i) / 10));
  const pixels = Array.from({ length: 21 }, (_, i) => Math.round(((g.width - 1) * i) / 20));
  for (const line of [...new Set(lines)]) {
    for (const pixel of [...new Set(pixels)]) {
      const { lon, lat } = g.pixelToLonLat(line, pixel);
      out.push({
        line,
        pixel,
        lon,
        lat,
        incidence: g.incidenceAngle(pixel),
        elevation: g.elevationAngle(pixel),
        slantRangeTime: g.slantRangeTime(pixel),
      });
    }
  }
  return out;
}

function geolocationGridXml(id: ProductIdentity, points: GridPoint[]): string {
  const items = points
    .map(
      (p) => `      <geolocationGridPoint>
        <azimuthTime>${lineTime(id.start, p.line)}</azimuthTime>
        <slantRangeTime>${p.slantRangeTime.toExponential(15)}</slantRangeTime>
        <line>${p.line}</line>
        <pixel>${p.pixel}</pixel>
        <latitude>${p.lat.toExponential(15)}</latitude>
        <longitude>${p.lon.toExponential(15)}</longitude>
        <height>0.000000000000000e+00</height>
        <incidenceAngle>${p.incidence.toExponential(15)}</incidenceAngle>
        <elevationAngle>${p.elevation.toExponential(15)}</elevationAngle>
      </geolocationGridPoint>`,
    )
    .join('\n');
  return `  <geolocationGrid>
    <geolocationGridPointList count="${points.length}">
${items}
    </geolocationGridPointList>
  </geolocationGrid>`;
}

/**
 * Orbit state vectors (Earth-fixed, every 10 s from 20 s before the first line to 20 s after
 * the last, as real annotations span the product) of the platform model the ghosts are placed
 * with (scene.ts platformStateAt): position on a sphere of radius R⊕ + h over the
 * sub-satellite point, velocity along the ground track.
 */
function orbitListXml(id: ProductIdentity, g: GrdGeometry): string {
  const r = EARTH_RADIUS_M + ORBIT_ALTITUDE_M;
  const span = (id.stop.getTime() - id.start.getTime()) / 1000;
  const items: string[] = [];
  for (let t = -20; t <= span + 20 + 1e-9; t += 10) {
    const p = platformStateAt(g, t / GRDH_AZIMUTH_TIME_INTERVAL);
    const lat = (p.lat * Math.PI) / 180;
    const lon = (p.lon * Math.PI) / 180;
    const [sl, cl, so, co] = [Math.sin(lat), Math.cos(lat), Math.sin(lon), Math.cos(lon)];
    // East (−sin λ, cos λ, 0) and north (−sin φ cos λ, −sin φ sin λ, cos φ) in ECEF.
    const v = [-so * p.east - sl * co * p.north, co * p.east - sl * so * p.north, cl * p.north];
    const x = [r * cl * co, r * cl * so, r * sl];
    items.push(`      <orbit>
        <time>${safeTime(addSeconds(id.start, t))}</time>
        <frame>Earth Fixed</frame>
        <position>
          <x>${x[0]!.toExponential(15)}</x>
          <y>${x[1]!.toExponential(15)}</y>
          <z>${x[2]!.toExponential(15)}</z>
        </position>
        <velocity>
          <x>${v[0]!.toExponential(15)}</x>
          <y>${v[1]!.toExponential(15)}</y>
          <z>${v[2]!.toExponential(15)}</z>
        </velocity>
      </orbit>`);
  }
  return `    <orbitList count="${items.length}">
${items.join('\n')}
    </orbitList>`;
}

/** Sub-swath bounds of the merged GRD (the columns of each sub-swath's incidence range), as real annotations give them. */
function swathMergingXml(id: ProductIdentity, g: GrdGeometry): string {
  const merges: string[] = [];
  let first = 0;
  for (let p = 1; p <= g.width; p++) {
    const swath = subSwathAt(g.incidenceAngle(first));
    if (p < g.width && subSwathAt(g.incidenceAngle(p)) === swath) continue;
    merges.push(`      <swathMerge>
        <swath>${swath}</swath>
        <swathBoundsList count="1">
          <swathBounds>
            <azimuthTime>${safeTime(id.start)}</azimuthTime>
            <firstAzimuthLine>0</firstAzimuthLine>
            <firstRangeSample>${first}</firstRangeSample>
            <lastAzimuthLine>${g.height - 1}</lastAzimuthLine>
            <lastRangeSample>${p - 1}</lastRangeSample>
          </swathBounds>
        </swathBoundsList>
      </swathMerge>`);
    first = p;
  }
  return `  <swathMerging>
    <swathMergeList count="${merges.length}">
${merges.join('\n')}
    </swathMergeList>
  </swathMerging>`;
}

function grdAnnotationXml(id: ProductIdentity, g: GrdGeometry, pol: Polarisation, imageNumber: number, grid: GridPoint[]): string {
  const allSwaths: SubSwath[] = ['IW1', 'IW2', 'IW3'];
  const downlink = allSwaths
    .map(
      (s) => `      <downlinkInformation>
        <swath>${s}</swath>
        <azimuthTime>${safeTime(id.start)}</azimuthTime>
        <prf>${sci(subSwathPrf(s))}</prf>
      </downlinkInformation>`,
    )
    .join('\n');
  const procParams = allSwaths
    .map(
      (s) => `        <swathProcParams>
          <swath>${s}</swath>
          <rangeProcessing>
            <windowType>Hamming</windowType>
            <windowCoefficient>7.000000000000000e-01</windowCoefficient>
            <numberOfLooks>5</numberOfLooks>
          </rangeProcessing>
          <azimuthProcessing>
            <windowType>Hamming</windowType>
            <windowCoefficient>7.500000000000000e-01</windowCoefficient>
            <numberOfLooks>1</numberOfLooks>
          </azimuthProcessing>
        </swathProcParams>`,
    )
    .join('\n');
  const mid = g.incidenceAngle((g.width - 1) / 2);
  return `<?xml version="1.0" encoding="UTF-8"?>
<product>
${adsHeader(id, 'IW', pol, imageNumber)}
  <generalAnnotation>
    <productInformation>
      <pass>${id.passDirection === 'ascending' ? 'Ascending' : 'Descending'}</pass>
      <timelinessCategory>${xmlEscape(id.timeliness)}</timelinessCategory>
      <platformHeading>${g.headingDeg.toExponential(15)}</platformHeading>
      <projection>Ground Range</projection>
      <rangeSamplingRate>6.434523812571428e+07</rangeSamplingRate>
      <radarFrequency>${RADAR_FREQUENCY_HZ.toExponential(15)}</radarFrequency>
      <azimuthSteeringRate>1.590368784000000e+00</azimuthSteeringRate>
    </productInformation>
    <downlinkInformationList count="3">
${downlink}
    </downlinkInformationList>
${orbitListXml(id, g)}
  </generalAnnotation>
  <imageAnnotation>
    <imageInformation>
      <productFirstLineUtcTime>${safeTime(id.start)}</productFirstLineUtcTime>
      <productLastLineUtcTime>${safeTime(id.stop)}</productLastLineUtcTime>
      <ascendingNodeTime>${safeTime(id.anx)}</ascendingNodeTime>
      <productComposition>Slice</productComposition>
      <slantRangeTime>${g.slantRangeTime(0).toExponential(15)}</slantRangeTime>
      <pixelValue>Detected</pixelValue>
      <outputPixels>16 bit Unsigned Integer</outputPixels>
      <rangePixelSpacing>${sci(g.rangeSpacing)}</rangePixelSpacing>
      <azimuthPixelSpacing>${sci(g.azimuthSpacing)}</azimuthPixelSpacing>
      <azimuthTimeInterval>${GRDH_AZIMUTH_TIME_INTERVAL.toExponential(15)}</azimuthTimeInterval>
      <azimuthFrequency>${sci(1 / GRDH_AZIMUTH_TIME_INTERVAL)}</azimuthFrequency>
      <numberOfSamples>${g.width}</numberOfSamples>
      <numberOfLines>${g.height}</numberOfLines>
      <incidenceAngleMidSwath>${mid.toExponential(15)}</incidenceAngleMidSwath>
    </imageInformation>
    <processingInformation>
      <rawDataAnalysisUsed>true</rawDataAnalysisUsed>
      <orbitDataFileUsed>true</orbitDataFileUsed>
      <antennaElevationPatternApplied>true</antennaElevationPatternApplied>
      <antennaAzimuthPatternApplied>true</antennaAzimuthPatternApplied>
      <rangeSpreadingLossCompensationApplied>true</rangeSpreadingLossCompensationApplied>
      <srgrConversionApplied>true</srgrConversionApplied>
      <detectionPerformed>true</detectionPerformed>
      <thermalNoiseCorrectionPerformed>false</thermalNoiseCorrectionPerformed>
      <swathProcParamsList count="3">
${procParams}
      </swathProcParamsList>
      <referenceRange>8.000000000000000e+05</referenceRange>
      <ellipsoidName>WGS84</ellipsoidName>
      <ellipsoidSemiMajorAxis>6.378137000000000e+06</ellipsoidSemiMajorAxis>
      <ellipsoidSemiMinorAxis>6.356752314245000e+06</ellipsoidSemiMinorAxis>
    </processingInformation>
  </imageAnnotation>
${geolocationGridXml(id, grid)}
${swathMergingXml(id, g)}
</product>
`;
}

// ------------------------------------------------------------------ writer

async function writeXml(root: string, rel: string, text: string): Promise<{ size: number; md5: string }> {
  const file = path.join(root, rel);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, text);
  return { size: Buffer.byteLength(text), md5: md5(text) };
}

function asDate(t: string | Date): Date {
  const d = t instanceof Date ? t : new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(t) ? t : `${t}Z`);
  if (Number.isNaN(d.getTime())) throw new RangeError(`invalid time ${String(t)}`);
  return d;
}

/**
 * DN of one row: DN² = (σ0·A² + η)·S — signal and thermal noise are both circular
 * Gaussian, so their sum is speckled together — rounded to UInt16, never 0 (0 is no-data).
 * A small function of its own so V8 optimises the hot loop.
 */
function quantiseRow(
  sigma0: Float32Array,
  a2: Float64Array,
  eta: Float64Array,
  speckle: Float32Array,
  dn: Uint16Array,
  base: number,
  width: number,
): void {
  for (let x = 0; x < width; x++) {
    const v = Math.round(Math.sqrt((sigma0[base + x]! * a2[x]! + eta[x]!) * speckle[x]!));
    dn[base + x] = v < 1 ? 1 : v > 65535 ? 65535 : v;
  }
}

/** Rows rendered and written per block: bounds memory to ~16 B × width × this. */
const BLOCK_ROWS = 64;

/**
 * Write a synthetic IW GRDH product into `dir`: `<dir>/<name>.SAFE` and
 * `<dir>/<name>.truth.geojson`. An existing product of the same name is replaced.
 */
export async function writeSafeGrd(dir: string, spec: SafeGrdSpec): Promise<WriteSafeResult> {
  const mission = spec.mission ?? 'S1A';
  const pols = spec.pols ?? ['VV', 'VH'];
  polarisationCode(pols);
  const width = spec.width ?? 4000;
  const height = spec.height ?? 3000;
  const passDirection = spec.passDirection ?? 'ascending';
  const looks = spec.looks ?? IW_GRDH_ENL;
  const nesz = spec.nesz ?? 'sentinel1';
  const start = asDate(spec.start);
  const stop = addSeconds(start, (height - 1) * GRDH_AZIMUTH_TIME_INTERVAL);
  const id = identity(mission, 'GRD', pols, start, stop, passDirection, spec.seed, spec.productUid, spec.timeliness ?? 'Fast-24h');
  const name = productName(id);
  const productPath = path.join(dir, `${name}.SAFE`);
  const groundTruthPath = path.join(dir, `${name}.truth.geojson`);
  const crop = spec.crop ?? { x0: 0, y0: 0, width, height };
  if (crop.x0 < 0 || crop.y0 < 0 || crop.x0 + crop.width > width || crop.y0 + crop.height > height || crop.width < 1 || crop.height < 1) {
    throw new RangeError(`crop ${JSON.stringify(crop)} is not inside the ${width} × ${height} image`);
  }
  const cropped = spec.crop !== undefined;

  const geometry = new GrdGeometry({ center: spec.center, width, height, passDirection, nearIncidenceDeg: spec.nearIncidenceDeg });
  const scene = new GrdScene(spec, geometry);
  const luts = buildLuts(geometry, nesz, spec.seed);
  const grid = geolocationGrid(geometry);

  await rm(productPath, { recursive: true, force: true });
  await mkdir(path.join(productPath, 'measurement'), { recursive: true });
  await mkdir(path.join(productPath, 'annotation', 'calibration'), { recursive: true });

  const files: ManifestFile[] = [];
  const imageNumber = (pol: Polarisation) => (pol === 'VV' ? 1 : 2);
  // Metadata first (the manifest lists them in this order, like ESA's).
  for (const pol of pols) {
    const n = imageNumber(pol);
    const stem = memberStem(id, 'iw', pol, n);
    const product = await writeXml(productPath, `annotation/${stem}.xml`, grdAnnotationXml(id, geometry, pol, n, grid));
    files.push({ href: `annotation/${stem}.xml`, objectId: objectId('product', stem), repId: 's1Level1ProductSchema', mimeType: 'text/xml', unitType: 'Metadata Unit', ...product });
    const noise = await writeXml(productPath, `annotation/calibration/noise-${stem}.xml`, noiseXml(id, pol, n, luts));
    files.push({ href: `annotation/calibration/noise-${stem}.xml`, objectId: objectId('noise', stem), repId: 's1Level1NoiseSchema', mimeType: 'text/xml', unitType: 'Metadata Unit', ...noise });
    const calibration = await writeXml(productPath, `annotation/calibration/calibration-${stem}.xml`, calibrationXml(id, pol, n, luts));
    files.push({
      href: `annotation/calibration/calibration-${stem}.xml`,
      objectId: objectId('calibration', stem),
      repId: 's1Level1CalibrationSchema',
      mimeType: 'text/xml',
      unitType: 'Metadata Unit',
      ...calibration,
    });
  }

  // Measurements: rendered, speckled, calibrated and quantised block by block.
  const gcps: TiffGcp[] = grid.map((p) => ({ pixel: p.pixel + 0.5, line: p.line + 0.5, lon: p.lon, lat: p.lat, height: 0 }));
  const writers = new Map<Polarisation, TiffWriter>();
  try {
    for (const pol of pols) {
      const stem = memberStem(id, 'iw', pol, imageNumber(pol));
      writers.set(
        pol,
        await TiffWriter.create(path.join(productPath, `measurement/${stem}.tiff`), {
          width: crop.width,
          height: crop.height,
          sampleType: 'uint16',
          rowsPerStrip: spec.rowsPerStrip ?? 1,
          georeference: cropped ? { type: 'pixel-offset', x0: crop.x0, y0: crop.y0 } : { type: 'gcps', gcps },
          imageDescription: `Sentinel-${mission.slice(1)} IW GRD HR L1 (sarwatch synthetic)`,
          software: `Sentinel-1 IPF ${IPF_VERSION} (sarwatch synth)`,
          dateTime: start,
        }),
      );
    }
    const block = Math.min(BLOCK_ROWS, crop.height);
    const sigma = new Map<Polarisation, Float32Array>(pols.map((p) => [p, new Float32Array(block * crop.width)]));
    const speckle = new Map<Polarisation, SpeckleSampler>(pols.map((p) => [p, new SpeckleSampler(new Random(spec.seed, `speckle-${p}`), looks)]));
    const dnLuts = new DnLuts(luts, crop.x0, crop.width);
    const dn = new Uint16Array(block * crop.width);
    const s = new Float32Array(crop.width);
    const eta = new Float64Array(crop.width);
    for (let y = crop.y0; y < crop.y0 + crop.height; y += block) {
      const rows = Math.min(block, crop.y0 + crop.height - y);
      scene.renderRows(y, rows, crop.x0, crop.width, sigma.get('VV') ?? null, sigma.get('VH') ?? null);
      spec.overlay?.(geometry, y, rows, crop.x0, crop.width, sigma.get('VV') ?? null, sigma.get('VH') ?? null);
      for (const pol of pols) {
        const values = sigma.get(pol)!;
        const sampler = speckle.get(pol)!;
        for (let r = 0; r < rows; r++) {
          const a2 = dnLuts.row(y + r, eta);
          sampler.fill(s);
          quantiseRow(values, a2, eta, s, dn, r * crop.width, crop.width);
        }
        await writers.get(pol)!.writeRows(dn, rows);
      }
    }
    for (const pol of pols) {
      const stem = memberStem(id, 'iw', pol, imageNumber(pol));
      const result = await writers.get(pol)!.close();
      const annotations = ['product', 'noise', 'calibration'].map((k) => objectId(k, stem));
      files.push({
        href: `measurement/${stem}.tiff`,
        objectId: objectId('', stem),
        repId: 's1Level1MeasurementSchema',
        mimeType: 'application/octet-stream',
        unitType: 'Measurement Data Unit',
        size: result.bytes,
        md5: result.md5 ?? '',
        annotatedBy: annotations,
      });
    }
  } catch (error) {
    await Promise.all([...writers.values()].map((w) => w.abort()));
    throw error;
  }

  const footprint = geometry.corners().map((c): Position => [c.lon, c.lat]);
  const sliceNumber = 1 + (hashSeed(spec.seed, 'slice') % 20);
  await writeFile(path.join(productPath, 'manifest.safe'), manifestXml(id, footprint, files, sliceNumber));

  await writeTruth(groundTruthPath, scene.truthFeatures(), {
    product: name,
    productType: 'GRD',
    mission,
    startTime: start.toISOString(),
    stopTime: stop.toISOString(),
    absoluteOrbit: id.absoluteOrbit,
    relativeOrbit: id.relativeOrbit,
    passDirection,
    width,
    height,
    ...(cropped ? { crop } : {}),
    polarisations: pols,
    looks,
    nesz,
    seed: spec.seed,
    areaSeed: spec.areaSeed ?? spec.seed,
    wind: spec.wind,
    platformHeading: Math.round(geometry.headingDeg * 1e4) / 1e4,
    incidenceRange: [geometry.incidenceAngle(0), geometry.incidenceAngle(width - 1)].map((v) => Math.round(v * 1e3) / 1e3),
    footprint: { type: 'Polygon', coordinates: [[...footprint, footprint[0]!]] },
  });
  return { productPath, groundTruthPath, productId: name };
}

// ------------------------------------------------------------------ SLC (metadata only)

export interface SafeSlcSpec {
  seed: number;
  mission?: SynthMission;
  start: string | Date;
  /** Slice duration (s); default 27. */
  durationS?: number;
  /** Footprint centre; the product spans the full IW swath (~250 km × ~180 km). */
  center: Position;
  passDirection?: PassDirection;
  pols?: Polarisation[];
  productUid?: string;
}

/**
 * An IW SLC product with manifest and one annotation per sub-swath and polarisation, but
 * no measurement, calibration or noise: enough to be indexed (productType SLC) and to be
 * refused by the GRD reader. Returns the product path.
 */
export async function writeSafeSlcMetadata(dir: string, spec: SafeSlcSpec): Promise<{ productPath: string; productId: string }> {
  const mission = spec.mission ?? 'S1A';
  const pols = spec.pols ?? ['VV', 'VH'];
  const passDirection = spec.passDirection ?? 'ascending';
  const start = asDate(spec.start);
  const stop = addSeconds(start, spec.durationS ?? 27);
  const id = identity(mission, 'SLC', pols, start, stop, passDirection, spec.seed, spec.productUid, 'Fast-24h');
  const name = productName(id);
  const productPath = path.join(dir, `${name}.SAFE`);
  await rm(productPath, { recursive: true, force: true });
  await mkdir(path.join(productPath, 'annotation'), { recursive: true });
  // The whole IW swath: 25,000 × 18,000 GRD-equivalent pixels around the centre.
  const lines = Math.round((stop.getTime() - start.getTime()) / 1000 / GRDH_AZIMUTH_TIME_INTERVAL);
  const geometry = new GrdGeometry({ center: spec.center, width: 25_000, height: lines, passDirection });
  const files: ManifestFile[] = [];
  // ESA numbering: VH swaths 1–3 (images 001–003), then VV (004–006).
  const order: Polarisation[] = pols.includes('VH') ? ['VH', 'VV'] : ['VV'];
  let image = 0;
  for (const pol of order) {
    for (const swath of ['IW1', 'IW2', 'IW3'] as SubSwath[]) {
      image++;
      const [from, to] = subSwathBounds(swath);
      let p0 = 0;
      while (p0 < geometry.width - 1 && geometry.incidenceAngle(p0) < from) p0 += 50;
      let p1 = p0;
      while (p1 < geometry.width - 1 && geometry.incidenceAngle(p1) < to) p1 += 50;
      const grid: GridPoint[] = [];
      for (let i = 0; i <= 9; i++) {
        const line = Math.round(((lines - 1) * i) / 9);
        for (let j = 0; j <= 20; j++) {
          const pixel = Math.round(p0 + ((p1 - p0) * j) / 20);
          const { lon, lat } = geometry.pixelToLonLat(line, pixel);
          grid.push({
            line,
            pixel: Math.round(((pixel - p0) * 10) / 2.33),
            lon,
            lat,
            incidence: geometry.incidenceAngle(pixel),
            elevation: geometry.elevationAngle(pixel),
            slantRangeTime: geometry.slantRangeTime(pixel),
          });
        }
      }
      const stem = memberStem(id, swath, pol, image);
      const xml = `<?xml version="1.0" encoding="UTF-8"?>
<product>
${adsHeader(id, swath, pol, image)}
  <generalAnnotation>
    <productInformation>
      <pass>${passDirection === 'ascending' ? 'Ascending' : 'Descending'}</pass>
      <timelinessCategory>Fast-24h</timelinessCategory>
      <platformHeading>${geometry.headingDeg.toExponential(15)}</platformHeading>
      <projection>Slant Range</projection>
      <radarFrequency>${RADAR_FREQUENCY_HZ.toExponential(15)}</radarFrequency>
    </productInformation>
  </generalAnnotation>
  <imageAnnotation>
    <imageInformation>
      <productFirstLineUtcTime>${safeTime(start)}</productFirstLineUtcTime>
      <productLastLineUtcTime>${safeTime(stop)}</productLastLineUtcTime>
      <ascendingNodeTime>${safeTime(id.anx)}</ascendingNodeTime>
      <pixelValue>Complex</pixelValue>
      <outputPixels>16 bit Signed Integer</outputPixels>
      <rangePixelSpacing>2.329562e+00</rangePixelSpacing>
      <azimuthPixelSpacing>1.393357e+01</azimuthPixelSpacing>
      <azimuthTimeInterval>2.055556299999998e-03</azimuthTimeInterval>
      <numberOfSamples>${Math.round(((p1 - p0) * 10) / 2.33)}</numberOfSamples>
      <numberOfLines>${lines}</numberOfLines>
    </imageInformation>
  </imageAnnotation>
${geolocationGridXml(id, grid)}
</product>
`;
      const info = await writeXml(productPath, `annotation/${stem}.xml`, xml);
      files.push({ href: `annotation/${stem}.xml`, objectId: objectId('product', stem), repId: 's1Level1ProductSchema', mimeType: 'text/xml', unitType: 'Metadata Unit', ...info });
    }
  }
  const footprint = geometry.corners().map((c): Position => [c.lon, c.lat]);
  await writeFile(path.join(productPath, 'manifest.safe'), manifestXml(id, footprint, files, 1 + (hashSeed(spec.seed, 'slice') % 20)));
  return { productPath, productId: name };
}
