import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RequestContext } from '../context.js';
import { startHarness, TEST_BASE_URL, type Harness } from '../../testing/harness.js';
import { ApiError } from '../../errors.js';
import { renderModule } from '../modules.js';
import { checkIpPolicyIds, ipRestrictionModule } from './ip-restriction.js';

let h: Harness;
let ctx: RequestContext;
beforeEach(async () => {
  h = await startHarness();
  ctx = { ...h.app.services, principal: { apiKeyId: 'ak_test' } };
});
afterEach(() => h.close());

const errorFrom = (fn: () => unknown): ApiError => {
  try {
    fn();
  } catch (error) {
    return error as ApiError;
  }
  throw new Error('expected an ApiError');
};

describe('ipRestrictionModule', () => {
  it('writes ids with enabled defaulting to true and renders ip_policies Refs in order', async () => {
    const a = (await h.call('POST', '/ip_policies', {})).body.id;
    const b = (await h.call('POST', '/ip_policies', {})).body.id;
    const stored = ipRestrictionModule.write({ ip_policy_ids: [b, a] }, ctx, 'ip_restriction');
    expect(stored).toEqual({ enabled: true, ip_policy_ids: [b, a] });
    expect(renderModule(ipRestrictionModule, stored, ctx)).toEqual({
      enabled: true,
      ip_policies: [b, a].map((id) => ({ id, uri: `${TEST_BASE_URL}/ip_policies/${id}` })),
    });
    expect(ipRestrictionModule.write({ ip_policy_ids: [a], enabled: false }, ctx, 'ip_restriction').enabled).toBe(false);
  });

  it('rejects an id that is not a live IP policy, naming the nested field', async () => {
    const gone = (await h.call('POST', '/ip_policies', {})).body.id;
    await h.call('DELETE', `/ip_policies/${gone}`);
    const error = errorFrom(() => ipRestrictionModule.write({ ip_policy_ids: [gone] }, ctx, 'ip_restriction'));
    expect(error).toBeInstanceOf(ApiError);
    expect(error.code).toBe('invalid_reference');
    expect(error.details.field).toBe('ip_restriction.ip_policy_ids');
    expect(errorFrom(() => checkIpPolicyIds(['bot_x'], 'ids', ctx)).details).toMatchObject({ field: 'ids', id: 'bot_x' });
  });
});
