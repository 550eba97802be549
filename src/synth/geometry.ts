/**
 * Imaging geometry of a synthetic GRD product: where each (line, pixel) lies on the ground
 * and at which incidence angle it is seen.
 *
 * - Lines run along the flight direction (platform heading), pixels along the look
 *   direction 90° to the right of it (Sentinel-1 looks right): for an ascending pass line 0
 *   is the southern edge and pixels grow towards east-north-east; for a descending pass
 *   line 0 is the northern edge and pixels grow towards west-north-west — as in real GRDs.
 * - Ground range is uniform (10 m GRD spacing). Incidence comes from a spherical Earth and a
 *   698 km orbit: with the near edge at 30.14° a 26,316-pixel swath ends at 46.08°, and the
 *   IW1/IW2 and IW2/IW3 boundaries of the real North-Sea product (pixels 9058, 17872) fall
 *   at 36.26° and 41.56° (annotated: 36.22°, 41.50°).
 * - Metres east/north of the scene centre become latitude and longitude with the WGS84
 *   radii of curvature, longitude scaled by cos(latitude) of the point itself, so the grid
 *   converges towards the pole like a real one; a small along-track shear (zero-Doppler
 *   lines are not exactly perpendicular to the ground track) makes it a parallelogram.
 *
 * Integer (line, pixel) is the centre of that pixel, as in the annotation.
 */
import {
  EARTH_RADIUS_M,
  ORBIT_ALTITUDE_M,
  SPEED_OF_LIGHT,
  platformHeading,
  type PassDirection,
} from './orbit.ts';

const DEG = Math.PI / 180;
const WGS84_A = 6_378_137;
const WGS84_E2 = 6.69437999014e-3;

export interface GrdGeometrySpec {
  /** Scene centre (lon, lat), degrees. */
  center: [number, number];
  width: number;
  height: number;
  passDirection: PassDirection;
  /** Incidence angle at pixel 0 (degrees). Default 30.14 (the near edge of IW1). */
  nearIncidenceDeg?: number;
  /** Ground range and azimuth pixel spacing (m). Default 10 (IW GRDH). */
  rangeSpacing?: number;
  azimuthSpacing?: number;
  /** Along-track shear (metres along track per metre across). Default 0.004. */
  shear?: number;
}

export interface GroundPoint {
  lon: number;
  lat: number;
}

export class GrdGeometry {
  readonly width: number;
  readonly height: number;
  readonly passDirection: PassDirection;
  readonly lon0: number;
  readonly lat0: number;
  /** Platform heading, degrees clockwise from north. */
  readonly headingDeg: number;
  /** Azimuth of the look direction (heading + 90°). */
  readonly lookAzimuthDeg: number;
  readonly rangeSpacing: number;
  readonly azimuthSpacing: number;
  readonly nearIncidenceDeg: number;
  /** Ground range from nadir of pixel 0 (m). */
  readonly nearGroundRange: number;
  private readonly shear: number;
  private readonly sinH: number;
  private readonly cosH: number;
  private readonly lineCenter: number;
  private readonly pixelCenter: number;
  /** Meridional radius of curvature at the centre (m per radian of latitude). */
  private readonly meridionalRadius: number;
  /** Prime-vertical radius of curvature at the centre. */
  private readonly primeVerticalRadius: number;
  private readonly earthRadius: number;
  private readonly orbitRadius: number;

  constructor(spec: GrdGeometrySpec) {
    this.width = spec.width;
    this.height = spec.height;
    this.passDirection = spec.passDirection;
    [this.lon0, this.lat0] = spec.center;
    this.headingDeg = platformHeading(this.lat0, spec.passDirection);
    this.lookAzimuthDeg = this.headingDeg + 90;
    this.rangeSpacing = spec.rangeSpacing ?? 10;
    this.azimuthSpacing = spec.azimuthSpacing ?? 10;
    this.shear = spec.shear ?? 0.004;
    this.sinH = Math.sin(this.headingDeg * DEG);
    this.cosH = Math.cos(this.headingDeg * DEG);
    this.lineCenter = (this.height - 1) / 2;
    this.pixelCenter = (this.width - 1) / 2;
    const s = Math.sin(this.lat0 * DEG);
    const w = Math.sqrt(1 - WGS84_E2 * s * s);
    this.primeVerticalRadius = WGS84_A / w;
    this.meridionalRadius = (WGS84_A * (1 - WGS84_E2)) / (w * w * w);
    this.earthRadius = Math.sqrt(this.meridionalRadius * this.primeVerticalRadius);
    this.orbitRadius = this.earthRadius + ORBIT_ALTITUDE_M;
    this.nearIncidenceDeg = spec.nearIncidenceDeg ?? 30.14;
    this.nearGroundRange = this.groundRangeForIncidence(this.nearIncidenceDeg);
  }

