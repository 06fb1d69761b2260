import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, MEMORY, type Db } from '../db/database.js';
import { Urls } from '../http/urls.js';
import { AuditLog } from './audit.js';

let db: Db | undefined;
afterEach(() => db?.close());

const bodies = (d: Db): string[] => d.prepare('SELECT body FROM audit_events ORDER BY seq').pluck().all() as string[];

describe('AuditLog.record', () => {
  it('stores exactly JSON.stringify of the event it returns, escapes and all', () => {
    db = openDatabase(MEMORY);
    // A base URL and values that JSON must escape: quotes, backslashes, control and line
    // separator characters, non-ASCII, lone surrogates.
    const urls = new Urls('http://host.test/a"b\\c');
    const audit = new AuditLog(db, urls);
    const objects = [
      { id: 'ipp_1', uri: 'u', description: 'quote " backslash \\ newline \n tab \t', metadata: '{"team":"x"}' },
      { id: 'ipp_2', description: 'ünïcödé \u2028 \u2029 \u0000 \ud800 😀', nested: { list: [1, null, true, 'x'] } },
      { id: 'ipp_3', skipped: undefined, fn: () => 1, date: new Date(0) },
    ];
    const events = objects.map((object, i) => audit.record('ip_policy', i === 0 ? 'created' : 'updated', object, { apiKeyId: 'ak_1' }));
    events.push(audit.record('ip_policy', 'deleted', objects[0], { apiKeyId: 'ak_2' }));
    expect(bodies(db)).toEqual(events.map((event) => JSON.stringify(event)));
    expect(audit.read()).toEqual(JSON.parse(JSON.stringify(events)));
  });

  it("names the principal's credential under the current base URL", () => {
    db = openDatabase(MEMORY);
    const urls = new Urls('http://one.test');
    const audit = new AuditLog(db, urls);
    audit.record('ip_policy', 'created', { id: 'ipp_1' }, { apiKeyId: 'ak_1' });
    urls.rebase('http://two.test');
    audit.record('ip_policy', 'created', { id: 'ipp_2' }, { apiKeyId: 'ak_1' });
    expect(audit.read().map((event) => event.principal.credential.uri)).toEqual(['http://one.test/api_keys/ak_1', 'http://two.test/api_keys/ak_1']);
  });

  it('leaves out an object that serializes to nothing, as JSON.stringify of the event does', () => {
    db = openDatabase(MEMORY);
    const audit = new AuditLog(db, new Urls('http://one.test'));
    const event = audit.record('ip_policy', 'deleted', undefined, { apiKeyId: 'ak_1' });
    expect(bodies(db)).toEqual([JSON.stringify(event)]);
    expect(JSON.parse(bodies(db)[0]!)).not.toHaveProperty('object');
  });
});
