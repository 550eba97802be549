// The held-out check of oil models (training/oilslick/heldOut.ts) decides on candidates detected
// without a model; its decision must be the engine's, or its figures say nothing about the service.
import { describe, expect, it } from 'vitest';
import { detectSlicksInRaster, resolveOilSlickParams } from '../../src/analysis/oilslick/index.ts';
import { loadOilModel } from '../../src/analysis/oilslick/model.ts';
import { generateOutlineScene, OUTLINE_SCENE_INCIDENCE_DEG } from '../../training/oilslick/outlineScene.ts';
import { decide, evalScenes, heldOutScenes } from '../../training/oilslick/heldOut.ts';
import { GENERATED_VARIANTS } from '../../training/oilslick/generated.ts';

describe('oil held-out check', () => {
  it('decides as the engine does: slicks, fragments and probabilities, with the vetoes and without', () => {
    const model = loadOilModel()!;
    // A broken slick and a low-wind patch (the outline generator, 5.5 m/s): with the service's
    // vetoes one slick and four rejected candidates, without them a vetoed part joins as a fragment.
    const { input } = generateOutlineScene(7004, 5.5);
    const m = resolveOilSlickParams().multilook;
    const spacing = { range: input.pixelSpacing.range * m, azimuth: input.pixelSpacing.azimuth * m };
    const bare = detectSlicksInRaster(input, resolveOilSlickParams({ minOilProbability: 1, vetoRules: [] }), { incidenceDeg: OUTLINE_SCENE_INCIDENCE_DEG, model });
    const runs = [resolveOilSlickParams().vetoRules, []].map((vetoRules) => {
      const engine = detectSlicksInRaster(input, resolveOilSlickParams({ vetoRules }), { incidenceDeg: OUTLINE_SCENE_INCIDENCE_DEG, model });
      const ours = decide(bare, model, vetoRules, spacing);
      expect(ours.map((c) => [c.isSlick, c.fragmentOf, c.oilProbability])).toEqual(engine.map((c) => [c.isSlick, c.fragmentOf, c.oilProbability]));
      return engine;
    });
    // Not a vacuous comparison: slicks, fragments, vetoed and rejected candidates are all there.
    const [withVetoes, alone] = runs as [typeof bare, typeof bare];
    expect(withVetoes.some((c) => c.isSlick && c.fragmentOf === null)).toBe(true);
    expect(withVetoes.some((c) => !c.isSlick)).toBe(true);
    expect(alone.some((c) => c.fragmentOf !== null)).toBe(true);
    expect(withVetoes.filter((c) => c.isSlick).length).toBeLessThan(alone.filter((c) => c.isSlick).length);
  });

  it('uses scenes of no other seed than its own: neither the evaluation’s nor the training mix’s', () => {
    const held = heldOutScenes();
    expect(held.every((s) => s.variant > GENERATED_VARIANTS)).toBe(true);
    expect(new Set(held.map((s) => `${s.set}-${s.variant}`)).size).toBe(held.length);
    expect(evalScenes().every((s) => s.variant === 0)).toBe(true);
    expect(held.filter((s) => s.set === 'sea' && s.wind === 9).length).toBe(12);
  });
});