  /** Incidence (degrees) and look angle (off nadir) at a ground range from nadir. */
  private angles(groundRange: number): { incidence: number; look: number; slantRange: number } {
    const beta = groundRange / this.earthRadius;
    const R = this.earthRadius;
    const Rs = this.orbitRadius;
    const slantRange = Math.sqrt(Rs * Rs + R * R - 2 * Rs * R * Math.cos(beta));
    const look = Math.asin((R * Math.sin(beta)) / slantRange);
    return { incidence: (look + beta) / DEG, look: look / DEG, slantRange };
  }

  private groundRangeForIncidence(incidenceDeg: number): number {
    let lo = 0;
    let hi = 2_000_000;
    for (let i = 0; i < 80; i++) {
      const mid = (lo + hi) / 2;
      if (this.angles(mid).incidence < incidenceDeg) lo = mid;
      else hi = mid;
    }
    return (lo + hi) / 2;
  }

  incidenceAngle(pixel: number): number {
    return this.angles(this.nearGroundRange + pixel * this.rangeSpacing).incidence;
  }

  elevationAngle(pixel: number): number {
    return this.angles(this.nearGroundRange + pixel * this.rangeSpacing).look;
  }

  slantRange(pixel: number): number {
    return this.angles(this.nearGroundRange + pixel * this.rangeSpacing).slantRange;
  }

  /** Two-way slant range time (s), as in the annotation. */
  slantRangeTime(pixel: number): number {
    return (2 * this.slantRange(pixel)) / SPEED_OF_LIGHT;
  }

  /** Metres east and north of the centre. */
  toLocal(line: number, pixel: number): { east: number; north: number } {
    const across = (pixel - this.pixelCenter) * this.rangeSpacing;
    const along = (line - this.lineCenter) * this.azimuthSpacing + this.shear * across;
    return {
      east: along * this.sinH + across * this.cosH,
      north: along * this.cosH - across * this.sinH,
    };
  }

  /** (line, pixel) of a point given in metres east/north of the centre. */
  fromLocal(east: number, north: number): { line: number; pixel: number } {
    const along = east * this.sinH + north * this.cosH;
    const across = east * this.cosH - north * this.sinH;
    return {
      line: this.lineCenter + (along - this.shear * across) / this.azimuthSpacing,
      pixel: this.pixelCenter + across / this.rangeSpacing,
    };
  }

  pixelToLonLat(line: number, pixel: number): GroundPoint {
    const { east, north } = this.toLocal(line, pixel);
    const lat = this.lat0 + north / this.meridionalRadius / DEG;
    const lon = this.lon0 + east / (this.primeVerticalRadius * Math.cos(lat * DEG)) / DEG;
    return { lon, lat };
  }

  lonLatToPixel(lon: number, lat: number): { line: number; pixel: number } {
    const north = (lat - this.lat0) * DEG * this.meridionalRadius;
    const east = (lon - this.lon0) * DEG * this.primeVerticalRadius * Math.cos(lat * DEG);
    return this.fromLocal(east, north);
  }

  /** Unit vector of a compass bearing in image axes: lines and pixels per metre. */
  bearingToImage(bearingDeg: number): { dLine: number; dPixel: number } {
    const e = Math.sin(bearingDeg * DEG);
    const n = Math.cos(bearingDeg * DEG);
    const along = e * this.sinH + n * this.cosH;
    const across = e * this.cosH - n * this.sinH;
    return { dLine: along / this.azimuthSpacing, dPixel: across / this.rangeSpacing };
  }

  /** The four corners in the manifest's order: last line near/far, first line far/near. */
  corners(): GroundPoint[] {
    const l = this.height - 1;
    const p = this.width - 1;
    return [this.pixelToLonLat(l, 0), this.pixelToLonLat(l, p), this.pixelToLonLat(0, p), this.pixelToLonLat(0, 0)];
  }
}
