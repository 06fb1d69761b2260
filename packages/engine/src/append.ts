/**
 * Adds `value` to the list `map` holds under `key`, creating the list on the first add. In
 * place: grouping n values under one key costs n pushes, where `[...(map.get(key) ?? []), value]`
 * copies the list every time (a parent with 1,000 children: half a million element copies).
 */
export function append<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
