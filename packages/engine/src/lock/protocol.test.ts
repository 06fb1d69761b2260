/**
 * When a lock's holder counts as certainly dead (`holderIsDead`): only on this boot and pid
 * namespace, with no process of that pid; anything less certain keeps the lock.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { MemoryLiveApi } from '../apply/memory-api.js';
import { LiveApiError } from '../ports.js';
import { acquireLock, lockWhileReading } from './protocol.js';
import { breakLock, readLock } from './storage.js';
import { currentProcess, holderIsDead, type ProcessIdentity } from './process.js';
import { isLockObject, LockHeld, lockIsActive, lockName, LockLost, lockNote, lockOf } from './record.js';

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

  it('takes the lock when its bot user create failed with a 503 before the write: the create is tried again like any request', async () => {
    const api = apiWithUniqueNames();
    const unique = api.intercept!;
    let posts = 0;
    api.intercept = (request) => {
      if (request.method === 'POST' && request.path === '/bot_users' && ++posts === 1) throw new LiveApiError('service unavailable', 503, 'unavailable', true);
      return unique(request);
    };
    const held = await acquireLock(api, STACK, { ...options, runId: 'run-a', renewEveryMs: 3_600_000 });
    expect(posts).toBe(2);
    expect(api.objects('/bot_users').map((b) => b.id)).toEqual([held.botUserId]);
    await held.release();
  });

  /** Lets `answer` decide the first `times` record creates (`'lost'`, or a throw); then the service's own rules. */
  function recordCreates(api: MemoryLiveApi, times: number, answer: () => 'lost' | never): { posts: () => number } {
    const unique = api.intercept!;
    let posts = 0;
    api.intercept = (request) => {
      if (request.method === 'POST' && request.path === '/ip_policies' && ++posts <= times) return answer();
      return unique(request);
    };
    return { posts: () => posts };
  }
  const runIdOf = (policy: { metadata?: unknown }) => JSON.parse(String(policy.metadata).slice('gatehouse-lock:v1 '.length)).run_id;

  it('holds the lock when the answer to its record create was lost: finds its record by run id, sends it once, and releases it whole', async () => {
    const api = apiWithUniqueNames();
    const creates = recordCreates(api, 1, () => 'lost');
    const held = await acquireLock(api, STACK, { ...options, runId: 'run-a', renewEveryMs: 3_600_000 });
    expect(creates.posts()).toBe(1);
    expect(records(api).map(runIdOf)).toEqual(['run-a']);
    expect(held.recordId).toBe(records(api)[0]!.id);
    expect(await readLock(api, STACK)).toMatchObject({ run_id: 'run-a', holder: 'me@here', record_id: held.recordId, bot_user_id: held.botUserId });
    // Held for real: another caller is refused, naming this run.
    await expect(acquireLock(api, STACK, { ...options, holder: 'other@there', runId: 'run-b' })).rejects.toThrow(/locked by me@here .*run run-a/);
    await held.release();
    expect(api.objects('/bot_users')).toEqual([]);
    expect(records(api)).toEqual([]);
  });

  it('sends the record again when a failed create (5xx before the write) left none; one record, the lock held', async () => {
    const api = apiWithUniqueNames();
    const creates = recordCreates(api, 2, () => {
      throw new LiveApiError('service unavailable', 503, 'unavailable', true);
    });
    const held = await acquireLock(api, STACK, { ...options, runId: 'run-a', renewEveryMs: 3_600_000 });
    expect(creates.posts()).toBe(3);
    expect(records(api).map(runIdOf)).toEqual(['run-a']);
    expect(await readLock(api, STACK)).toMatchObject({ run_id: 'run-a', record_id: held.recordId });
    await held.release();
    expect(records(api)).toEqual([]);
  });

  it('a record of the same run id written by another process is not taken for its own: it sends its own, and the earlier claim wins', async () => {
    const api = apiWithUniqueNames();
    const bot = await api.create('/bot_users', { name: lockName(STACK), active: false });
    const unique = api.intercept!;
    let posts = 0;
    api.intercept = async (request) => {
      if (request.method === 'POST' && request.path === '/ip_policies' && String(request.body?.metadata).includes('me@here') && ++posts === 1) {
        // A second process given the same GATEHOUSE_RUN_ID claims the bot user first; our answer is then lost before the write.
        await api.create('/ip_policies', {
          metadata: `gatehouse-lock:v1 ${JSON.stringify({ stack: STACK, holder: 'other@there', run_id: 'run-a', started_at: new Date().toISOString(), lease_seconds: 3600, bot_user_id: bot.id })}`,
        });
        throw new LiveApiError('socket hang up', undefined, 'network_error', true, true);
      }
      return unique(request);
    };
    await expect(acquireLock(api, STACK, { ...options, runId: 'run-a' })).rejects.toThrow(/locked by other@there/);
    expect(posts).toBe(2);
    expect(records(api).map((r) => JSON.parse(String(r.metadata).slice('gatehouse-lock:v1 '.length)).holder)).toEqual(['other@there']);
  });

  it('never proceeds without its record: when every create fails it throws, leaves no record of its run, and the bot user stays claimable', async () => {
    const api = apiWithUniqueNames();
    // Each create answered 502 without its write being made: looked up, not found, sent again.
    // (Five: the attempts the client makes of one create; the next acquisition's create goes through.)
    const creates = recordCreates(api, api.attempts, () => {
      throw new LiveApiError('bad gateway', 502, 'bad_gateway', true);
    });
    await expect(acquireLock(api, STACK, { ...options, runId: 'run-a' })).rejects.toThrow('bad gateway');
    expect(creates.posts()).toBe(5);
    expect(records(api)).toEqual([]);
    expect(await readLock(api, STACK)).toMatchObject({ bot_user_id: api.objects('/bot_users')[0]!.id });
    expect((await readLock(api, STACK))!.record_id).toBeUndefined();
    // The next apply claims the bot user left without a record.
    const next = await acquireLock(api, STACK, { ...options, runId: 'run-b', renewEveryMs: 3_600_000 });
    expect(records(api).map(runIdOf)).toEqual(['run-b']);
    await next.release();
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
        await api.create('/ip_policies', {
          metadata: `gatehouse-lock:v1 ${JSON.stringify({ stack: STACK, holder: 'other@there', run_id: 'run-b', started_at: new Date().toISOString(), lease_seconds: 3600, bot_user_id: bot.id })}`,
        });
      }
      return unique(request);
    };
    await expect(acquireLock(api, STACK, { ...options, runId: 'run-a' })).rejects.toThrow(/locked by other@there/);
    expect(records(api).map((r) => JSON.parse(String(r.metadata).slice('gatehouse-lock:v1 '.length)).run_id)).toEqual(['run-b']);
    expect(api.objects('/bot_users')).toHaveLength(1);
  });
});

