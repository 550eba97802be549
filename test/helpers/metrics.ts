/** Reading a Prometheus text page in tests: one sample's value, and scraping until a condition holds. */
import { pollUntil } from './pollUntil.ts';

/** The value of the sample `name{labels}` (labels exactly as prom-client prints them), or undefined. */
export function sample(text: string, name: string, labels: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/**
 * GET `url` until `ok(text)` holds (within pollUntil's deadline). The runner counts a job after
 * its completion or failure committed: on PostgreSQL another connection (the API's GET of the
 * job) can read the committed row before the runner's connection has heard the commit, so a
 * scrape right after the job ended may miss it.
 */
export function scrapeUntil(url: string, ok: (text: string) => boolean): Promise<{ res: Response; text: string }> {
  return pollUntil(
    async () => {
      const res = await fetch(url);
      return { res, text: await res.text() };
    },
    (x) => ok(x.text),
    `the metrics at ${url}`,
  );
}
