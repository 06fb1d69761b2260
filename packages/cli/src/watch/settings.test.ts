/** The checks of watch's own flags, and /healthz's window. */
import { describe, expect, it } from 'vitest';
import { CliError } from '../errors.js';
import { Health } from './health.js';
import { parseListenAddress, parseWebhook, readWatchSettings, type WatchFlagValues } from './settings.js';
import { maskCredentials } from './git.js';

const flags = (over: Partial<WatchFlagValues> = {}): WatchFlagValues => ({
  interval: '5m',
  'self-heal': false,
  'apply-git': false,
  prune: false,
  'git-pull': false,
  'metrics-addr': '127.0.0.1:9464',
  'lock-timeout': 0,
  ...over,
});

describe('readWatchSettings', () => {
  it('reads the interval and what may be applied', () => {
    expect(readWatchSettings(flags({ interval: '30s', 'self-heal': true, prune: true }))).toMatchObject({
      intervalMs: 30_000,
      allow: { outside: true, git: false, prune: true },
      metrics: { host: '127.0.0.1', port: 9464 },
    });
    expect(readWatchSettings(flags({ interval: '1h' })).intervalMs).toBe(3_600_000);
  });

  it.each(['0', '500ms', 'soon', '-1s'])('refuses --interval %s', (interval) => {
    expect(() => readWatchSettings(flags({ interval }))).toThrow(/--interval .* at least 1s/);
  });

  it('refuses --prune that nothing would use', () => {
    expect(() => readWatchSettings(flags({ prune: true }))).toThrow(CliError);
    expect(() => readWatchSettings(flags({ prune: true }))).toThrow(/--prune .* --self-heal or --apply-git/);
  });
});

describe('parseListenAddress', () => {
  it.each([
    ['127.0.0.1:9464', { host: '127.0.0.1', port: 9464 }],
    [':9464', { host: '0.0.0.0', port: 9464 }],
    ['[::1]:9464', { host: '::1', port: 9464 }],
    ['localhost:0', { host: 'localhost', port: 0 }],
  ])('%s', (text, address) => expect(parseListenAddress(text)).toEqual(address));

  it.each(['9464', '127.0.0.1', 'host:99999', 'a b:1'])('refuses %s', (text) => {
    expect(() => parseListenAddress(text)).toThrow(/--metrics-addr .* is not HOST:PORT/);
  });
});

describe('parseWebhook', () => {
  it('takes http(s) URLs and never echoes one it refuses', () => {
    expect(parseWebhook('https://hooks.slack.com/services/T0/B0/secret').hostname).toBe('hooks.slack.com');
    expect(() => parseWebhook('ftp://example.com/secret-path')).toThrow(/http:\/\/ or https:\/\//);
    expect(() => parseWebhook('not a url secret-token')).toThrow(CliError);
    try {
      parseWebhook('not a url secret-token');
    } catch (error) {
      expect((error as Error).message).not.toContain('secret-token');
    }
  });
});

describe('Health', () => {
  const t = (s: number) => new Date(Date.parse('2026-11-23T03:00:00Z') + s * 1000);

  it('is healthy while the last success ended within two intervals, and for two intervals after start', () => {
    const health = new Health(['production'], 60_000, t(0));
    expect(health.report(t(119)).healthy).toBe(true);
    expect(health.report(t(121)).healthy).toBe(false);
    health.cycleEnded('production', 'success', t(100));
    health.cycleEnded('production', 'failed', t(160));
    expect(health.report(t(220))).toEqual({
      healthy: true,
      environments: { production: { last_success: t(100).toISOString(), last_outcome: 'failed', healthy: true } },
    });
    expect(health.report(t(221)).healthy).toBe(false);
  });

  it('every environment must be healthy', () => {
    const health = new Health(['staging', 'production'], 60_000, t(0));
    health.cycleEnded('staging', 'success', t(200));
    expect(health.report(t(210))).toMatchObject({ healthy: false, environments: { staging: { healthy: true }, production: { healthy: false } } });
  });
});

describe('maskCredentials', () => {
  it('hides the user and token of a URL git prints', () => {
    expect(maskCredentials("fatal: unable to access 'https://x-access-token:ghp_abc123@github.com/org/repo.git/': 403")).toBe(
      "fatal: unable to access 'https://***@github.com/org/repo.git/': 403",
    );
    expect(maskCredentials('ssh://git@example.com/repo')).toBe('ssh://***@example.com/repo');
  });
});
