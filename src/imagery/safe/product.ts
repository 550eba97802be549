import type { GeoTIFF } from 'geotiff';
import { BlockReader, type BlockReaderOptions } from '../blockreader.js';
import { ImageryError, isImageryError } from '../errors.js';
import { intersectWindows, type LonLatPolygon, type PixelWindow } from '../window.js';
import { parseAnnotation, type ProductAnnotation } from './annotation.js';
import { readCalibratedWindow, type CalibratedWindow, type ReadWindowOptions } from './calibrate.js';
import { parseCalibration, type CalibrationLut } from './calibration.js';
import { openSafeContainer, type SafeContainer } from './container.js';
import { isRemoteHref } from '../remote/access.js';
import { GeolocationGrid, type GridInterpolation } from './geolocation.js';
import { parseManifest, type SafeManifest } from './manifest.js';
import { measurementPlacement, type MeasurementPlacement } from './measurement.js';
import { bandKey, memberKind, parseMemberName, type MemberKind } from '../container/names.js';
import { parseNoise, type NoiseLut } from './noise.js';
import { cachedParse } from './parseCache.js';

export interface SafeBandFiles {
  annotation: string;
  calibration: string;
  noise: string;
  /** null when the product carries no measurement for this band (metadata-only zips). */
  measurement: string | null;
}

/** One polarisation of a GRD product: its metadata, LUTs, geolocation and pixels. */
export interface SafeBand {
  readonly polarisation: string;
  readonly swath: string;
  readonly files: SafeBandFiles;
  readonly annotation: ProductAnnotation;
  readonly calibration: CalibrationLut;
  readonly noise: NoiseLut;
  readonly geolocation: GeolocationGrid;
  /** Full-image size from the annotation. */
  readonly width: number;
  readonly height: number;
  /** True when a measurement TIFF is present and readable by range. */
  readonly hasMeasurement: boolean;
  /** TIFF ↔ full-image offset; null without a readable measurement. */
  readonly placement: MeasurementPlacement | null;
  /** Full-image window covered by the measurement TIFF; null without one. */
  readonly validWindow: PixelWindow | null;
  /** GDAL no-data value of the TIFF (DN 0 is always treated as no data too). */
  readonly nodata: number | null;
  /** Calibrated (or raw DN) values of a full-image window; pixels outside the measurement are invalid. */
  readWindow(window: PixelWindow, options: ReadWindowOptions): Promise<CalibratedWindow>;
  /** Full-image (line, pixel) of a measurement TIFF (row, col). */
  measurementToImage(row: number, col: number): { line: number; pixel: number };
  /** Measurement TIFF (row, col) of a full-image (line, pixel). */
  imageToMeasurement(line: number, pixel: number): { row: number; col: number };
}

export interface SafeProduct {
  readonly location: string;
  /** Folder (or zip member folder) name without `.SAFE`. */
  readonly productId: string;
  readonly manifest: SafeManifest;
  readonly missionId: string;
  readonly productType: string;
  readonly mode: string;
  /** Polarisations that have an annotation, in manifest order, e.g. ['VV', 'VH']. */
  readonly polarisations: string[];
  readonly width: number;
  readonly height: number;
  readonly passDirection: 'ascending' | 'descending';
  readonly startTime: string;
  readonly stopTime: string;
  readonly bands: Record<string, SafeBand>;
  /** Geolocation grid of the first band (all bands of a GRD share it). */
  readonly geolocation: GeolocationGrid;
  /** Scene outline from the geolocation grid's border points. */
  readonly footprint: LonLatPolygon;
  /** Scene outline as the manifest's gml:coordinates give it (4 corners), if present. */
  readonly manifestFootprint: LonLatPolygon | null;
  /** Intersection of the bands' valid windows; null when no band has a measurement. */
  readonly validWindow: PixelWindow | null;
  /** Outline of validWindow in lon/lat (for a crop: the crop; for a full product: the scene). */
  readonly validFootprint: LonLatPolygon | null;
  /** How another thread opens this product: set by openSafeProduct for a local folder or zip. */
  readonly source?: SafeSource;
  close(): Promise<void>;
}

/** A SAFE product as structured-cloneable data (one kind of sigma0/types.ts' ProductSource, defined here so safe/ needs nothing of sigma0/). */
export type SafeSource = { kind: 'safe'; path: string; options: OpenSafeOptions };

export interface OpenSafeOptions {
  geolocationInterpolation?: GridInterpolation;
  blockCache?: BlockReaderOptions;
  /**
   * Open one band only: the first of these polarisations the product has (a quicklook of one
   * band need not parse the other band's XML). Default: every band.
   */
  firstOf?: readonly string[];
}

class GrdBand implements SafeBand {
  readonly width: number;
  readonly height: number;
  readonly hasMeasurement: boolean;

