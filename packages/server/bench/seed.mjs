/**
 * Live state for the benches, written straight into a server's database file: IP policies and
 * their rules as rows of `objects` (with the unique keys their create would claim), in one
 * transaction. 100,000 creates through the API would take minutes of a bench that measures
 * something else; the rows are exactly what those creates store (the fields of the create body,
 * ids of the server's form), so `gatehouse serve` over the file answers as if they had been
 * made through it.
 *
 *   seedIpPolicies(file, [{ description, metadata, rules: [{ cidr, action, description, metadata }] }])
 *
 * The file is made by the server's own `openDatabase` (its migrations) when it does not exist.
 */
import { newId } from '../dist/ids.js';
import { openDatabase } from '../dist/db/database.js';

/** Writes `policies` (with their rules) into the database at `file`; resolves with the number of rows. */
export function seedIpPolicies(file, policies) {
  const db = openDatabase(file);
  try {
    const insert = db.prepare('INSERT INTO objects (id, kind, parent_id, created_at, data) VALUES (?, ?, ?, ?, ?)');
    const claim = db.prepare('INSERT INTO unique_keys (key, object_id) VALUES (?, ?)');
    let rows = 0;
    db.transaction(() => {
      for (const policy of policies) {
        const now = new Date().toISOString();
        const policyId = newId('ipp');
        insert.run(policyId, 'ip_policy', null, now, JSON.stringify({ description: policy.description ?? '', metadata: policy.metadata ?? '' }));
        rows += 1;
        for (const rule of policy.rules ?? []) {
          const ruleId = newId('ipr');
          const data = { description: rule.description ?? '', metadata: rule.metadata ?? '', cidr: rule.cidr, action: rule.action };
          insert.run(ruleId, 'ip_policy_rule', policyId, now, JSON.stringify(data));
          claim.run(`ip_policy_rule.cidr:${policyId}:${rule.cidr}`, ruleId);
          rows += 1;
        }
      }
    })();
    return rows;
  } finally {
    db.close();
  }
}
