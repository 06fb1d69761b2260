import { describe, expect, it } from 'vitest';
import { Value } from '@sinclair/typebox/value';
import type { RequestContext, Services } from '../context.js';
import { renderModule } from '../modules.js';
import { trafficPolicyModule } from './traffic-policy.js';

const ctx = {} as RequestContext & Services;

describe('trafficPolicyModule', () => {
  it('defaults enabled to true and returns the value as given', () => {
    const stored = trafficPolicyModule.write({ value: '{"inbound":[]}' }, ctx, 'traffic_policy');
    expect(stored).toEqual({ enabled: true, value: '{"inbound":[]}' });
    expect(renderModule(trafficPolicyModule, stored, ctx)).toEqual({ enabled: true, value: '{"inbound":[]}' });
    expect(trafficPolicyModule.write({ value: 'x', enabled: false }, ctx, 'traffic_policy')).toEqual({ enabled: false, value: 'x' });
  });

  it('takes a non-empty value and no other field', () => {
    expect(Value.Check(trafficPolicyModule.input, { value: 'x' })).toBe(true);
    expect(Value.Check(trafficPolicyModule.input, { value: '' })).toBe(false);
    expect(Value.Check(trafficPolicyModule.input, { enabled: true })).toBe(false);
    expect(Value.Check(trafficPolicyModule.input, { value: 'x', other: 1 })).toBe(false);
  });
});