  constructor(
    readonly polarisation: string,
    readonly swath: string,
    readonly files: SafeBandFiles,
    readonly annotation: ProductAnnotation,
    readonly calibration: CalibrationLut,
    readonly noise: NoiseLut,
    readonly geolocation: GeolocationGrid,
    readonly placement: MeasurementPlacement | null,
    readonly nodata: number | null,
    private readonly reader: BlockReader | null,
    private readonly unavailable: ImageryError | null,
  ) {
    this.width = annotation.numberOfSamples;
    this.height = annotation.numberOfLines;
    this.hasMeasurement = reader !== null;
  }

  get validWindow(): PixelWindow | null {
    if (!this.placement) return null;
    return intersectWindows(
      { x0: this.placement.pixelOffset, y0: this.placement.lineOffset, width: this.placement.width, height: this.placement.height },
      { x0: 0, y0: 0, width: this.width, height: this.height },
    );
  }

  readWindow(window: PixelWindow, options: ReadWindowOptions): Promise<CalibratedWindow> {
    const validWindow = this.validWindow;
    if (!this.reader || !this.placement || !validWindow) {
      return Promise.reject(
        this.unavailable ??
          new ImageryError('MEASUREMENT_UNAVAILABLE', `${this.swath} ${this.polarisation} has no measurement raster in this product`),
      );
    }
    return readCalibratedWindow(
      {
        reader: this.reader,
        placement: this.placement,
        nodata: this.nodata,
        validWindow,
        calibration: this.calibration,
        noise: this.noise,
      },
      window,
      options,
    );
  }

  measurementToImage(row: number, col: number): { line: number; pixel: number } {
    const p = this.placement ?? { lineOffset: 0, pixelOffset: 0 };
    return { line: row + p.lineOffset, pixel: col + p.pixelOffset };
  }

  imageToMeasurement(line: number, pixel: number): { row: number; col: number } {
    const p = this.placement ?? { lineOffset: 0, pixelOffset: 0 };
    return { row: line - p.lineOffset, col: pixel - p.pixelOffset };
  }
}

/** Member files grouped by band (swath + polarisation); the first file of each kind wins. */
function groupMembers(files: string[]): Map<string, Partial<Record<MemberKind, string>> & { swath: string; polarisation: string }> {
  const groups = new Map<string, Partial<Record<MemberKind, string>> & { swath: string; polarisation: string }>();
  for (const file of files) {
    const kind = memberKind(file);
    const name = kind ? parseMemberName(file) : null;
    if (!kind || !name) continue;
    const key = bandKey(name);
    const group = groups.get(key) ?? { swath: name.swath, polarisation: name.polarisation };
    group[kind] ??= file;
    groups.set(key, group);
  }
  return groups;
}

async function openMeasurement(
  container: SafeContainer,
  path: string | undefined,
  annotation: ProductAnnotation,
  options: OpenSafeOptions,
  opened: GeoTIFF[],
): Promise<{ reader: BlockReader | null; placement: MeasurementPlacement | null; nodata: number | null; error: ImageryError | null }> {
  if (!path) return { reader: null, placement: null, nodata: null, error: null };
  let tiff: GeoTIFF;
  try {
    tiff = await container.openTiff(path);
  } catch (error) {
    // A compressed zip member leaves the metadata usable; reading pixels reports why not.
    if (isImageryError(error, 'COMPRESSED_ZIP_MEMBER')) return { reader: null, placement: null, nodata: null, error };
    throw error;
  }
  opened.push(tiff);
  const image = await tiff.getImage();
  const placement = measurementPlacement(image, annotation.numberOfSamples, annotation.numberOfLines, path);
  return { reader: new BlockReader(image, options.blockCache), placement, nodata: image.getGDALNoData(), error: null };
}

/**
 * Open a Sentinel-1 GRD product: a `.SAFE` folder, its `manifest.safe`, a `.zip`, or the
 * URL of a GRD STAC item (assets read remotely, see src/imagery/stac).
 * Manifest, annotation, calibration and noise XML are parsed now; measurement TIFFs are
 * only opened (header) and read by window later.
 */
export async function openSafeProduct(path: string, options: OpenSafeOptions = {}): Promise<SafeProduct> {
  const product = await openSafeProductFrom(await openSafeContainer(path), options);
  // A local product can be opened again by path on another thread (a remote one needs this thread's access settings).
  return isRemoteHref(path) ? product : Object.assign(product, { source: { kind: 'safe' as const, path, options } });
}

