import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RequestContext } from '../context.js';
import { startHarness, TEST_BASE_URL, type Harness } from '../../testing/harness.js';
import { ApiError } from '../../errors.js';
import { renderModule } from '../modules.js';
import { backendModule } from './backend.js';

let h: Harness;
let ctx: RequestContext;
beforeEach(async () => {
  h = await startHarness();
  ctx = { ...h.app.services, principal: { apiKeyId: 'ak_test' } };
});
afterEach(() => h.close());

describe('backendModule', () => {
  it('accepts a backend of each of the four kinds and renders a Ref under /backends/<kind>', async () => {
    const leaf = (await h.call('POST', '/backends/http_response', {})).body.id;
    const ids = [
      (await h.call('POST', '/backends/tunnel_group', { labels: { a: 'b' } })).body.id,
      leaf,
      (await h.call('POST', '/backends/failover', { backends: [leaf] })).body.id,
      (await h.call('POST', '/backends/weighted', { backends: { [leaf]: 1 } })).body.id,
    ];
    const kinds = ['tunnel_group', 'http_response', 'failover', 'weighted'];
    ids.forEach((id, i) => {
      const stored = backendModule.write({ backend_id: id }, ctx, 'backend');
      expect(stored).toEqual({ enabled: true, backend_id: id });
      expect(renderModule(backendModule, stored, ctx)).toEqual({
        enabled: true,
        backend: { id, uri: `${TEST_BASE_URL}/backends/${kinds[i]}/${id}` },
      });
    });
  });

  it('keeps enabled false as given', async () => {
    const id = (await h.call('POST', '/backends/http_response', {})).body.id;
    const stored = backendModule.write({ backend_id: id, enabled: false }, ctx, 'backend');
    expect(renderModule(backendModule, stored, ctx)).toMatchObject({ enabled: false });
  });

  it('rejects an id that is not a live backend, naming the nested field', async () => {
    const policy = (await h.call('POST', '/ip_policies', {})).body.id;
    for (const id of ['bkdtg_nope', policy]) {
      let error: unknown;
      try {
        backendModule.write({ backend_id: id }, ctx, 'backend');
      } catch (thrown) {
        error = thrown;
      }
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ code: 'invalid_reference', details: { field: 'backend.backend_id', id } });
    }
  });
});
