/** The lines `gatehouse export` prints about what it wrote. */
/** `2 IPPolicy manifests`, `1 IPPolicy, 2 IPRestriction manifests`: what a file (or all of them) holds, by kind. */
export function manifestCount(kinds: readonly { kind: string; documents: number }[]): string {
  const totals = new Map<string, number>();
  for (const { kind, documents } of kinds) totals.set(kind, (totals.get(kind) ?? 0) + documents);
  const all = [...totals.values()].reduce((a, b) => a + b, 0);
  return `${[...totals].map(([kind, n]) => `${n} ${kind}`).join(', ')} manifest${all === 1 ? '' : 's'}`;
}
