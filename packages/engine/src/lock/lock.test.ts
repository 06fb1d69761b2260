/**
 * When a lock's holder counts as certainly dead (`holderIsDead`): only on this boot and pid
 * namespace, with no process of that pid; anything less certain keeps the lock.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { MemoryLiveApi } from '../apply/memory-api.js';
import { LiveApiError } from '../ports.js';
import { acquireLock, currentProcess, holderIsDead, isLockObject, lockName, readLock, type ProcessIdentity } from './lock.js';

const here: ProcessIdentity = { boot_id: 'boot-1', pid_ns: 'pid:[4026531836]', pid: process.pid };
/** A pid that ran and has exited (its number is free unless reused at once). */
const exitedPid = () => spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();

describe('holderIsDead', () => {
  it('is true for a process of this boot and namespace that no longer runs', () => {
    expect(holderIsDead({ ...here, pid: Number(exitedPid()) }, here)).toBe(true);
  });
  it('is false for a running process, this one, another boot or namespace, or no record', () => {
    expect(holderIsDead({ ...here, pid: process.ppid }, here)).toBe(false);
    expect(holderIsDead({ ...here }, here)).toBe(false);
    const dead = Number(exitedPid());
    expect(holderIsDead({ ...here, boot_id: 'boot-2', pid: dead }, here)).toBe(false);
    expect(holderIsDead({ ...here, pid_ns: 'pid:[1]', pid: dead }, here)).toBe(false);
    expect(holderIsDead(undefined, here)).toBe(false);
    expect(holderIsDead({ ...here, pid: dead }, undefined)).toBe(false);
  });
  it('reads this process on Linux', () => {
    if (process.platform !== 'linux') return;
    expect(currentProcess()).toMatchObject({ pid: process.pid, boot_id: expect.stringMatching(/\S/), pid_ns: expect.stringMatching(/^pid:/) });
  });
});

describe('acquireLock when answers are lost or two callers claim one lock', () => {
  const STACK = 'web';
  /** The service's unique bot user names, which the in-memory API does not enforce itself. */
  function apiWithUniqueNames(): MemoryLiveApi {
    const api = new MemoryLiveApi();
    api.intercept = (request) => {
      if (request.method === 'POST' && request.path === '/bot_users' && api.objects('/bot_users').some((b) => b.name === request.body?.name)) {
        throw new LiveApiError('name taken', 400, 'duplicate_name', false);
      }
      return undefined;
    };
    return api;
  }
  const records = (api: MemoryLiveApi) => api.objects('/ip_policies').filter((p) => isLockObject('IPPolicy', p));
  const options = { process: null, holder: 'me@here', sleep: async () => undefined } as const;

  it('holds the lock when the answer to its bot user create was lost, and releases it whole', async () => {
    const api = apiWithUniqueNames();
    const unique = api.intercept!;
    let lost = false;
    api.intercept = (request) => {
      const verdict = unique(request);
      if (!lost && request.method === 'POST' && request.path === '/bot_users') {
        lost = true;
        return 'lost';
      }
      return verdict;
    };
    const held = await acquireLock(api, STACK, { ...options, runId: 'run-a' });
    expect(api.objects('/bot_users').map((b) => b.name)).toEqual([lockName(STACK)]);
    expect(await readLock(api, STACK)).toMatchObject({ run_id: 'run-a', holder: 'me@here' });
    await held.release();
    expect(api.objects('/bot_users')).toEqual([]);
    expect(records(api)).toEqual([]);
  });

  it('claims a lock bot user left without a record; the next caller then sees the holder', async () => {
    const api = apiWithUniqueNames();
    await api.create('/bot_users', { name: lockName(STACK), active: false });
    const held = await acquireLock(api, STACK, { ...options, runId: 'run-a' });
    expect(held.botUserId).toBe(api.objects('/bot_users')[0]!.id);
    await expect(acquireLock(api, STACK, { ...options, runId: 'run-b' })).rejects.toThrow(/locked by me@here .*run run-a/);
  });

  it('of two records claiming one bot user, the earlier wins and the later withdraws', async () => {
    const api = apiWithUniqueNames();
    const bot = await api.create('/bot_users', { name: lockName(STACK), active: false });
    const unique = api.intercept!;
    api.intercept = async (request) => {
      if (request.method === 'POST' && request.path === '/ip_policies' && String(request.body?.metadata).includes('run-a')) {
        // Another caller's record lands first.
        api.intercept = unique;
        await api.create('/ip_policies', { metadata: `gatehouse-lock:v1 ${JSON.stringify({ stack: STACK, holder: 'other@there', run_id: 'run-b', started_at: new Date().toISOString(), lease_seconds: 3600, bot_user_id: bot.id })}` });
      }
      return unique(request);
    };
    await expect(acquireLock(api, STACK, { ...options, runId: 'run-a' })).rejects.toThrow(/locked by other@there/);
    expect(records(api).map((r) => JSON.parse(String(r.metadata).slice('gatehouse-lock:v1 '.length)).run_id)).toEqual(['run-b']);
    expect(api.objects('/bot_users')).toHaveLength(1);
  });
});