describe('renewal: the holder renews its record; staleness counts from the latest renewal', () => {
  const STACK = 'web';
  const options = { process: null, holder: 'me@here', sleep: async () => undefined } as const;
  const recordOf = (api: MemoryLiveApi) =>
    JSON.parse(String(api.objects('/ip_policies').find((p) => isLockObject('IPPolicy', p))!.metadata).slice('gatehouse-lock:v1 '.length));
  /** Resolves at the `n`th write of `method` (a renewal is a PATCH), after it was carried out. */
  const nth = (api: MemoryLiveApi, method: string, n: number) =>
    new Promise<void>((resolve) => {
      let seen = 0;
      api.intercept = (request) => {
        if (request.method === method && ++seen === n) setImmediate(resolve);
        return undefined;
      };
    });

  it('writes renewed_at every renewEveryMs; a lock renewed within its lease is not stale however old its start', async () => {
    const api = new MemoryLiveApi();
    let clock = Date.parse('2026-01-01T00:00:00Z');
    const renewed = nth(api, 'PATCH', 2);
    const held = await acquireLock(api, STACK, { ...options, runId: 'run-a', leaseSeconds: 60, renewEveryMs: 5, now: () => new Date((clock += 30_000)) });
    await renewed;
    const record = recordOf(api);
    expect(record).toMatchObject({ run_id: 'run-a', lease_seconds: 60, renewed_at: expect.any(String) });
    expect(Date.parse(record.renewed_at)).toBeGreaterThan(Date.parse(record.started_at));
    // Two minutes after its start (twice its lease) but 30 s after its renewal: held, not stale.
    const atRenewal = Date.parse(record.renewed_at);
    expect(await readLock(api, STACK, new Date(atRenewal + 30_000))).toMatchObject({ stale: false, renewed_at: record.renewed_at, since: record.started_at });
    expect(await readLock(api, STACK, new Date(atRenewal + 61_000))).toMatchObject({ stale: true });
    await held.release();
    expect(await readLock(api, STACK)).toBeUndefined();
  });

  it('reads records of older versions (no renewed_at): staleness from the start', () => {
    const bots = [{ id: 'bot_1', name: lockName(STACK), created_at: '2026-01-01T00:00:00Z' }];
    const record = { stack: STACK, holder: 'old@host (pid 1)', run_id: 'r', started_at: '2026-01-01T00:00:00Z', lease_seconds: 3600, bot_user_id: 'bot_1' };
    const policies = [{ id: 'ipp_1', metadata: `gatehouse-lock:v1 ${JSON.stringify(record)}` }];
    expect(lockOf(STACK, bots, policies, new Date('2026-01-01T00:59:00Z'))).toMatchObject({ stale: false, holder: 'old@host (pid 1)' });
    expect(lockOf(STACK, bots, policies, new Date('2026-01-01T01:01:00Z'))).toMatchObject({ stale: true });
    expect(lockOf(STACK, bots, policies, new Date('2026-01-01T01:01:00Z'))!.renewed_at).toBeUndefined();
  });

  it('a renewal that fails (5xx) is reported and tried again; the lock is not lost', async () => {
    const api = new MemoryLiveApi();
    // Each failure is one that outlived the client's retries.
    api.attempts = 1;
    const errors: string[] = [];
    let failures = 0;
    let patches = 0;
    const twoMore = new Promise<void>((resolve) => {
      api.intercept = (request) => {
        if (request.method !== 'PATCH') return undefined;
        patches += 1;
        if (failures < 2) {
          failures += 1;
          throw new LiveApiError('service unavailable', 503, 'unavailable', true);
        }
        if (patches === 3) setImmediate(resolve);
        return undefined;
      };
    });
    const held = await acquireLock(api, STACK, { ...options, runId: 'run-a', renewEveryMs: 2, onRenewalError: (e) => errors.push(e.message) });
    await twoMore;
    expect(errors).toEqual(['service unavailable', 'service unavailable']);
    expect(held.lost.aborted).toBe(false);
    expect(recordOf(api).renewed_at).toEqual(expect.any(String));
    await held.release();
  });

  it('a holder whose lock was removed (unlock) and taken by another learns it at its next renewal, and its release leaves the new lock alone', async () => {
    const api = new MemoryLiveApi();
    const first = await acquireLock(api, STACK, { ...options, runId: 'run-a', renewEveryMs: 2 });
    const lost = new Promise<unknown>((resolve) => first.lost.addEventListener('abort', () => resolve(first.lost.reason), { once: true }));
    await breakLock(api, STACK);
    const second = await acquireLock(api, STACK, { ...options, holder: 'other@there', runId: 'run-b', renewEveryMs: 60_000 });
    const reason = await lost;
    expect(reason).toBeInstanceOf(LockLost);
    expect((reason as Error).message).toMatch(
      /lost the lock of stack "web" while applying: its bot user gatehouse-lock\.web \(\S+\) was removed; nothing more was written/,
    );
    await first.release();
    expect(await readLock(api, STACK)).toMatchObject({ run_id: 'run-b', holder: 'other@there' });
    expect(second.lost.aborted).toBe(false);
    await second.release();
  });

  it('a holder whose record alone was removed has lost the lock too', async () => {
    const api = new MemoryLiveApi();
    const held = await acquireLock(api, STACK, { ...options, runId: 'run-a', renewEveryMs: 2 });
    const lost = new Promise<unknown>((resolve) => held.lost.addEventListener('abort', () => resolve(held.lost.reason), { once: true }));
    await api.remove(`/ip_policies/${held.recordId}`);
    expect(String(((await lost) as Error).message)).toMatch(/its record \(IP policy \S+\) was removed/);
    await held.release();
    expect(api.objects('/bot_users')).toEqual([]);
  });
});

