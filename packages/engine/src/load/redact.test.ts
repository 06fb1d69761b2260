/** The last line of defence: secret values, and the parts of them an API error may quote alone, never reach a message. */
import { describe, expect, it } from 'vitest';
import { secretRedactor } from './redact.js';

const use = (name: string, value: string) => ({ path: ['spec'], names: [name], value, raw: [value], template: `\${env:${name}}` });

describe('secretRedactor', () => {
  it('replaces a secret value, whole and JSON-escaped', () => {
    const redact = secretRedactor([use('TOKEN', 'to"ken-1234')]);
    expect(redact('got to"ken-1234 and "to\\"ken-1234"')).toBe('got (sensitive: env TOKEN) and "(sensitive: env TOKEN)"');
  });

  it('replaces the host an answer quotes from a secret host:port, and leaves the short port alone', () => {
    const redact = secretRedactor([use('HP', 'secrethost-qq.example.com:443')]);
    expect(redact("400 invalid_hostport: hostports[0]: 'secrethost-qq.example.com' is not a reserved domain")).toBe(
      "400 invalid_hostport: hostports[0]: '(sensitive: env HP)' is not a reserved domain",
    );
    expect(redact('port 443')).toBe('port 443');
  });

  it('replaces the parts of a secret URL of 8 characters or more, not shorter ones', () => {
    const redact = secretRedactor([use('HOOK', 'https://hooks.example.com/T0001/XXXXXXXXXXXX')]);
    expect(redact('unreachable: hooks.example.com; token XXXXXXXXXXXX; over https')).toBe(
      'unreachable: (sensitive: env HOOK); token (sensitive: env HOOK); over https',
    );
  });

  it('leaves values shorter than 4 characters alone', () => {
    expect(secretRedactor([use('REGION', 'eu')])('region eu')).toBe('region eu');
  });
});
