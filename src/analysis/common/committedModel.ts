// A fitted model committed as JSON beside the code that uses it: read once per thread, and
// refused unless it was fitted on the features the code computes. Imports only node:fs.
import { readFileSync } from 'node:fs';

/**
 * A loader of the model at `url` (`what` names it in the error): parsed on first use and kept.
 * It throws, naming both feature lists and the script that refits it (`refit`), unless the
 * model's `featureNames(model)` are exactly `features`, in order.
 */
export function committedModel<M>(url: URL, what: string, featureNames: (model: M) => readonly string[], features: readonly string[], refit: string): () => M {
  let cached: M | undefined;
  return () => {
    if (cached) return cached;
    const model = JSON.parse(readFileSync(url, 'utf8')) as M;
    const names = featureNames(model);
    if (names.length !== features.length || names.some((n, i) => n !== features[i])) {
      throw new Error(`${what} was fitted on [${names.join(', ')}], the code computes [${features.join(', ')}]: refit (${refit})`);
    }
    return (cached = model);
  };
}