describe('acquireLock requests', () => {
  it('takes a free lock with two writes and one listing of the IP policies, which also clears records of earlier lock bot users', async () => {
    const api = new MemoryLiveApi();
    // A record left by a release cut short: it claims a bot user that no longer exists.
    await api.create('/ip_policies', {
      metadata: `gatehouse-lock:v1 ${JSON.stringify({ stack: 'web', holder: 'old@there', run_id: 'run-old', started_at: new Date().toISOString(), lease_seconds: 3600, bot_user_id: 'bot_gone' })}`,
    });
    await api.create('/ip_policies', { description: 'a user policy' });
    const listed: string[] = [];
    const list = api.list.bind(api);
    api.list = (path: string) => {
      listed.push(path);
      return list(path);
    };
    const writes = api.log.length;
    const held = await acquireLock(api, 'web', { process: null, holder: 'me@here', renewEveryMs: 3_600_000 });
    expect(listed).toEqual(['/ip_policies']);
    expect(api.log.slice(writes).map((r) => `${r.method} ${r.path}`)).toEqual(['POST /bot_users', 'POST /ip_policies', 'DELETE /ip_policies/ipp_1']);
    expect(api.objects('/ip_policies').map((p) => p.description)).toEqual(['a user policy', 'gatehouse lock of stack "web"']);
    await held.release();
  });
});

