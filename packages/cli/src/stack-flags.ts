/**
 * `--from-stack NAME` (plan, apply): the one other stack whose objects this run may move into
 * the current stack (engine plan/stacks.ts). It has no environment variable on purpose: a
 * variable left set in a pipeline would keep taking objects over; a move is a one-off command.
 */
import { Flags } from '@oclif/core';
import { acquireLock, lockWhileReading, sanitize, type AcquireOptions, type ApiObject, type HeldLock, type LiveApi } from '@gatehouse/engine/core';
import { CliError } from './errors.js';

export const fromStackFlag = {
  'from-stack': Flags.string({
    description:
      'move objects of this other stack into --stack: adopt: <id> of its objects, and its objects with the same kind and name as a manifest (renames a stack)',
    helpGroup: 'CONNECTION',
  }),
};

/** Characters a stack name may not hold: controls (C0, DEL, C1) and the bidirectional overrides. */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/**
 * `--stack` (GATEHOUSE_STACK) as given, checked: a set but empty value or one with control
 * characters is an error, never a fallback (the name is written into every marker and the
 * lock's bot user name, and printed in every plan).
 */
export function checkStackName(stack: string): string {
  if (stack.trim() === '') throw new CliError('bad_stack', '--stack (or GATEHOUSE_STACK) is set but empty; name the stack, or unset it for "default"');
  if (UNPRINTABLE.test(stack)) throw new CliError('bad_stack', '--stack (or GATEHOUSE_STACK) holds control characters; use printable characters only');
  return stack;
}

/** The engine's `fromStack` for the flag's value; an empty value or the stack itself is an error. */
export function fromStackOption(value: string | undefined, stack: string): { fromStack?: string } {
  if (value === undefined) return {};
  if (value.trim() === '') throw new CliError('bad_from_stack', '--from-stack is empty; name the stack to move objects from, or leave the flag out');
  if (UNPRINTABLE.test(value)) throw new CliError('bad_from_stack', "--from-stack holds control characters; name the stack as its objects' plans print it");
  if (value === stack)
    throw new CliError('bad_from_stack', `--from-stack names the stack being planned ("${stack}"); name the other stack that owns the objects to move`);
  return { fromStack: value };
}

/**
 * The warnings of a stack's lock, said through `warn`: a renewal that failed (tried again) and
 * a release that failed (the lock stays until `gatehouse unlock` or its lease ends).
 */
export function lockWarnings(stack: string, warn: (message: string) => void): Required<Pick<AcquireOptions, 'onRenewalError' | 'onReleaseError'>> {
  const name = sanitize(stack);
  const reason = (error: unknown) => sanitize(error instanceof Error ? error.message : String(error));
  return {
    onRenewalError: (error) => warn(`could not renew the lock of stack "${name}" (trying again): ${reason(error)}`),
    onReleaseError: (error) => warn(`could not release the lock of stack "${name}": ${reason(error)}; run gatehouse unlock --stack ${name}`),
  };
}

/**
 * The locks apply holds: its own stack's and, with `--from-stack`, the other stack's too, so
 * that no apply of that stack writes the objects being moved at the same time. Taken in that
 * order (each fails at once, or after --lock-timeout, naming its holder); released together.
 */
async function acquireStackLocks(api: LiveApi, stack: string, fromStack: string | undefined, options: AcquireOptions): Promise<HeldLock> {
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
    // Losing either lock stops the apply.
    lost: AbortSignal.any([own.lost, other.lost]),
    async release() {
      const results = await Promise.allSettled([other.release(), own.release()]);
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
    },
  };
}

/**
 * Apply's locks and its read of live state: with one stack, the read runs once the lock is
 * claimed and confirms it (`lockWhileReading`, from the IP policies `policiesOf` gives). With
 * `--from-stack` (a one-off move) both locks are taken first, then the read. When the read
 * fails the locks are released and its error thrown.
 */
export async function lockStacksWhileReading<T>(
  api: LiveApi,
  stack: string,
  fromStack: string | undefined,
  options: AcquireOptions,
  read: () => Promise<T>,
  policiesOf?: (value: T) => readonly ApiObject[],
): Promise<{ lock: HeldLock; value: T }> {
  if (fromStack === undefined) return lockWhileReading(api, stack, options, read, policiesOf);
  const lock = await acquireStackLocks(api, stack, fromStack, options);
  try {
    return { lock, value: await read() };
  } catch (error) {
    await lock.release().catch((failure: unknown) => options.onReleaseError?.(failure instanceof Error ? failure : new Error(String(failure))));
    throw error;
  }
}
