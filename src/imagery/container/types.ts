// src/imagery/container/: what a SAFE product's files are, whoever lists them (safe/: a local folder or zip; stac/: a STAC item's assets), with the names and zip members they share; imports only imagery's errors and node/yauzl/geotiff types.
import type { GeoTIFF } from 'geotiff';

/**
 * The files of one SAFE product, whether an unpacked `.SAFE` folder or a `.zip`.
 * Paths are relative to the SAFE root, posix style: `annotation/s1a-…-vv-….xml`.
 */
export interface SafeContainer {
  /** Folder or zip path as given. */
  readonly location: string;
  /** `S1A_IW_GRDH_…` without `.SAFE`. */
  readonly productName: string;
  /** Relative paths of every file (no directories). */
  files(): string[];
  readText(relativePath: string): Promise<string>;
  openTiff(relativePath: string): Promise<GeoTIFF>;
  close(): Promise<void>;
}
