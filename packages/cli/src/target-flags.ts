/**
 * `--target ADDRESS` (repeatable) on plan, apply and drift: the flag, and its checks before
 * anything is read or sent. The addresses, their globs and what a targeted plan holds are the
 * engine's (`plan/targets.ts`); here: a malformed target, or `--target` together with a flag
 * a targeted run cannot honour (`--prune`, `--prune-all`, `--plan`), is a usage error (exit 1)
 * before connecting, and a run whose every target matched nothing fails (a typo in a CI script
 * must not pass as "No changes").
 */
import { Flags } from '@oclif/core';
import { parseTargets, sanitize, TargetError, type PlanTargets } from '@gatehouse/engine/core';
import { CliError } from './errors.js';

export const targetFlags = {
  target: Flags.string({
    description: 'only this object (Kind/NAME as plan prints it; globs: Backend/*), its children and what it depends on (repeatable; never deletes)',
    multiple: true,
    multipleNonGreedy: true,
  }),
};

/** Flags a targeted run refuses, as `name: what it would mean`. */
const CONFLICTS: Record<string, string> = {
  prune: 'a targeted plan never deletes; prune with a full plan (no --target)',
  'prune-all': 'a targeted plan never deletes; prune with a full plan (no --target)',
  plan: 'a saved plan applies exactly the targets it was made with; plan again with --target and --out',
};

/**
 * The `--target` values, checked (undefined without the flag); throws `CliError` for a bad one
 * or a conflicting flag. `flags` is the command's parsed flags.
 */
export function targetsOf(flags: { target?: string[] | undefined } & Record<string, unknown>): string[] | undefined {
  const targets = flags.target;
  if (targets === undefined || targets.length === 0) return undefined;
  for (const [name, why] of Object.entries(CONFLICTS)) {
    const value = flags[name];
    if (value !== undefined && value !== false) throw new CliError('target_conflict', `--target cannot be combined with --${name}: ${why}`);
  }
  try {
    parseTargets(targets);
  } catch (error) {
    throw asCliError(error);
  }
  return targets;
}

/** An engine `TargetError` as the CLI's error (same code); anything else unchanged. */
export function asCliError(error: unknown): unknown {
  return error instanceof TargetError ? new CliError(error.code, error.message) : error;
}

/** `warning: ...` lines for targets that matched nothing, for stderr (the report itself says so too). */
export function unmatchedWarnings(targets: Pick<PlanTargets, 'unmatched'> | undefined): string[] {
  if (!targets || targets.unmatched.length === 0) return [];
  return [
    `warning: --target ${targets.unmatched.map((t) => sanitize(t)).join(', ')} matched nothing: no declared object and no live object this stack owns has such an address`,
  ];
}
