import type { ApplyResult, StepResult } from '@gatehouse/engine';
import { describe, expect, it, vi } from 'vitest';
import { formatStep, formatSummary, Progress } from './progress.js';

const step = (over: Partial<StepResult>): StepResult => ({
  address: 'IPPolicy/office',
  kind: 'IPPolicy',
  name: 'office',
  action: 'create',
  id: 'ipp_1',
  status: 'done',
  duration_ms: 12,
  requests: 1,
  ...over,
});
const result = (steps: StepResult[], over: Partial<ApplyResult> = {}): ApplyResult => ({
  stack: 'default',
  target: { url: 'http://x', embedded: false },
  ok: steps.every((s) => s.status === 'done'),
  interrupted: false,
  steps,
  not_pruned: [],
  summary: {
    done: steps.filter((s) => s.status === 'done').length,
    failed: steps.filter((s) => s.status === 'failed').length,
    skipped: steps.filter((s) => s.status === 'skipped').length,
    cancelled: steps.filter((s) => s.status === 'cancelled').length,
    not_started: steps.filter((s) => s.status === 'not_started').length,
    not_pruned: 0,
    not_in_plan: 0,
    already_done: 0,
  },
  duration_ms: 1500,
  ...over,
});

describe('progress lines', () => {
  it('name the status, action, kind/name, id and time; a failure or skip says why', () => {
    expect(formatStep(step({}))).toBe('done    create  IPPolicy/office  ipp_1  12 ms');
    expect(formatStep(step({ status: 'failed', reason: { code: 'api_failure', message: 'POST /ip_policies: 400 invalid' } }))).toBe(
      'failed  create  IPPolicy/office  ipp_1  12 ms: POST /ip_policies: 400 invalid',
    );
    expect(formatStep(step({ status: 'skipped', id: null, reason: { code: 'dependency_failed', message: 'not done: X failed' } }))).toBe(
      'skipped create  IPPolicy/office  -: not done: X failed',
    );
  });

  it('after an interrupt, count done, cancelled and not started and say what to run next', () => {
    const interrupted = result([step({}), step({ status: 'cancelled' }), step({ status: 'not_started' }), step({ status: 'not_started' })], {
      interrupted: true,
    });
    const [line] = formatSummary(interrupted);
    expect(line).toMatch(/^Apply interrupted: 1 done, 0 failed, 1 cancelled \(.*\), 2 not started\. Run gatehouse plan .* the same apply command again/);
    expect(formatStep(step({ status: 'not_started', reason: { code: 'interrupted', message: 'not started: apply was interrupted' } }))).toBe(
      'not started create  IPPolicy/office  ipp_1: not started: apply was interrupted',
    );
  });

  it('sum up done, failed and skipped, and the deletes left without --prune', () => {
    expect(formatSummary(result([step({})]))).toEqual(['Apply complete: 1 done in 1.5 s.']);
    const failed = result([step({}), step({ status: 'failed' }), step({ status: 'skipped' })], {
      not_pruned: [{ address: 'TCPEdge/ssh', kind: 'TCPEdge', name: 'ssh', id: 'edgtcp_1' }],
    });
    failed.summary.not_pruned = 1;
    const lines = formatSummary(failed);
    expect(lines[0]).toMatch(/^Apply failed: 1 done, 1 failed, 1 skipped\./);
    expect(lines[1]).toBe('1 delete was not done (pass --prune to delete): TCPEdge/ssh');
  });

  it('after a stale change of a saved plan, says to plan again, not to run the same apply', () => {
    const stale = result([
      step({}),
      step({ status: 'failed', reason: { code: 'stale_object', message: 'IPPolicy/office is stale: ...; run gatehouse plan again' } }),
      step({ status: 'skipped' }),
    ]);
    const [line] = formatSummary(stale);
    expect(line).toBe(
      'Apply failed: 1 done, 1 failed, 1 skipped. A change of the saved plan is stale: run gatehouse plan again, review the new plan and apply that one (this plan would stop at it again).',
    );
    expect(line).not.toContain('continues where');
    const other = formatSummary(result([step({ status: 'failed', reason: { code: 'api_failure', message: 'POST: 400' } })]))[0];
    expect(other).toMatch(/Fix the failures and run apply again; it continues where this one stopped\.$/);
  });

  it('name a few of many deletes left without --prune, and how many more', () => {
    const notPruned = Array.from({ length: 300 }, (_, i) => ({ address: `IPPolicy/p${i}`, kind: 'IPPolicy', name: `p${i}`, id: `ipp_${i}` }));
    const done = result([step({})], { not_pruned: notPruned });
    done.summary.not_pruned = notPruned.length;
    expect(formatSummary(done)[1]).toBe(
      '300 deletes were not done (pass --prune to delete): IPPolicy/p0, IPPolicy/p1, IPPolicy/p2, IPPolicy/p3, IPPolicy/p4 and 295 more',
    );
  });

  it('keeps a bar on a terminal, erased before the lines and at the end; what one turn of the event loop finished is one write', async () => {
    const out: string[] = [];
    const tty: string[] = [];
    let sent = 0;
    const pace = { requests: () => sent, estimateMs: (n: number) => n * 500 };
    const progress = new Progress({ write: (t) => out.push(t) }, 3, pace, false, {
      stream: { write: (t) => tty.push(t), columns: 120 },
      mode: 'terminal',
      showAfterMs: 0,
    });
    // Drawn at once: nothing done, three changes and the lock's release left at 500 ms each.
    expect(tty).toEqual([`\r\x1b[2K[${'░'.repeat(16)}] 0/3 changes, 0 running, 0 requests, ~3 s left`]);
    progress.started();
    progress.started();
    await new Promise((resolve) => setImmediate(resolve));
    expect(tty.at(-1)).toBe(`\r\x1b[2K[${'░'.repeat(16)}] 0/3 changes, 2 running, 0 requests, ~3 s left`);
    sent = 4;
    progress.finished(step({ requests: 2 }));
    progress.finished(step({ address: 'IPPolicy/home', id: 'ipp_2', requests: 2 }));
    const before = tty.length;
    await new Promise((resolve) => setImmediate(resolve));
    expect(out).toEqual(['done    create  IPPolicy/office  ipp_1  12 ms\ndone    create  IPPolicy/home  ipp_2  12 ms\n']);
    // Erased, the lines written, drawn again; then the new count: two requests a change so far.
    expect(tty.slice(before)).toEqual([
      '\r\x1b[2K',
      `\r\x1b[2K[${'░'.repeat(16)}] 0/3 changes, 2 running, 0 requests, ~3 s left`,
      `\r\x1b[2K[${'█'.repeat(10)}${'░'.repeat(6)}] 2/3 changes, 0 running, 4 requests, ~2 s left`,
    ]);
    // end() writes what is pending at once, then erases the bar for good.
    progress.started();
    progress.finished(step({ address: 'IPPolicy/lab', id: 'ipp_3' }));
    progress.end();
    expect(out.at(-1)).toBe('done    create  IPPolicy/lab  ipp_3  12 ms\n');
    expect(tty.at(-1)).toBe('\r\x1b[2K');
    const count = tty.length;
    progress.end();
    expect(tty).toHaveLength(count);
  });

  it('draws nothing but the lines off a terminal until 10 s have passed', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const out: string[] = [];
      const log: string[] = [];
      const progress = new Progress({ write: (t) => out.push(t) }, 2, { requests: () => 1, estimateMs: () => 61_000 }, false, {
        stream: { write: (t) => log.push(t) },
        mode: 'lines',
      });
      progress.started();
      vi.advanceTimersByTime(9_999);
      expect(log).toEqual([]);
      vi.advanceTimersByTime(1);
      expect(log).toEqual(['progress: 0/2 changes, 1 running, 1 request, ~1m 01s left\n']);
      progress.end();
      vi.advanceTimersByTime(20_000);
      expect(log).toHaveLength(1);
    } finally {
      vi.useRealTimers();
    }
  });
});
