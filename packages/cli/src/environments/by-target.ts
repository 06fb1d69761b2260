/**
 * Environments at once, one budget at a time: `plan --env all` and `drift --env all` read
 * every environment's API together when their targets differ (another URL or another key is
 * another account, with a budget of its own), so the whole takes about as long as the slowest
 * environment. Environments that share a target share its budget: they run one after another,
 * in gatehouse.yaml's order, so that one does not starve the other into 429s. Results come back
 * in the environments' order, whatever finishes first.
 */
import type { ConnectionFlagValues } from '../connection/flags.js';
import { resolveTarget } from '../connection/connect.js';

/**
 * What identifies a budget: the API URL and key (the embedded server has one database and no
 * budget, but environments on it share the database: one after another too). The target is
 * checked as connecting checks it (`resolveTarget`): its `CliError` (an empty variable, CI
 * without a URL, a URL that is not http(s)) comes before anything is read or sent.
 */
export function budgetKey(flags: ConnectionFlagValues, env: NodeJS.ProcessEnv = process.env): string {
  const target = resolveTarget(flags, env);
  if (target.mode === 'embedded') return 'embedded';
  return JSON.stringify([normalUrl(target.url), target.key]);
}

/** The URL as the client resolves it (`https://API.example.com/` and `https://api.example.com` are one target). */
function normalUrl(url: string): string {
  try {
    return new URL(url).href.replace(/\/$/, '');
  } catch {
    return url;
  }
}

/**
 * Runs `work` on every item: items of different keys at the same time, items of one key one
 * after another in their order. Resolves with the results in the items' order. Once any work
 * has failed, none starts (the command fails: its requests would be spent for nothing); what
 * runs ends, then the first failure in the items' order is thrown.
 */
export async function byTarget<T, R>(items: readonly T[], keyOf: (item: T) => string, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const groups = new Map<string, number[]>();
  items.forEach((item, index) => {
    const key = keyOf(item);
    groups.set(key, [...(groups.get(key) ?? []), index]);
  });
  const settled: (PromiseSettledResult<R> | undefined)[] = new Array(items.length);
  let failing = false;
  await Promise.all(
    [...groups.values()].map(async (indexes) => {
      for (const index of indexes) {
        if (failing) return;
        settled[index] = await work(items[index]!, index).then(
          (value): PromiseFulfilledResult<R> => ({ status: 'fulfilled', value }),
          (reason: unknown): PromiseRejectedResult => {
            failing = true;
            return { status: 'rejected', reason };
          },
        );
      }
    }),
  );
  const failed = settled.find((s): s is PromiseRejectedResult => s?.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<R>).value);
}
