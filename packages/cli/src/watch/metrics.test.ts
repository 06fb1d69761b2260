/** The watch metrics: names, the series that exist from the start, the drift gauge going back to 0. */
import { describe, expect, it } from 'vitest';
import { WatchMetrics } from './metrics.js';

const sample = (text: string, series: string) => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

describe('WatchMetrics', () => {
  it('has every cycle and apply outcome and the 429 counter at 0 from the start', async () => {
    const metrics = new WatchMetrics({ environments: ['production'], defaultMetrics: false });
    metrics.addApi('https://api.example.com');
    const text = await metrics.text();
    for (const outcome of ['success', 'failed', 'skipped', 'interrupted'])
      expect(sample(text, `gatehouse_cycles_total{environment="production",outcome="${outcome}"}`)).toBe(0);
    for (const outcome of ['done', 'failed', 'refused', 'locked', 'interrupted'])
      expect(sample(text, `gatehouse_applies_total{environment="production",outcome="${outcome}"}`)).toBe(0);
    expect(sample(text, 'gatehouse_api_rate_limited_total{api="https://api.example.com"}')).toBe(0);
    expect(metrics.contentType).toMatch(/^text\/plain/);
  });

  it('the drift gauge counts by kind and cause and returns to 0 when the drift ends', async () => {
    const metrics = new WatchMetrics({ environments: ['production'], defaultMetrics: false });
    metrics.setDrift('production', [
      { kind: 'IPPolicy', cause: 'changed_outside' },
      { kind: 'IPPolicy', cause: 'changed_outside' },
      { kind: 'Backend', cause: 'missing' },
    ]);
    let text = await metrics.text();
    expect(sample(text, 'gatehouse_drift_objects{environment="production",kind="IPPolicy",cause="changed_outside"}')).toBe(2);
    expect(sample(text, 'gatehouse_drift_objects{environment="production",kind="Backend",cause="missing"}')).toBe(1);
    metrics.setDrift('production', [{ kind: 'Backend', cause: 'missing' }]);
    text = await metrics.text();
    expect(sample(text, 'gatehouse_drift_objects{environment="production",kind="IPPolicy",cause="changed_outside"}')).toBe(0);
    expect(sample(text, 'gatehouse_drift_objects{environment="production",kind="Backend",cause="missing"}')).toBe(1);
  });

  it('a drift healed in the cycle that found it shows as 0, and counts as healed', async () => {
    const metrics = new WatchMetrics({ environments: ['production'], defaultMetrics: false });
    const found = [{ kind: 'IPRestriction', cause: 'changed_outside' }];
    metrics.setDrift('production', [], found);
    metrics.healed('production', found);
    const text = await metrics.text();
    expect(sample(text, 'gatehouse_drift_objects{environment="production",kind="IPRestriction",cause="changed_outside"}')).toBe(0);
    expect(sample(text, 'gatehouse_healed_objects_total{environment="production",kind="IPRestriction",cause="changed_outside"}')).toBe(1);
  });

  it('counts requests by method and status, 429s apart; a cycle sets its duration and last success', async () => {
    const metrics = new WatchMetrics({ environments: ['default'], defaultMetrics: false });
    const api = 'http://127.0.0.1:8484';
    metrics.request(api, { method: 'GET', path: '/ip_policies', attempt: 1, status: 200, durationMs: 3, waitedMs: 0, willRetry: false });
    metrics.request(api, { method: 'GET', path: '/ip_policies', attempt: 1, status: 429, durationMs: 3, waitedMs: 0, willRetry: true });
    metrics.request(api, { method: 'PATCH', path: '/ip_policies/x', attempt: 1, status: undefined, durationMs: 3, waitedMs: 0, willRetry: true });
    metrics.cycle('default', 'success', 0.3, new Date('2026-11-23T03:00:00Z'));
    metrics.cycle('default', 'failed', 0.2, new Date('2026-11-23T03:05:00Z'));
    metrics.applied('default', 'done');
    const text = await metrics.text();
    expect(sample(text, `gatehouse_api_requests_total{api="${api}",method="GET",code="200"}`)).toBe(1);
    expect(sample(text, `gatehouse_api_requests_total{api="${api}",method="GET",code="429"}`)).toBe(1);
    expect(sample(text, `gatehouse_api_requests_total{api="${api}",method="PATCH",code="none"}`)).toBe(1);
    expect(sample(text, `gatehouse_api_rate_limited_total{api="${api}"}`)).toBe(1);
    expect(sample(text, 'gatehouse_last_success_timestamp_seconds{environment="default"}')).toBe(Date.parse('2026-11-23T03:00:00Z') / 1000);
    expect(sample(text, 'gatehouse_cycle_duration_seconds_count{environment="default"}')).toBe(2);
    expect(sample(text, 'gatehouse_cycles_total{environment="default",outcome="failed"}')).toBe(1);
    expect(sample(text, 'gatehouse_applies_total{environment="default",outcome="done"}')).toBe(1);
  });

  it('every metric of gatehouse is named gatehouse_<thing>_<unit>', async () => {
    const names = (await new WatchMetrics({ environments: ['default'], defaultMetrics: false }).registry.getMetricsAsJSON()).map((m) => m.name);
    for (const name of names) expect(name).toMatch(/^gatehouse_[a-z_]+_(objects|total|seconds)$/);
  });
});
