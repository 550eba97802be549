/**
 * idlefarm: the uploaded fields' season over the selected series (src/analysis/idlefarm),
 * written as result.zip. analyze family: RTC γ0; detect family: GRD σ0 geocoded onto one UTM
 * grid over the fields. A period whose series cannot decide any field (fewer than
 * MIN_VALID_DATES dates, or spanning less than MIN_SPAN_DAYS) fails NO_SCENE_FOUND, uncharged;
 * a field that alone lacks valid dates gets `idle: null` with its reason.
 */
import { JobFailure } from '../../contract/errors.ts';
import { MIN_SPAN_DAYS, MIN_VALID_DATES, runIdlefarm } from '../idlefarm/index.ts';
import { idlefarmSources } from './idlefarmSources.ts';
import type { AnalysisModule } from '../port.ts';
import { asImageryFailure } from './sceneInput.ts';

const DAY_MS = 86_400_000;

export const idlefarmModule: AnalysisModule = {
  endpointId: 'idlefarm',
  async run(request, ctx) {
    const input = request.input;
    if (input.kind !== 'series') throw new JobFailure('PROCESSING_ERROR', `idlefarm needs a series of scenes, got ${input.kind}`);
    if (!request.upload) throw new JobFailure('VALIDATION_ERROR', 'idlefarm needs polygon_id, the uploaded fields');
    const dates = [...new Set(input.scenes.map((s) => s.startTime.slice(0, 10)))].sort();
    const spanDays = dates.length ? (Date.parse(dates.at(-1)!) - Date.parse(dates[0]!)) / DAY_MS : 0;
    if (dates.length < MIN_VALID_DATES || spanDays < MIN_SPAN_DAYS) {
      throw new JobFailure(
        'NO_SCENE_FOUND',
        `the period holds ${dates.length} acquisition date(s) of one path/frame over ${Math.round(spanDays)} days; idlefarm needs at least ${MIN_VALID_DATES} dates spanning ${MIN_SPAN_DAYS} days. The job was not charged`,
      );
    }
    const fields = await request.upload.features();
    try {
      const out = await runIdlefarm({
        fields,
        scenes: idlefarmSources(request.family, input.scenes, fields),
        family: request.family,
        signal: ctx.signal,
        onProgress: (p) => ctx.reportProgress(p),
      });
      const s = out.summary;
      return { archive: out.zipBytes!, summary: `${s.fields} fields: ${s.idle} idle, ${s.cropped} cropped, ${s.undetermined} undetermined over ${s.dates} dates` };
    } catch (e) {
      throw asImageryFailure(e);
    }
  },
};
