import { describe, expect, it } from 'vitest';
import { onSegment, orient, pointInRing, RingLocator, segmentRelation } from '../../src/geo/predicates.ts';
import type { Position } from '../../src/geo/types.ts';

describe('orient', () => {
  it('gives the sign of the turn', () => {
    expect(orient([0, 0], [1, 0], [0, 1])).toBe(1);
    expect(orient([0, 0], [1, 0], [0, -1])).toBe(-1);
    expect(orient([0, 0], [1, 0], [2, 0])).toBe(0);
  });

  it('is exact where the naive floating-point determinant has the wrong sign', () => {
    // Kettner et al., "Classroom examples of robustness problems in geometric computations":
    // p a few ulps above the line y = x through q and r.
    const u = 2 ** -53;
    const p: Position = [0.5 + 41 * u, 0.5 + 48 * u];
    const q: Position = [12, 12];
    const r: Position = [24, 24];
    const naive = (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]);
    expect(Math.sign(naive)).toBe(-1);
    // p.y > p.x, so p lies left of q → r: counter-clockwise.
    expect(orient(p, q, r)).toBe(1);
    expect(orient(q, r, p)).toBe(1);
    expect(orient([0.5 + 41 * u, 0.5 + 41 * u], q, r)).toBe(0);
  });

  it('is antisymmetric and cyclic on near-degenerate inputs', () => {
    const a: Position = [12.345678, 45.000001];
    const b: Position = [12.345679, 45.000002];
    const c: Position = [12.34568, 45.000003];
    expect(orient(a, b, c)).toBe(orient(b, c, a));
    expect(orient(a, b, c)).toBe(-orient(b, a, c));
  });
});

describe('segmentRelation', () => {
  it('none for disjoint segments', () => {
    expect(segmentRelation([0, 0], [1, 0], [0, 1], [1, 1])).toBe('none');
    expect(segmentRelation([0, 0], [1, 0], [2, 0], [3, 0])).toBe('none');
  });
  it('cross for a proper crossing', () => {
    expect(segmentRelation([0, 0], [2, 2], [0, 2], [2, 0])).toBe('cross');
  });
  it('touch when an endpoint lies on the other segment', () => {
    expect(segmentRelation([0, 0], [2, 0], [1, 0], [1, 1])).toBe('touch');
    expect(segmentRelation([0, 0], [1, 0], [1, 0], [2, 5])).toBe('touch');
    expect(segmentRelation([0, 0], [1, 0], [1, 0], [2, 0])).toBe('touch');
  });
  it('overlap for collinear segments sharing a stretch', () => {
    expect(segmentRelation([0, 0], [2, 0], [1, 0], [3, 0])).toBe('overlap');
    expect(segmentRelation([0, 0], [0, 2], [0, 1], [0, -1])).toBe('overlap');
  });
});

describe('pointInRing / onSegment', () => {
  const square: Position[] = [
    [0, 0],
    [4, 0],
    [4, 4],
    [0, 4],
    [0, 0],
  ];
  it('inside, outside and boundary', () => {
    expect(pointInRing([2, 2], square)).toBe(1);
    expect(pointInRing([5, 2], square)).toBe(-1);
    expect(pointInRing([4, 2], square)).toBe(0);
    expect(pointInRing([0, 0], square)).toBe(0);
    expect(pointInRing([2, 4], square)).toBe(0);
    expect(pointInRing([-1, 4], square)).toBe(-1);
  });
  it('does not depend on winding order', () => {
    const reversed = square.slice().reverse();
    expect(pointInRing([2, 2], reversed)).toBe(1);
    expect(pointInRing([5, 2], reversed)).toBe(-1);
  });
  it('onSegment is inclusive of endpoints', () => {
    expect(onSegment([1, 1], [0, 0], [2, 2])).toBe(true);
    expect(onSegment([2, 2], [0, 0], [2, 2])).toBe(true);
    expect(onSegment([3, 3], [0, 0], [2, 2])).toBe(false);
  });
});

describe('RingLocator', () => {
  it('answers exactly like pointInRing', () => {
    // A star with 400 spikes, probed on a grid that hits vertices and edges exactly.
    const star: Position[] = [];
    for (let i = 0; i < 800; i++) {
      const a = (2 * Math.PI * i) / 800;
      const r = i % 2 === 0 ? 1 : 0.8;
      star.push([Math.round(r * Math.cos(a) * 1e4) / 1e4, Math.round(r * Math.sin(a) * 1e4) / 1e4]);
    }
    star.push(star[0]!);
    const locator = new RingLocator(star);
    const probes: Position[] = [...star.slice(0, 50), [0, 0], [2, 0], [0, -1.5]];
    for (let x = -1.1; x <= 1.1; x += 0.05) for (let y = -1.1; y <= 1.1; y += 0.05) probes.push([x, y]);
    for (let i = 0; i < 50; i++) {
      const a = star[i]!;
      const b = star[i + 1]!;
      probes.push([(a[0] + b[0]) / 2, (a[1] + b[1]) / 2]);
    }
    let inside = 0;
    for (const p of probes) {
      const expected = pointInRing(p, star);
      expect(locator.locate(p)).toBe(expected);
      if (expected === 1) inside++;
    }
    expect(inside).toBeGreaterThan(100);
  });
});
