import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildApp, type GatehouseApp } from '../app.js';
import { authHeaders, TEST_API_KEY } from '../testing/harness.js';
import { DeferredChildLogger } from './deferred-logger.js';

/**
 * Fastify's pino logger at `level` (taken from a Fastify instance: pino is Fastify's
 * dependency, not this package's), whose records are parsed into `records`; `options` is
 * the same logger as Fastify's `logger` option.
 */
function recordingLogger(level: string) {
  const records: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) records.push(JSON.parse(line));
      done();
    },
  });
  const options = { level, stream };
  return { records, options, logger: Fastify({ logger: options }).log };
}

describe('DeferredChildLogger', () => {
  it('makes the child only when something logs through it, and then writes what the child would', () => {
    const { records, logger } = recordingLogger('info');
    const child = vi.spyOn(logger, 'child');
    const deferred = new DeferredChildLogger(logger, { operation_id: 'op_1' }, {});
    expect(deferred.level).toBe('info');
    expect(deferred.isLevelEnabled('debug')).toBe(false);
    expect(deferred.isLevelEnabled('info')).toBe(true);
    expect(child).not.toHaveBeenCalled();

    deferred.warn({ detail: 1 }, 'something');
    deferred.info('again');
    expect(child).toHaveBeenCalledTimes(1);
    expect(records).toEqual([
      expect.objectContaining({ level: 40, operation_id: 'op_1', detail: 1, msg: 'something' }),
      expect.objectContaining({ level: 30, operation_id: 'op_1', msg: 'again' }),
    ]);
  });

  it("keeps a route's own level (Fastify passes it as the child's option)", () => {
    const { records, logger } = recordingLogger('info');
    const deferred = new DeferredChildLogger(logger, { operation_id: 'op_2' }, { level: 'error' });
    expect(deferred.level).toBe('error');
    expect(deferred.isLevelEnabled('warn')).toBe(false);
    deferred.warn('dropped');
    deferred.error('kept');
    expect(records.map((r) => r.msg)).toEqual(['kept']);
  });
});

describe("the app's request logs", () => {
  let app: GatehouseApp | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it('write one line per request with its operation_id, and records logged through request.log carry the same id', async () => {
    const { records, options } = recordingLogger('info');
    // Every request fails `before` it is processed (503), which the error handler logs through
    // request.log; the second app answers normally and logs nothing but its line.
    app = await buildApp({ apiKeys: [TEST_API_KEY], logger: options, faults: { rate: 1, seed: 1, modes: ['before'] } });
    const failed = await app.inject({ method: 'GET', url: '/ip_policies', headers: authHeaders });
    expect(failed.statusCode).toBe(503);
    const failedId = failed.headers['operation-id'];
    expect(failedId).toMatch(/^op_/);
    expect(records.filter((r) => r.operation_id === failedId)).toEqual([
      expect.objectContaining({ level: 50, msg: 'request failed' }),
      expect.objectContaining({ level: 30, msg: 'request', method: 'GET', path: '/ip_policies', status: 503 }),
    ]);
  });

  it('write the line of a request that logs nothing else', async () => {
    const { records, options } = recordingLogger('info');
    app = await buildApp({ apiKeys: [TEST_API_KEY], logger: options });
    const answered = await app.inject({ method: 'GET', url: '/ip_policies?limit=5', headers: authHeaders });
    expect(answered.statusCode).toBe(200);
    expect(records.filter((r) => r.msg === 'request')).toEqual([
      expect.objectContaining({ level: 30, operation_id: answered.headers['operation-id'], method: 'GET', path: '/ip_policies?limit=5', status: 200 }),
    ]);
  });
});
