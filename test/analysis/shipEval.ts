// Moved to eval/scoring/shipEval.ts (eval must not import from test/); tests keep importing it from here.
export * from '../../eval/scoring/shipEval.ts';
