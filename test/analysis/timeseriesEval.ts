// Moved to eval/scoring/timeseriesEval.ts (eval must not import from test/); tests keep importing it from here.
export * from '../../eval/scoring/timeseriesEval.ts';
