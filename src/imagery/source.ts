import { openSafeProduct } from './safe/product.js';
import { openSigma0GeoTiff } from './sigma0/geotiff.js';
import type { ProductSource, Sigma0Product } from './sigma0/types.js';

/** Open the product a ProductSource describes (product.source, sent to another thread): the same bands, windows and values. */
export function openProductSource(source: ProductSource): Promise<Sigma0Product> {
  switch (source.kind) {
    case 'safe':
      return openSafeProduct(source.path, source.options);
    case 'sigma0-geotiff':
      return openSigma0GeoTiff(source.path, source.options);
  }
}