describe('lockWhileReading: the read runs under the claim and confirms it', () => {
  const STACK = 'web';
  const options = { process: null, holder: 'me@here', sleep: async () => undefined, renewEveryMs: 3_600_000 } as const;
  const lockRecords = (api: MemoryLiveApi) => api.objects('/ip_policies').filter((p) => isLockObject('IPPolicy', p));

  it('reads once the bot user is claimed and the record written, and confirms the claim from what was read: two writes to take, two to release', async () => {
    const api = new MemoryLiveApi();
    const listed: string[] = [];
    const list = api.list.bind(api);
    api.list = (path: string) => {
      listed.push(path);
      return list(path);
    };
    let readAfter: string[] | undefined;
    const { lock, value } = await lockWhileReading(
      api,
      STACK,
      options,
      async () => {
        readAfter = api.log.map((r) => `${r.method} ${r.path}`);
        return { policies: api.objects('/ip_policies') };
      },
      (read) => read.policies,
    );
    // The read saw the lock taken: the previous holder's writes had all ended.
    expect(readAfter).toEqual(['POST /bot_users', 'POST /ip_policies']);
    // The claim was confirmed from the read, with no listing of the lock's own.
    expect(listed).toEqual([]);
    expect(value.policies).toHaveLength(1);
    expect(await readLock(api, STACK)).toMatchObject({ holder: 'me@here', bot_user_id: lock.botUserId });
    const before = api.log.length;
    await lock.release();
    expect(api.log.slice(before).map((r) => r.method)).toEqual(['DELETE', 'DELETE']);
    expect(api.objects('/bot_users')).toEqual([]);
    expect(lockRecords(api)).toEqual([]);
  });

  it('a claim lost to an earlier record discards the read and starts over within the timeout; with none left it names the holder', async () => {
    const api = new MemoryLiveApi();
    // The service's unique bot user names, which the in-memory API does not enforce itself.
    const unique = (request: { method: string; path: string; body?: Record<string, unknown> }) => {
      if (request.method === 'POST' && request.path === '/bot_users' && api.objects('/bot_users').some((b) => b.name === request.body?.name)) {
        throw new LiveApiError('name taken', 400, 'duplicate_name', false);
      }
      return undefined;
    };
    const bot = await api.create('/bot_users', { name: lockName(STACK), active: false });
    const other = (runId: string) =>
      `gatehouse-lock:v1 ${JSON.stringify({ stack: STACK, holder: 'other@there', run_id: runId, started_at: new Date().toISOString(), lease_seconds: 3600, bot_user_id: bot.id })}`;
    // Another caller claims the record-less bot user just before us.
    api.intercept = async (request) => {
      if (request.method === 'POST' && request.path === '/ip_policies' && String(request.body?.metadata).includes('run-a')) {
        api.intercept = unique;
        await api.create('/ip_policies', { metadata: other('run-b') });
      }
      return unique(request);
    };
    let reads = 0;
    await expect(lockWhileReading(api, STACK, { ...options, runId: 'run-a' }, async () => ++reads)).rejects.toThrow(/locked by other@there/);
    expect(reads).toBe(1);
    const runIds = () => lockRecords(api).map((r) => JSON.parse(String(r.metadata).slice('gatehouse-lock:v1 '.length)).run_id);
    expect(runIds()).toEqual(['run-b']);
    expect(api.objects('/bot_users')).toHaveLength(1);

    // With a timeout: the other holder releases while this caller waits; then it holds the lock.
    api.intercept = unique;
    const otherReleases = async () => {
      for (const record of lockRecords(api)) await api.remove(`/ip_policies/${String(record.id)}`);
      for (const b of api.objects('/bot_users')) await api.remove(`/bot_users/${String(b.id)}`);
    };
    reads = 0;
    const { lock, value } = await lockWhileReading(api, STACK, { ...options, runId: 'run-c', timeoutMs: 60_000, sleep: otherReleases }, async () => ++reads);
    expect([reads, value]).toEqual([1, 1]);
    expect(runIds()).toEqual(['run-c']);
    await lock.release();

    // Lost on the first attempt (a record of run-d lands first), won on the second.
    await api.create('/bot_users', { name: lockName(STACK), active: false });
    api.intercept = async (request) => {
      if (request.method === 'POST' && request.path === '/ip_policies' && String(request.body?.metadata).includes('run-e')) {
        api.intercept = unique;
        await api.create('/ip_policies', { metadata: other('run-d').replace(String(bot.id), String(api.objects('/bot_users')[0]!.id)) });
      }
      return unique(request);
    };
    reads = 0;
    const second = await lockWhileReading(api, STACK, { ...options, runId: 'run-e', timeoutMs: 60_000, sleep: otherReleases }, async () => ++reads);
    expect([reads, second.value]).toEqual([2, 2]);
    expect(runIds()).toEqual(['run-e']);
    await second.lock.release();
    expect(api.objects('/bot_users')).toEqual([]);
  });

  it('a failed read releases the lock and throws its error', async () => {
    const api = new MemoryLiveApi();
    await expect(lockWhileReading(api, STACK, options, async () => Promise.reject(new Error('manifests invalid')))).rejects.toThrow('manifests invalid');
    expect(api.objects('/bot_users')).toEqual([]);
    expect(lockRecords(api)).toEqual([]);
  });
});

