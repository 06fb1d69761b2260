/**
 * Work of a plan that depends on the manifests alone, done while the last pages of the listing
 * are still out (engine.ts, `readAndMatch`): the main thread would only wait for them there, and
 * what it computes then is not computed after the last page, where matching and planning are
 * all that stands between the answers and the user.
 *
 * What is done ahead is exactly what the plan computes later, kept where the plan finds it: each
 * object's address (built once, when first read) and the hashes `desiredHash` keeps (objects that
 * reference nothing). Nothing else changes: a listing that ends first stops the work, and the
 * rest is computed when needed, as before.
 */
import type { DesiredObject } from '../desired.js';
import { desiredHash, hashKept } from './plan.js';

/** Objects prepared in one turn of the event loop (well under a millisecond of work). */
const OBJECTS_PER_STEP = 64;

/** The work ahead, in steps: each `next()` prepares a few objects. */
export function* prepareAhead(desired: readonly DesiredObject[]): Generator<void, void> {
  for (let i = 0; i < desired.length; i++) {
    const d = desired[i]!;
    void d.address;
    // Only the hashes desiredHash keeps: the others depend on live ids.
    if (hashKept(d)) desiredHash(d);
    if ((i + 1) % OBJECTS_PER_STEP === 0) yield;
  }
}

/**
 * `pending`, after running `steps` one at a time, each in a turn of the event loop of its own
 * (I/O callbacks, the listing's answers among them, run between two), until `pending` settles
 * or the steps end.
 */
export async function workWhileWaiting<T>(pending: Promise<T>, steps: Generator<void, void>): Promise<T> {
  let settled = false;
  const settle = () => {
    settled = true;
  };
  pending.then(settle, settle);
  // A promise already settled says so before this turn of the microtask queue ends.
  await undefined;
  while (!settled) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (settled || steps.next().done) break;
  }
  return pending;
}
