/**
 * The notifier's states: one message per change of state and event, never one per cycle; and
 * its text, which hostile names cannot turn into a mention, a link or a forged line.
 */
import { describe, expect, it } from 'vitest';
import { DriftNotifier, type CycleFindings, type DriftedItem } from './notify.js';

const NOW = new Date('2026-11-23T03:00:00Z');
const dashboard: DriftedItem = { address: 'IPRestriction/dashboard', kind: 'IPRestriction', cause: 'changed_outside', fields: ['enforced'] };
const office: DriftedItem = { address: 'IPPolicy/office', kind: 'IPPolicy', cause: 'changed_in_manifests', fields: ['description'] };
const cycle = (drifted: DriftedItem[], heal: Partial<Pick<CycleFindings, 'healed' | 'failed'>> = {}): CycleFindings => ({
  environment: 'production',
  stack: 'web',
  drifted,
  healed: heal.healed ?? [],
  failed: heal.failed ?? [],
});
const events = (notifier: DriftNotifier, findings: CycleFindings) =>
  notifier.observe(findings, NOW).map((n) => `${n.event} ${n.objects.map((o) => o.address).join(',')}`);

describe('DriftNotifier', () => {
  it('says drift appeared once, however many cycles it stays', () => {
    const notifier = new DriftNotifier();
    expect(events(notifier, cycle([]))).toEqual([]);
    expect(events(notifier, cycle([dashboard]))).toEqual(['drift_detected IPRestriction/dashboard']);
    expect(events(notifier, cycle([dashboard]))).toEqual([]);
    expect(events(notifier, cycle([dashboard, office]))).toEqual(['drift_detected IPPolicy/office']);
    expect(events(notifier, cycle([dashboard, office]))).toEqual([]);
  });

  it('detected and healed in one cycle: two messages; then nothing', () => {
    const notifier = new DriftNotifier();
    expect(events(notifier, cycle([dashboard], { healed: ['IPRestriction/dashboard'] }))).toEqual([
      'drift_detected IPRestriction/dashboard',
      'drift_healed IPRestriction/dashboard',
    ]);
    expect(events(notifier, cycle([]))).toEqual([]);
  });

  it('a heal that keeps failing is said once; its later success is said too', () => {
    const notifier = new DriftNotifier();
    const failed = { failed: [{ address: 'IPRestriction/dashboard', reason: 'the API failed: 503' }] };
    expect(events(notifier, cycle([dashboard], failed))).toEqual(['drift_detected IPRestriction/dashboard', 'heal_failed IPRestriction/dashboard']);
    expect(events(notifier, cycle([dashboard], failed))).toEqual([]);
    expect(events(notifier, cycle([dashboard]))).toEqual([]);
    expect(events(notifier, cycle([dashboard], { healed: ['IPRestriction/dashboard'] }))).toEqual(['drift_healed IPRestriction/dashboard']);
  });

  it('drift that ends without this watcher is resolved; drift that comes back is detected again', () => {
    const notifier = new DriftNotifier();
    notifier.observe(cycle([dashboard, office]), NOW);
    expect(events(notifier, cycle([office]))).toEqual(['drift_resolved IPRestriction/dashboard']);
    expect(events(notifier, cycle([dashboard, office]))).toEqual(['drift_detected IPRestriction/dashboard']);
  });

  it('keeps environments apart', () => {
    const notifier = new DriftNotifier();
    notifier.observe(cycle([dashboard]), NOW);
    expect(notifier.observe({ ...cycle([dashboard]), environment: 'staging' }, NOW).map((n) => `${n.event} ${n.environment}`)).toEqual([
      'drift_detected staging',
    ]);
  });

  it('a message has a text for Slack and Teams and structured fields, and never a value', () => {
    const [message] = new DriftNotifier().observe(cycle([dashboard]), NOW);
    expect(message).toEqual({
      text: 'gatehouse drift detected: 1 object in environment `production`, stack `web`\n• `IPRestriction/dashboard` changed outside gatehouse (`enforced`)',
      event: 'drift_detected',
      environment: 'production',
      stack: 'web',
      objects: [{ address: 'IPRestriction/dashboard', kind: 'IPRestriction', cause: 'changed_outside', fields: ['enforced'] }],
      time: '2026-11-23T03:00:00.000Z',
    });
  });

  it('hostile text cannot mention a channel, make a link, close its code span or forge a line', () => {
    const hostile: DriftedItem = { address: 'IPPolicy/x<!here>`*[a](http://evil)*`\u202e\nfake line', kind: 'IPPolicy', cause: 'deleted_outside', fields: [] };
    const reason = 'upstream said <!channel> & <https://evil|click>\r\nsecond line';
    const notifications = new DriftNotifier().observe(cycle([hostile], { failed: [{ address: hostile.address, reason }] }), NOW);
    const texts = notifications.map((n) => n.text).join('\n');
    expect(texts).not.toMatch(/<!|<https|\u202e/);
    expect(texts).toContain('&lt;!here&gt;');
    expect(texts).toContain('&lt;!channel&gt; &amp; &lt;https://evil|click&gt;');
    // Each object is one line: the newline inside the name is escaped, not kept.
    for (const n of notifications) expect(n.text.split('\n')).toHaveLength(2);
    expect(notifications[0]!.objects[0]!.address).not.toMatch(/[\n\u202e]/);
    expect(notifications.find((n) => n.event === 'heal_failed')!.objects[0]!.reason).not.toMatch(/[\r\n]/);
  });

  it('names at most ten objects in the text and every one in objects', () => {
    const many = Array.from({ length: 25 }, (_, i) => ({ ...dashboard, address: `IPPolicy/p${i}`, kind: 'IPPolicy' }));
    const [message] = new DriftNotifier().observe(cycle(many), NOW);
    expect(message!.objects).toHaveLength(25);
    expect(message!.text.split('\n')).toHaveLength(12);
    expect(message!.text).toMatch(/… and 15 more$/);
  });
});
