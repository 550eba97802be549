/** The split the committed model was trained with: train.ts and eval/oilChips.ts share it. */
export const SPLIT_SEED = 11;
export const VALIDATION_FRACTION = 0.2;
