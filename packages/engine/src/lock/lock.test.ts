/**
 * When a lock's holder counts as certainly dead (`holderIsDead`): only on this boot and pid
 * namespace, with no process of that pid; anything less certain keeps the lock.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { currentProcess, holderIsDead, type ProcessIdentity } from './lock.js';

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
