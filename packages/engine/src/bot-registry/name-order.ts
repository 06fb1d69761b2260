/**
 * Bot user names are unique in the account (the service answers `duplicate_name`), and with
 * renames through `spec.name` one bot user may take the name another is giving up in the same
 * plan (`ci` renamed from "deploy" to "ci", and a new `deploy` created as "deploy").
 *
 * - `nameHandOffs`: the bot user changes that must wait for another bot user's rename: a create
 *   or rename to name N waits for the rename of the live bot user that holds N now. The plan
 *   puts them in `dependsOn` (so apply runs them in that order, and the plan shows it).
 * - `nameSwapProblems`: renames that hand names round in a cycle (two bot users exchanging
 *   their names) cannot be ordered at all: a problem at each `spec.name`, saying to go through
 *   a temporary name in two applies.
 */
import type { DesiredObject } from '../desired.js';
import type { LiveObject } from '../live.js';
import { problem, type Problem } from '../problems.js';

const BOT_KIND = 'BotUser';

interface Pairs {
  pairs: { desired: DesiredObject; live: LiveObject }[];
  creates: DesiredObject[];
}

/** Live bot users that are renamed, by the name they hold now. */
function renamedByLiveName(matching: Pairs): Map<string, { desired: DesiredObject; live: LiveObject }> {
  const renamed = new Map<string, { desired: DesiredObject; live: LiveObject }>();
  for (const pair of matching.pairs) {
    if (pair.desired.descriptor.kind !== BOT_KIND) continue;
    const now = pair.live.raw.name;
    if (typeof now === 'string' && now !== pair.desired.normal.name) renamed.set(now, pair);
  }
  return renamed;
}

/** Desired address -> addresses of the renames it must wait for (empty when there is none). */
export function nameHandOffs(matching: Pairs): Map<string, string[]> {
  const renamed = renamedByLiveName(matching);
  const waits = new Map<string, string[]>();
  if (renamed.size === 0) return waits;
  for (const d of [...matching.pairs.map((p) => p.desired), ...matching.creates]) {
    if (d.descriptor.kind !== BOT_KIND) continue;
    const holder = renamed.get(String(d.normal.name));
    if (holder && holder.desired.address !== d.address) waits.set(d.address, [holder.desired.address]);
  }
  return waits;
}

/** Problems for renames that exchange names in a cycle (no order of single renames works). */
export function nameSwapProblems(matching: Pairs): Problem[] {
  const renamed = renamedByLiveName(matching);
  const problems: Problem[] = [];
  const reported = new Set<string>();
  for (const start of renamed.values()) {
    const cycle: { desired: DesiredObject; live: LiveObject }[] = [];
    let current: { desired: DesiredObject; live: LiveObject } | undefined = start;
    while (current && !cycle.includes(current)) {
      cycle.push(current);
      current = renamed.get(String(current.desired.normal.name));
    }
    if (current !== start || reported.has(start.desired.address)) continue;
    const names = cycle.map((p) => `${p.desired.name} ("${String(p.live.raw.name)}" -> "${String(p.desired.normal.name)}")`).join(', ');
    for (const p of cycle) {
      reported.add(p.desired.address);
      problems.push(
        problem(
          'bot_user_name_cycle',
          `bot users ${names} exchange their names, and the service keeps bot user names unique, so no order of renames works; rename ${p.desired.name} to a temporary name first, apply, then give it its new name`,
          p.desired.doc.locate([...p.desired.specPath, 'name']),
        ),
      );
    }
  }
  return problems;
}
