/**
 * How every format says which kinds the account cannot list (plan/unreadable.ts): the plan went
 * on without them, so their objects were neither compared nor pruned. One heading and a line
 * per collection, for text, Markdown and HTML alike (the JSON form carries `unreadable`).
 */
import type { UnreadableKind } from '../plan-model.js';
import { unreadableKinds, unreadableReason } from '../plan/unreadable.js';

/** The heading; `what` is what was not done (`planned` for plans, `checked for drift` for drift). */
export const unreadableHeading = (count: number, what: string): string =>
  `${count === 1 ? 'One kind' : `${count} kinds`} the account cannot list: not read, so none of ${count === 1 ? 'its' : 'their'} objects was ${what}, and none can be pruned`;

/** `ReservedTCPAddress at /reserved_addrs: 403 forbidden: the account's plan does not include it` */
export const unreadableLine = (u: UnreadableKind): string => `${unreadableKinds(u)} at ${u.path}: ${unreadableReason(u)}`;
