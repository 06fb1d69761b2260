import { describe, expect, it } from 'vitest';
import { checkCidr } from './cidr.js';

describe('checkCidr', () => {
  it('accepts canonical IPv4 and IPv6 ranges, returning IPv6 compressed and lowercased', () => {
    expect(checkCidr('203.0.113.0/24')).toEqual({ ok: true, cidr: '203.0.113.0/24' });
    expect(checkCidr('10.1.2.3/32')).toEqual({ ok: true, cidr: '10.1.2.3/32' });
    expect(checkCidr('2001:DB8:0:0::/32')).toEqual({ ok: true, cidr: '2001:db8::/32' });
  });

  it('rejects what the service rejects, saying what to write', () => {
    expect(checkCidr('10.0.0.1')).toMatchObject({ ok: false, reason: expect.stringContaining('10.0.0.1/32') });
    expect(checkCidr('10.0.0.1/8')).toMatchObject({ ok: false, reason: expect.stringContaining('write 10.0.0.0/8') });
    expect(checkCidr('300.0.0.0/8').ok).toBe(false);
    expect(checkCidr('10.0.0.0/33').ok).toBe(false);
    expect(checkCidr('2001:db8::/129').ok).toBe(false);
    expect(checkCidr('office').ok).toBe(false);
  });

  it('refuses IPv4 shorthand that would silently mean another range (octal, hex, fewer parts)', () => {
    expect(checkCidr('010.0.0.0/8').ok).toBe(false);
    expect(checkCidr('0x0a.0.0.0/8').ok).toBe(false);
    expect(checkCidr('10.0/16').ok).toBe(false);
  });
});

describe('checkCidr of near misses', () => {
  it('refuses text around, inside or beside a CIDR, and prefixes written with signs or leading zeros', () => {
    for (const text of [
      '1.2.3.4/5/6',
      '1.2.3/24',
      '1.2.3.4.5/24',
      ' 1.2.3.0/24',
      '1.2.3.0/24 ',
      '1.2.3.0/24\n',
      '1.2.3.0/+24',
      '1.2.3.0/-1',
      '0x1.2.3.0/24',
      '256.0.0.0/8',
      '1.2.3.0/',
    ]) {
      expect(checkCidr(text).ok, JSON.stringify(text)).toBe(false);
    }
  });
});
