import { describe, expect, it } from 'vitest';
import { checkCidr, checkCidrWithIpaddr } from './cidr.js';

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

describe('checkCidr of IPv4 in its usual form (computed without ipaddr.js)', () => {
  const byIpaddr = (text: string) => checkCidrWithIpaddr(text);
  it('gives what ipaddr.js gives, for every prefix length, edge octets and near misses', () => {
    const octets = ['0', '1', '9', '10', '99', '100', '127', '128', '192', '254', '255', '256', '300', '999', '01', '00', '010'];
    const texts: string[] = [];
    for (const a of octets) for (const b of ['0', '255', '256', '1']) for (const bits of ['0', '1', '7', '8', '9', '16', '23', '24', '25', '31', '32', '33', '08', '032', '']) {
      texts.push(`${a}.${b}.0.0/${bits}`, `${a}.0.${b}.1/${bits}`, `10.${a}.${b}.128/${bits}`, `255.255.${b}.${a}/${bits}`);
    }
    texts.push('1.2.3.4/5/6', '1.2.3/24', '1.2.3.4.5/24', ' 1.2.3.0/24', '1.2.3.0/24 ', '1.2.3.0/24\n', '1.2.3.0/+24', '1.2.3.0/-1', '0x1.2.3.0/24');
    for (const text of texts) expect(checkCidr(text), text).toEqual(byIpaddr(text));
  });

  it('gives what ipaddr.js gives for random addresses and prefixes', () => {
    let seed = 7;
    const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let i = 0; i < 5000; i++) {
      const text = `${random(256)}.${random(256)}.${random(256)}.${random(256)}/${random(33)}`;
      expect(checkCidr(text), text).toEqual(byIpaddr(text));
    }
  });
});