/** openSafeProduct on an opened container (a SAFE folder, zip, or STAC-assembled product). */
export async function openSafeProductFrom(container: SafeContainer, options: OpenSafeOptions = {}): Promise<SafeProduct> {
  const opened: GeoTIFF[] = [];
  try {
    const manifest = parseManifest(await container.readText('manifest.safe'));
    if (!manifest.missionId.startsWith('S1')) {
      throw new ImageryError('UNSUPPORTED_PRODUCT', `${container.productName} is not a Sentinel-1 product`);
    }
    if (manifest.productType !== 'GRD') {
      throw new ImageryError('UNSUPPORTED_PRODUCT', `${container.productName} is a ${manifest.productType} product; only GRD is read`);
    }

    const groups = groupMembers(container.files());
    const annotated = [...groups.values()].filter((g) => g.annotation);
    const chosen = options.firstOf?.map((p) => annotated.find((g) => g.polarisation === p)).find((g) => g !== undefined);
    if (options.firstOf && !chosen) {
      throw new ImageryError('MEASUREMENT_UNAVAILABLE', `${container.productName} has none of the polarisations ${options.firstOf.join(', ')}`);
    }
    const bands: Record<string, SafeBand> = {};
    for (const group of chosen ? [chosen] : groups.values()) {
      if (!group.annotation) continue;
      if (!group.calibration || !group.noise) {
        throw new ImageryError('INVALID_PRODUCT', `${container.productName}: ${group.swath} ${group.polarisation} lacks calibration or noise XML`);
      }
      const [annotationXml, calibrationXml, noiseXml] = await Promise.all([
        container.readText(group.annotation),
        container.readText(group.calibration),
        container.readText(group.noise),
      ]);
      // Parsed once per machine: every analysis thread opens the product of a scene's tiles.
      const annotation = cachedParse('annotation', annotationXml, (xml) => parseAnnotation(xml, group.annotation));
      if (annotation.productType !== 'GRD') {
        throw new ImageryError('UNSUPPORTED_PRODUCT', `${group.annotation} annotates a ${annotation.productType} product`);
      }
      const calibration = cachedParse('calibration', calibrationXml, (xml) => parseCalibration(xml, group.calibration));
      const noise = cachedParse('noise', noiseXml, (xml) => parseNoise(xml, group.noise));
      const geolocation = GeolocationGrid.fromPoints(annotation.geolocationGrid, options.geolocationInterpolation);
      const measurement = await openMeasurement(container, group.measurement, annotation, options, opened);
      bands[group.polarisation] = new GrdBand(
        group.polarisation,
        group.swath,
        {
          annotation: group.annotation,
          calibration: group.calibration,
          noise: group.noise,
          measurement: group.measurement ?? null,
        },
        annotation,
        calibration,
        noise,
        geolocation,
        measurement.placement,
        measurement.nodata,
        measurement.reader,
        measurement.error,
      );
    }

    const available = Object.keys(bands);
    if (available.length === 0) throw new ImageryError('INVALID_PRODUCT', `${container.productName} has no band annotations`);
    const order = (p: string): number => {
      const i = manifest.polarisations.indexOf(p);
      return i < 0 ? 99 : i;
    };
    const polarisations = available.sort((a, b) => order(a) - order(b) || a.localeCompare(b));
    const first = bands[polarisations[0]!]!;
    for (const p of polarisations) {
      const b = bands[p]!;
      if (b.width !== first.width || b.height !== first.height) {
        throw new ImageryError('INVALID_PRODUCT', `${container.productName}: bands ${polarisations[0]} and ${p} differ in size`);
      }
    }

    let validWindow: PixelWindow | null = null;
    let anyMeasurement = false;
    for (const p of polarisations) {
      const w = bands[p]!.validWindow;
      if (!w) continue;
      validWindow = anyMeasurement ? (validWindow ? intersectWindows(validWindow, w) : null) : w;
      anyMeasurement = true;
    }

    const geolocation = first.geolocation;
    let closing: Promise<void> | null = null;
    return {
      location: container.location,
      productId: container.productName,
      manifest,
      missionId: manifest.missionId,
      productType: manifest.productType,
      mode: manifest.mode || first.annotation.mode,
      polarisations,
      width: first.width,
      height: first.height,
      passDirection: first.annotation.passDirection,
      startTime: first.annotation.startTime,
      stopTime: first.annotation.stopTime,
      bands,
      geolocation,
      footprint: geolocation.footprint(),
      manifestFootprint: manifest.footprint,
      validWindow,
      validFootprint: validWindow ? geolocation.windowFootprint(validWindow) : null,
      close: () => {
        closing ??= (async () => {
          await Promise.all(opened.map((t) => t.close()));
          await container.close();
        })();
        return closing;
      },
    };
  } catch (error) {
    await Promise.all(opened.map((t) => t.close()));
    await container.close();
    throw error;
  }
}

/** `band.readWindow(window, options)`, as a function. */
export function readWindow(band: SafeBand, window: PixelWindow, options: ReadWindowOptions): Promise<CalibratedWindow> {
  return band.readWindow(window, options);
}
