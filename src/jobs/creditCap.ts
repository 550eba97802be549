/**
 * Spending caps (`max_credits` on a submission): the most a job may cost. Checked against the
 * estimate at submission (400) and the preview (`exceeds_max_credits`), and again when the
 * job runs — on the selected imagery's area before the analysis and on the measured area
 * before the result is kept — where a job that would cost more fails CREDIT_CAP_EXCEEDED,
 * uncharged. Prices or the catalog may have changed since submission; the cap still holds.
 */
import { JobFailure } from '../contract/errors.ts';
import { fromMicros, priceMicros } from './credits.ts';

/** The cap in micro-credits: rounded down, so a cap never allows more than was asked. */
export function capMicros(maxCredits: number): number {
  return Math.floor(maxCredits * 1_000_000 + 1e-6);
}

/** CREDIT_CAP_EXCEEDED when `areaSqkm` at `pricePerSqkm` costs more than the job's cap; null otherwise (or without a cap). */
export function creditCapFailure(maxCreditsMicros: number | null, areaSqkm: number, pricePerSqkm: number): JobFailure | null {
  if (maxCreditsMicros === null) return null;
  const cost = priceMicros(areaSqkm, pricePerSqkm);
  if (cost <= Number(maxCreditsMicros)) return null;
  return new JobFailure(
    'CREDIT_CAP_EXCEEDED',
    `the analysed area of ${round(areaSqkm)} km² would cost ${fromMicros(cost)} credits, more than max_credits ${fromMicros(maxCreditsMicros)}; the job was not charged`,
  );
}

const round = (x: number) => Math.round(x * 1000) / 1000;
