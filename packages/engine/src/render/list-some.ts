/**
 * A list inside a sentence a person reads (a plan's reason, a progress line, a summary): every
 * item when there are few, else the first `shown` and "and N more". A registry write that
 * records 1,000 bot users then says so in one line instead of naming all of them. Machine
 * output never goes through this: the JSON plan keeps the full data (a change's `before` and
 * `after`, the result's lists).
 */
export function listSome(items: readonly string[], options: { shown?: number; separator?: string } = {}): string {
  const shown = options.shown ?? LIST_SHOWN;
  const separator = options.separator ?? ', ';
  // "and 1 more" says no less than the item itself: shown + 1 items are listed in full.
  if (items.length <= shown + 1) return items.join(separator);
  return `${items.slice(0, shown).join(separator)}${separator.trim() === ',' ? '' : separator.trimEnd()} and ${items.length - shown} more`;
}

/** How many items `listSome` names before "and N more". */
export const LIST_SHOWN = 5;
