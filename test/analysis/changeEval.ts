// Moved to eval/scoring/changeEval.ts (eval must not import from test/); tests keep importing it from here.
export * from '../../eval/scoring/changeEval.ts';
