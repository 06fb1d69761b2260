/**
 * `--from-stack NAME` (plan, apply): the one other stack whose objects this run may move into
 * the current stack (engine steps/stacks.ts). It has no environment variable on purpose: a
 * variable left set in a pipeline would keep taking objects over; a move is a one-off command.
 */
import { Flags } from '@oclif/core';
import { acquireLock, type AcquireOptions, type HeldLock, type LiveApi } from '@gatehouse/engine';
import { CliError } from './errors.js';

export const fromStackFlag = {
  'from-stack': Flags.string({
    description: 'move objects of this other stack into --stack: adopt: <id> of its objects, and its objects with the same kind and name as a manifest (renames a stack)',
    helpGroup: 'CONNECTION',
  }),
};

/** The engine's `fromStack` for the flag's value; an empty value or the stack itself is an error. */
export function fromStackOption(value: string | undefined, stack: string): { fromStack?: string } {
  if (value === undefined) return {};
  if (value.trim() === '') throw new CliError('bad_from_stack', '--from-stack is empty; name the stack to move objects from, or leave the flag out');
  if (value === stack) throw new CliError('bad_from_stack', `--from-stack names the stack being planned ("${stack}"); name the other stack that owns the objects to move`);
  return { fromStack: value };
}

/**
 * The locks apply holds: its own stack's and, with `--from-stack`, the other stack's too, so
 * that no apply of that stack writes the objects being moved at the same time. Taken in that
 * order (each fails at once, or after --lock-timeout, naming its holder); released together.
 */
export async function acquireStackLocks(api: LiveApi, stack: string, fromStack: string | undefined, options: AcquireOptions): Promise<HeldLock> {
  const own = await acquireLock(api, stack, options);
  if (fromStack === undefined) return own;
  let other: HeldLock;
  try {
    other = await acquireLock(api, fromStack, options);
  } catch (error) {
    await own.release().catch(() => undefined);
    throw error;
  }
  return {
    ...own,
    async release() {
      const results = await Promise.allSettled([other.release(), own.release()]);
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
    },
  };
}
