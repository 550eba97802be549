/**
 * Member files of a SAFE product are named
 * `s1a-iw-grd-vv-20220612t173329-20220612t173354-043633-05359a-001.xml`:
 * mission, swath, product type, polarisation, start, stop, orbit, data take, image number.
 * The image number differs between members of one band in real products (the North-Sea
 * sample's measurement is `-002` while its annotation is `-001`), so members are matched
 * by swath + polarisation only.
 */
export interface MemberName {
  mission: string;
  swath: string;
  productType: string;
  polarisation: string;
  imageNumber: string;
}

const MEMBER = /^(?:calibration-|noise-|rfi-)?(s1[a-d])-([a-z]{2}[0-9]?|s[1-6])-([a-z]{3})-([hv]{2})-[0-9t]{15}-[0-9t]{15}-[0-9]{6}-[0-9a-f]{6}-([0-9]{3})\.(?:xml|tiff?)$/i;

export function parseMemberName(fileName: string): MemberName | null {
  const base = fileName.split('/').pop() ?? fileName;
  const m = MEMBER.exec(base);
  if (!m) return null;
  return {
    mission: m[1]!.toUpperCase(),
    swath: m[2]!.toUpperCase(),
    productType: m[3]!.toUpperCase(),
    polarisation: m[4]!.toUpperCase(),
    imageNumber: m[5]!,
  };
}

export function bandKey(name: Pick<MemberName, 'swath' | 'polarisation'>): string {
  return `${name.swath}-${name.polarisation}`;
}

export type MemberKind = 'annotation' | 'calibration' | 'noise' | 'measurement';

/** Which role a relative path plays, by folder and prefix (rfi and others: null). */
export function memberKind(relativePath: string): MemberKind | null {
  const p = relativePath.toLowerCase();
  if (/^measurement\/[^/]+\.tiff?$/.test(p)) return 'measurement';
  if (/^annotation\/calibration\/calibration-[^/]+\.xml$/.test(p)) return 'calibration';
  if (/^annotation\/calibration\/noise-[^/]+\.xml$/.test(p)) return 'noise';
  if (/^annotation\/s1[a-d]-[^/]+\.xml$/.test(p)) return 'annotation';
  return null;
}
