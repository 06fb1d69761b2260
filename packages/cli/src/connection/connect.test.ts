import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CliError } from '../errors.js';
import { tempDirForFile } from '../testing/temp-dir.js';
import { connect } from './connect.js';

const dir = tempDirForFile('gatehouse-connect-');

describe('connect', () => {
  it('starts the embedded reference server over the database and stops it on close', async () => {
    const db = join(dir.path, 'sub', 'server.db');
    const first = await connect({ stack: 'default', embedded: true }, { embeddedDb: db });
    expect(first.target.embedded).toBe(true);
    expect(first.target.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const created = await first.api.create('/bot_users', { name: 'kept' });
    await first.close();
    await first.close();

    // Same database, new process-local key: the object is still there.
    const second = await connect({ stack: 'default', embedded: true }, { embeddedDb: db });
    expect(second.target.url).not.toBe('');
    expect(await second.api.get(`/bot_users/${String(created.id)}`)).toMatchObject({ name: 'kept' });
    await second.close();
    await expect(second.client.botUsers.get(String(created.id))).rejects.toThrow();
  });

  it('needs a key with an API URL and an http(s) URL', async () => {
    await expect(connect({ stack: 'default', 'api-url': 'http://127.0.0.1:9' })).rejects.toMatchObject({ code: 'missing_api_key' });
    await expect(connect({ stack: 'default', 'api-url': 'ftp://x', 'api-key': 'k' })).rejects.toBeInstanceOf(CliError);
    await expect(connect({ stack: 'default', embedded: true, 'rate-limit': 'fast' })).rejects.toMatchObject({ code: 'bad_rate_limit' });
  });

  it("paces an API URL to the service's budget unless --rate-limit says otherwise (off: not at all), and leaves the embedded server unpaced", async () => {
    const service = await connect({ stack: 'default', 'api-url': 'https://api.example.com', 'api-key': 'k' });
    expect(service.client.transport.pace.budget).toEqual({ requests: 120, intervalMs: 60_000 });
    await service.close();
    const shared = await connect({ stack: 'default', 'api-url': 'https://api.example.com', 'api-key': 'k', 'rate-limit': '60/60s' });
    expect(shared.client.transport.pace.budget).toEqual({ requests: 60, intervalMs: 60_000 });
    await shared.close();
    const embedded = await connect({ stack: 'default', embedded: true }, { embeddedDb: join(dir.path, 'paced.db') });
    expect(embedded.client.transport.pace.budget).toBeUndefined();
    await embedded.close();
    const limited = await connect({ stack: 'default', embedded: true, 'rate-limit': '5/1s' }, { embeddedDb: join(dir.path, 'paced.db') });
    expect(limited.client.transport.pace.budget).toEqual({ requests: 5, intervalMs: 1000 });
    await limited.close();
    const unlimited = await connect({ stack: 'default', 'api-url': 'https://api.example.com', 'api-key': 'k', 'rate-limit': 'off' });
    expect(unlimited.client.transport.pace.budget).toBeUndefined();
    await unlimited.close();
  });

  it('uses the given API and stack, without starting anything', async () => {
    const connection = await connect({ stack: 'team-a', 'api-url': 'https://api.example.com/', 'api-key': 'k', 'rate-limit': '120/60s' });
    expect(connection.target).toEqual({ url: 'https://api.example.com', embedded: false });
    expect(connection.stack).toBe('team-a');
    await connection.close();
  });
});