describe('what is said of a held lock (LockHeld, lockNote)', () => {
  const STACK = 'web';
  const heldBy = (process?: ProcessIdentity, startedAt = new Date().toISOString()) => {
    const bots = [{ id: 'bot_1', name: lockName(STACK), created_at: startedAt }];
    const record = {
      stack: STACK,
      holder: 'ci@runner (pid 7)',
      run_id: 'r1',
      started_at: startedAt,
      lease_seconds: 3600,
      bot_user_id: 'bot_1',
      ...(process ? { process } : {}),
    };
    return lockOf(STACK, bots, [{ id: 'ipp_1', metadata: `gatehouse-lock:v1 ${JSON.stringify(record)}` }])!;
  };

  it('an apply that did not wait (--lock-timeout 0) does not claim it waited', async () => {
    const api = new MemoryLiveApi();
    api.intercept = (request) => {
      if (request.method === 'POST' && request.path === '/bot_users' && api.objects('/bot_users').some((b) => b.name === request.body?.name))
        throw new LiveApiError('name taken', 400, 'duplicate_name', false);
      return undefined;
    };
    const first = await acquireLock(api, STACK, { process: null, holder: 'first@here' });
    // A slow API: the attempt itself takes time, which is no waiting on the user's part.
    let clock = Date.parse('2026-01-01T00:00:00Z');
    const error = await acquireLock(api, STACK, { process: null, holder: 'second@here', timeoutMs: 0, now: () => new Date((clock += 1500)) }).catch(
      (e: Error) => e,
    );
    expect(error).toBeInstanceOf(LockHeld);
    expect((error as Error).message).toContain('locked by first@here');
    expect((error as Error).message).not.toContain('waited');
    expect((error as Error).message).toContain('pass --lock-timeout to wait');
    await first.release();
  });

  it('a stale lock is not called a running apply: the message says to unlock it', () => {
    const stale = heldBy(undefined, new Date(Date.now() - 2 * 3600_000).toISOString());
    const message = new LockHeld(stale, STACK, 0).message;
    expect(message).toContain('STALE');
    expect(message).toContain('gatehouse unlock --stack web');
    expect(message).not.toContain('another apply of this stack is running');
    expect(lockNote(stale, 'this plan may be outdated when it ends')).not.toContain('probably running');
  });

  it('plan and drift say an apply is probably running, unless its holder is known dead here', () => {
    expect(lockNote(heldBy(), 'this plan may be outdated when it ends')).toMatch(/an apply is probably running, so this plan may be outdated when it ends$/);
    const dead = heldBy({ ...here, pid: Number(exitedPid()) });
    const note = lockNote(dead, 'this plan may be outdated when it ends', here);
    expect(note).toContain('no longer runs on this machine');
    expect(note).toContain('the next apply takes the lock over');
    expect(note).not.toContain('probably running');
  });

  it('is active (an apply probably runs) unless stale or its holder is known dead here', () => {
    expect(lockIsActive(heldBy({ ...here, pid: process.ppid }), here)).toBe(true);
    expect(lockIsActive(heldBy({ ...here, pid: Number(exitedPid()) }), here)).toBe(false);
    expect(lockIsActive(heldBy(undefined, new Date(Date.now() - 2 * 3600_000).toISOString()), here)).toBe(false);
  });
});

