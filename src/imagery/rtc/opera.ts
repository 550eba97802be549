/**
 * OPERA RTC-S1 identification, from the GDAL metadata tags when the file carries them
 * (full products do) and from the file name otherwise (cropped test stacks keep only the
 * name): OPERA_L2_RTC-S1_T137-292318-IW1_20231203T015904Z_20231203T124004Z_S1A_30_v1.0_VV.tif
 */
export interface OperaMetadata {
  /** Zero-Doppler start of the burst, ISO 8601 UTC. */
  acquisitionTime: string | null;
  /** Relative orbit (track) number. */
  track: number | null;
  /** `T137-292318-IW1`. */
  burstId: string | null;
  /** `VV`, `VH`, `HH`, `HV`. */
  polarization: string | null;
  /** `S1A`, `S1B`, … */
  platform: string | null;
  orbitPassDirection: 'ascending' | 'descending' | null;
  productVersion: string | null;
  /** Where the values came from. */
  source: 'tags' | 'filename' | 'tags+filename';
}

const FILE = /OPERA_L2_RTC-S1_(T\d{3}-\d{6}-IW[1-3])_(\d{8}T\d{6}Z)_(\d{8}T\d{6}Z)_(S1[A-D])_(\d+)_v([\d.]+)_(VV|VH|HH|HV)/i;

function compactToIso(t: string): string {
  // 20231203T015904Z → 2023-12-03T01:59:04Z
  return `${t.slice(0, 4)}-${t.slice(4, 6)}-${t.slice(6, 8)}T${t.slice(9, 11)}:${t.slice(11, 13)}:${t.slice(13, 15)}Z`;
}

function fromFileName(name: string): Omit<OperaMetadata, 'source'> | null {
  const m = FILE.exec(name);
  if (!m) return null;
  const burstId = m[1]!.toUpperCase();
  return {
    acquisitionTime: compactToIso(m[2]!),
    track: Number.parseInt(burstId.slice(1, 4), 10),
    burstId,
    polarization: m[7]!.toUpperCase(),
    platform: m[4]!.toUpperCase(),
    orbitPassDirection: null,
    productVersion: m[6]!,
  };
}

function fromTags(tags: Record<string, string>, bandDescription: string | null): Omit<OperaMetadata, 'source'> | null {
  if (tags.PROJECT !== 'OPERA' && !tags.PRODUCT_TYPE?.startsWith('RTC-S1')) return null;
  const burst = tags.BURST_ID?.toUpperCase().replace(/_/g, '-') ?? null;
  const layer = `${tags.LAYER_NAME ?? ''} ${bandDescription ?? ''}`;
  const pol = /\b(VV|VH|HH|HV)\b/i.exec(layer)?.[1]?.toUpperCase() ?? null;
  const platform = /Sentinel-1([A-D])/i.exec(tags.PLATFORM ?? '')?.[1];
  const pass = tags.ORBIT_PASS_DIRECTION?.toLowerCase();
  const track = tags.TRACK_NUMBER ? Number.parseInt(tags.TRACK_NUMBER, 10) : Number.NaN;
  return {
    acquisitionTime: tags.ZERO_DOPPLER_START_TIME ?? null,
    track: Number.isFinite(track) ? track : null,
    burstId: burst,
    polarization: pol,
    platform: platform ? `S1${platform.toUpperCase()}` : null,
    orbitPassDirection: pass === 'ascending' || pass === 'descending' ? pass : null,
    productVersion: tags.PRODUCT_VERSION ?? null,
  };
}

export function operaMetadata(fileName: string, tags: Record<string, string>, bandDescription: string | null): OperaMetadata | null {
  const a = fromTags(tags, bandDescription);
  const b = fromFileName(fileName);
  if (!a && !b) return null;
  if (!a) return { ...b!, source: 'filename' };
  if (!b) return { ...a, source: 'tags' };
  const merged = { ...b };
  for (const key of Object.keys(a) as (keyof typeof a)[]) {
    if (a[key] !== null) (merged as Record<string, unknown>)[key] = a[key];
  }
  return { ...merged, source: 'tags+filename' };
}
