/**
 * The outcome of step 5, match (match.ts), as plan, apply, drift and export read it: types only,
 * so that every step below the planner can name it without importing the planner.
 */
import type { BotRegistry } from '../bot-registry/records.js';
import type { DesiredObject } from '../desired.js';
import type { LiveObject } from '../live.js';
import type { Problem } from '../problems.js';
import type { UnreadableKind } from '../plan-model.js';
import type { DuplicateObject } from './duplicates.js';

export interface Matching {
  pairs: { desired: DesiredObject; live: LiveObject }[];
  creates: DesiredObject[];
  deletes: LiveObject[];
  unmanaged: LiveObject[];
  /** Owned objects that duplicate a kept one (and their children): deleted without --prune (duplicates.ts). */
  duplicates: DuplicateObject[];
  problems: Problem[];
  /** The prune scope `deletes` were limited to, and the owned objects left outside it (prune-scope.ts). */
  pruneScope?: PruneScope;
  /** The stack's bot user registry as read (plan writes it, drift and export read it). */
  registry?: BotRegistry;
  /** With `--from-stack OLD`: OLD's bot user registry, from which the moved bot users are dropped (bot-registry/registry.ts). */
  fromRegistry?: BotRegistry;
  /** Collections the account cannot list (plan/unreadable.ts): nothing of theirs was read. Absent when none. */
  unreadable?: UnreadableKind[];
}

/** Which owned, undeclared objects a plan may delete (prune-scope.ts). */
export interface PruneScope {
  /** `--prune-all`: the scope is everything the stack owns. */
  all: boolean;
  /** The PATHs as the markers record paths (directories end with `/`, the root is `./`). */
  paths: string[];
  /** Standard input was read: its objects record no path and widen no scope. */
  stdin: boolean;
  /** Owned objects the manifests do not declare, outside the scope: never deleted by this plan. */
  outside: LiveObject[];
  /**
   * Whether an undeclared record of `kind` applied from `recorded` (a marker's path, absent in
   * older ones) is in scope, by rules 1-3 below: what else follows the scope (the bot user
   * registry's entries, `bot-registry/registry.ts`) decides with the same rule.
   */
  covers(recorded: string | undefined, kind: string): boolean;
}
