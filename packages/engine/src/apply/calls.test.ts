/**
 * `runCalls` and `findByIdentity`: what a lost answer, a refusal and a retryable failure do to
 * one step's requests, for kinds with markers, without (bot users), and inline (routes). The
 * in-memory API retries as the HTTP client does (memory-api.ts); the engine only supplies the
 * look-up.
 */
import { describe, expect, it } from 'vitest';
import { descriptor } from '../kinds/index.js';
import { composeMetadata } from '../identity/marker.js';
import { LiveApiError } from '../ports.js';
import { findByIdentity, runCalls } from './calls.js';
import { MemoryLiveApi } from './memory-api.js';

const marked = (name: string) => composeMetadata(undefined, { stack: 'default', name, hash: '0'.repeat(16) });

describe('after a create whose answer was lost', () => {
  it('finds a route inline in its edge by its marker, instead of creating it again', async () => {
    const api = new MemoryLiveApi();
    const edge = await api.create('/edges/https', { hostports: ['a.example.com:443'] });
    api.intercept = () => 'lost';
    const outcome = await runCalls(
      [{ method: 'POST', path: `/edges/https/${String(edge.id)}/routes`, body: { match_type: 'path_prefix', match: '/', metadata: marked('api//') } }],
      api,
      { descriptor: descriptor('HTTPSEdgeRoute'), stack: 'default', markerName: 'api//', normal: { match: '/' } },
    );
    const routes = (await api.get(`/edges/https/${String(edge.id)}`))!.routes as { id: string }[];
    expect(routes).toHaveLength(1);
    expect(outcome.first?.id).toBe(routes[0]!.id);
    expect(outcome.requests).toBe(2); // the POST and one GET of the edge
  });

  it('finds a bot user by its name (bot users carry no marker)', async () => {
    const api = new MemoryLiveApi();
    await api.create('/bot_users', { name: 'other' });
    api.intercept = (r) => (r.method === 'POST' ? 'lost' : undefined);
    const outcome = await runCalls([{ method: 'POST', path: '/bot_users', body: { name: 'deploy', active: true } }], api, {
      descriptor: descriptor('BotUser'),
      stack: 'default',
      markerName: 'deploy',
      normal: { name: 'deploy', active: true },
    });
    expect(api.objects('/bot_users').map((b) => b.name)).toEqual(['other', 'deploy']);
    expect(outcome.first?.name).toBe('deploy');
  });

  it('does not take the object a replace is replacing for the new one', async () => {
    const api = new MemoryLiveApi();
    const old = await api.create('/backends/tunnel_group', { metadata: marked('web') });
    const identity = { descriptor: descriptor('Backend'), stack: 'default', markerName: 'web', normal: {}, excludeId: String(old.id) };
    expect((await findByIdentity(api, '/backends/tunnel_group', identity)).found).toBeUndefined();
    const { excludeId: _ignored, ...plain } = identity;
    expect((await findByIdentity(api, '/backends/tunnel_group', plain)).found?.id).toBe(old.id);
  });

  it('sends the create again when the look-up finds nothing (it was not carried out)', async () => {
    const api = new MemoryLiveApi();
    let first = true;
    api.intercept = () => {
      if (!first) return undefined;
      first = false;
      throw new LiveApiError('POST /ip_policies: 502 bad gateway', 502, 'bad_gateway', true);
    };
    const outcome = await runCalls([{ method: 'POST', path: '/ip_policies', body: { metadata: marked('p') } }], api, {
      descriptor: descriptor('IPPolicy'),
      stack: 'default',
      markerName: 'p',
      normal: {},
    });
    expect(api.objects('/ip_policies')).toHaveLength(1);
    expect(outcome.requests).toBe(2); // the POST (sent twice by the client) and the list that found nothing
  });
});

describe('other failures', () => {
  it('fails at once on a refusal (4xx), without trying again', async () => {
    const api = new MemoryLiveApi();
    let sent = 0;
    api.intercept = () => {
      sent++;
      throw new LiveApiError('PATCH: 400 invalid', 400, 'invalid', false);
    };
    await expect(runCalls([{ method: 'PATCH', path: '/ip_policies/x', body: {} }], api)).rejects.toThrow('400 invalid');
    expect(sent).toBe(1);
  });

  it("sends each call once: a retryable failure that outlived the client's retries fails the step", async () => {
    const api = new MemoryLiveApi();
    await api.create('/ip_policies', {});
    const id = String(api.objects('/ip_policies')[0]!.id);
    api.attempts = 1;
    let sent = 0;
    api.intercept = () => {
      sent++;
      throw new LiveApiError('PATCH: 429', 429, 'too_many_requests', true);
    };
    await expect(runCalls([{ method: 'PATCH', path: `/ip_policies/${id}`, body: { description: 'x' } }], api)).rejects.toThrow('429');
    expect(sent).toBe(1);
  });

  it('never sends a create again after a lost answer without a look-up', async () => {
    const api = new MemoryLiveApi();
    api.intercept = () => 'lost';
    await expect(runCalls([{ method: 'POST', path: '/ip_policies', body: {} }], api)).rejects.toMatchObject({ outcomeUnknown: true });
    expect(api.objects('/ip_policies')).toHaveLength(1);
  });

  it('counts a DELETE answered 404 as done: the object is gone', async () => {
    const api = new MemoryLiveApi();
    await expect(runCalls([{ method: 'DELETE', path: '/ip_policies/ipp_gone' }], api)).resolves.toMatchObject({ requests: 1 });
  });
});
