// What a detector reads, described before it is opened: an analysis-ready raster (a local
// path or an http(s) URL of a GeoTIFF/COG, e.g. OPERA RTC) or one polarisation of a SAFE
// GRD product geocoded onto a UTM grid. Both open as a RasterProduct, so the building-change
// and time-series detectors have one code path for RTC and GRD imagery.

import { ImageryError } from '../errors.js';
import { openRasterProduct, type RasterProduct } from '../rtc/raster.js';
import { openSafeProduct, type SafeProduct } from '../safe/product.js';
import { GeocodedGrdRaster, GrdGeocoder, type GeocodeOptions } from './grdRaster.js';
import type { UtmGrid } from './utmGrid.js';

export interface GrdRasterSource extends GeocodeOptions {
  kind: 'grd';
  /** SAFE folder, its manifest.safe, or a zip (measurement stored, not deflated). */
  product: string;
  polarisation: 'VV' | 'VH';
  /** The grid every scene of a pair or series is geocoded onto. */
  grid: UtmGrid;
}

/** A GeoTIFF/COG path or URL, or a geocoded GRD polarisation. */
export type RasterSource = string | GrdRasterSource;

export function isGrdSource(source: RasterSource): source is GrdRasterSource {
  return typeof source === 'object' && source !== null && source.kind === 'grd';
}

/** A short human-readable name (for errors and logs). */
export function describeSource(source: RasterSource): string {
  return isGrdSource(source) ? `${source.product} (${source.polarisation}, geocoded to EPSG:${source.grid.epsg} at ${source.grid.pixelSizeM} m)` : source;
}

/**
 * Open several sources at once. GRD sources of one product share the opened product (its
 * XML is parsed once) and, when they share a grid, the geocoding map: VV and VH of a date
 * map each window once. Each returned raster must be closed; a shared product closes with
 * the last of its rasters. If any source fails to open, the others are closed again.
 */
export async function openRasterSources(sources: readonly RasterSource[]): Promise<RasterProduct[]> {
  const products = new Map<string, { product: Promise<SafeProduct>; refs: number; geocoders: Map<UtmGrid, GrdGeocoder> }>();
  const opened: RasterProduct[] = [];
  try {
    for (const source of sources) {
      if (!isGrdSource(source)) {
        opened.push(await openRasterProduct(source));
        continue;
      }
      let entry = products.get(source.product);
      if (!entry) {
        entry = { product: openSafeProduct(source.product), refs: 0, geocoders: new Map() };
        products.set(source.product, entry);
      }
      const product = await entry.product;
      const band = product.bands[source.polarisation];
      if (!band) {
        throw new ImageryError('MEASUREMENT_UNAVAILABLE', `${product.productId} has no ${source.polarisation} band (it has ${product.polarisations.join(', ')})`);
      }
      let geocoder = entry.geocoders.get(source.grid);
      if (!geocoder) {
        geocoder = new GrdGeocoder(band.geolocation, source.grid);
        entry.geocoders.set(source.grid, geocoder);
      }
      entry.refs++;
      const shared = entry;
      let closed = false;
      opened.push(
        new GeocodedGrdRaster(product, band, source.grid, geocoder, source, async () => {
          if (closed) return;
          closed = true;
          if (--shared.refs === 0) await product.close();
        }),
      );
    }
    return opened;
  } catch (error) {
    await Promise.all(opened.map((r) => r.close()));
    // Products opened for a source that then failed (no such band) hold no raster yet.
    await Promise.all(
      [...products.values()].filter((e) => e.refs === 0).map((e) => e.product.then((p) => p.close(), () => undefined)),
    );
    throw error;
  }
}

/** Open one source. */
export async function openRasterSource(source: RasterSource): Promise<RasterProduct> {
  const [raster] = await openRasterSources([source]);
  return raster!;
}
