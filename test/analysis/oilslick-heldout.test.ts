// The held-out check of oil models (training/oilslick/heldOut.ts) decides on candidates detected
// without a model; its decision must be the engine's, or its figures say nothing about the service.
import { describe, expect, it } from 'vitest';
import { detectSlicksInRaster, resolveOilSlickParams } from '../../src/analysis/oilslick/index.ts';
import { loadOilModel } from '../../src/analysis/oilslick/model.ts';
import { generateOutlineScene, OUTLINE_SCENE_INCIDENCE_DEG } from '../../training/oilslick/outlineScene.ts';
import { basicEvalScenes, decide, evalScenes, freshScenes, heldOutScenes } from '../../training/oilslick/heldOut.ts';
import { generatedScenes, generatedSceneSpec } from '../../training/oilslick/generated.ts';

describe('oil held-out check', () => {
  it('decides as the engine does: slicks, fragments and probabilities, with the vetoes and without', () => {
    const model = loadOilModel()!;
    // A broken slick and a low-wind patch (the outline generator, 5.5 m/s). The service's vetoes
    // (`low_wind` only since candidate G) fire on nothing at 5.5 m/s: two slicks and a fragment, as
    // without vetoes. With the decision before G (`low_wind`, `compact_shape`) one slick and four
    // rejected candidates: the vetoed parts neither report nor join as fragments.
    const { input } = generateOutlineScene(7004, 5.5);
    const m = resolveOilSlickParams().multilook;
    const spacing = { range: input.pixelSpacing.range * m, azimuth: input.pixelSpacing.azimuth * m };
    const bare = detectSlicksInRaster(input, resolveOilSlickParams({ minOilProbability: 1, vetoRules: [] }), { incidenceDeg: OUTLINE_SCENE_INCIDENCE_DEG, model });
    expect(resolveOilSlickParams().vetoRules).toEqual(['low_wind']);
    const runs = [resolveOilSlickParams().vetoRules, [], resolveOilSlickParams({ vetoRules: ['low_wind', 'compact_shape'] }).vetoRules].map((vetoRules) => {
      const engine = detectSlicksInRaster(input, resolveOilSlickParams({ vetoRules }), { incidenceDeg: OUTLINE_SCENE_INCIDENCE_DEG, model });
      const ours = decide(bare, model, vetoRules, spacing);
      expect(ours.map((c) => [c.isSlick, c.fragmentOf, c.oilProbability])).toEqual(engine.map((c) => [c.isSlick, c.fragmentOf, c.oilProbability]));
      return engine;
    });
    // Not a vacuous comparison: slicks, fragments, vetoed and rejected candidates are all there.
    const [withVetoes, alone, before] = runs as [typeof bare, typeof bare, typeof bare];
    const count = (r: typeof bare) => [r.filter((c) => c.isSlick && c.fragmentOf === null).length, r.filter((c) => c.fragmentOf !== null).length, r.filter((c) => !c.isSlick).length];
    expect(count(withVetoes)).toEqual([2, 1, 2]);
    expect(count(alone)).toEqual([2, 1, 2]);
    expect(count(before)).toEqual([1, 0, 4]);
  });

  it('uses scenes of no other seed than its own: neither the evaluation’s nor the training mix’s', () => {
    const held = heldOutScenes();
    const fresh = freshScenes();
    const seedOf = (s: Parameters<typeof generatedSceneSpec>[0]) => `${s.set === 'basic' ? 'basic' : 'hard'}:${generatedSceneSpec(s).seed}`;
    // The committed model's mix (candidate G) is the fifth pass's, on by default (OIL_MIX_FIFTH=0 / OIL_MIX_FAST_DROP=0 leave parts out).
    expect(generatedScenes()).toEqual(generatedScenes({ fifth: true, fastDrop: true }));
    expect(generatedScenes({ fifth: false, fastDrop: false }).length).toBeLessThan(generatedScenes().length);
    const training = new Set(generatedScenes({ fifth: true, fastDrop: true }).map(seedOf));
    const evaluation = new Set([...evalScenes(), ...basicEvalScenes()].map(seedOf));
    for (const set of [held, fresh]) {
      expect(new Set(set.map(seedOf)).size).toBe(set.length);
      for (const s of set) expect(training.has(seedOf(s)) || evaluation.has(seedOf(s)), seedOf(s)).toBe(false);
    }
    // The fresh scenes share no seed with the first held-out check's either.
    const first = new Set(held.map(seedOf));
    expect(fresh.some((s) => first.has(seedOf(s)))).toBe(false);
    expect(evalScenes().every((s) => s.variant === 0)).toBe(true);
    expect(held.filter((s) => s.set === 'sea' && s.wind === 9).length).toBe(12);
    expect(fresh.filter((s) => s.set === 'basic').length).toBe(12);
    // The evaluation's basic scenes are eval/run.ts slickScene's seeds 8200 … 8203 (their calm-3-2 is the third's).
    expect(basicEvalScenes().map((s) => generatedSceneSpec(s).seed)).toEqual([8200, 8201, 8202, 8203]);
    expect(generatedSceneSpec(basicEvalScenes()[2]!).lowWind!.map((p) => [p.id, p.lengthM, p.minSpeed])).toEqual([['calm-3-1', 7722, 1.9], ['calm-3-2', 3076, 0.6]]);
  });
});