describe('waiting for a held lock', () => {
  /** An API where stack `web`'s lock is held by `first@here`, and that refuses a second lock bot user as the service does (name taken); `refused` counts those refusals. */
  async function heldLock() {
    const api = new MemoryLiveApi();
    const held = { api, refused: 0, first: await acquireLock(api, 'web', { process: null, holder: 'first@here' }) };
    api.intercept = (request) => {
      if (request.method === 'POST' && request.path === '/bot_users' && api.objects('/bot_users').some((b) => b.name === request.body?.name)) {
        held.refused += 1;
        throw new LiveApiError('name taken', 400, 'duplicate_name', false);
      }
      return undefined;
    };
    return held;
  }

  it('tells onWait once, naming the holder, when it starts waiting; not at all with timeout 0', async () => {
    const { api, first } = await heldLock();
    const told: (string | undefined)[] = [];
    let clock = 0;
    const error = await acquireLock(api, 'web', {
      process: null,
      timeoutMs: 10_000,
      pollMs: 1000,
      now: () => new Date((clock += 1000)),
      sleep: async () => undefined,
      onWait: (lock) => told.push(lock?.holder),
    }).catch((e: Error) => e);
    expect(error).toBeInstanceOf(LockHeld);
    expect((error as Error).message).toMatch(/waited \d+ s \(--lock-timeout\)/);
    expect(told).toEqual(['first@here']);
    told.length = 0;
    await acquireLock(api, 'web', { process: null, timeoutMs: 0, onWait: (lock) => told.push(lock?.holder) }).catch(() => undefined);
    expect(told).toEqual([]);
    await first.release();
  });
  it('each poll costs the refused create and one reading of the lock, out of the budget the holder spends too', async () => {
    const held = await heldLock();
    const { api, first } = held;
    const listed: string[] = [];
    const list = api.list.bind(api);
    api.list = (path) => {
      listed.push(path);
      return list(path);
    };
    let clock = 0;
    let polls = 0;
    const error = await acquireLock(api, 'web', {
      process: null,
      timeoutMs: 5_000,
      pollMs: 1000,
      now: () => new Date(clock),
      sleep: async (ms) => {
        polls += 1;
        clock += ms;
      },
    }).catch((e: Error) => e);
    expect(error).toBeInstanceOf(LockHeld);
    expect(polls).toBe(5);
    // One attempt a poll and the last one, each followed by one reading (the bot users, then the records).
    expect(held.refused).toBe(6);
    expect(listed).toEqual(Array.from({ length: 6 }, () => ['/bot_users', '/ip_policies']).flat());
    await first.release();
  });

  it('looks again every 10 s by default', async () => {
    const { api, first } = await heldLock();
    let clock = 0;
    const waits: number[] = [];
    await acquireLock(api, 'web', {
      process: null,
      timeoutMs: 25_000,
      now: () => new Date(clock),
      sleep: async (ms) => {
        waits.push(ms);
        clock += ms;
      },
    }).catch(() => undefined);
    expect(waits).toEqual([10_000, 10_000, 5_000]);
    await first.release();
  });
});
