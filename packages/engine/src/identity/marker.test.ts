import { METADATA_MAX_BYTES } from '@gatehouse/schemas/runtime';
import { describe, expect, test } from 'vitest';
import { composeMetadata, fitsMetadata, formatMarker, MARKER_PREFIX, markerFitsKind, metadataRoom, parseMarker } from './marker.js';

const marker = { stack: 'default', name: 'office', hash: '0123456789abcdef' };

test('user metadata round-trips unchanged, including newlines, "" and absent', () => {
  for (const user of [undefined, '', 'plain', '{"team":"a"}', 'line one\nline two', `x\n${formatMarker({ ...marker, stack: 'old' })}\ny`]) {
    const parsed = parseMarker(composeMetadata(user, marker));
    expect(parsed.user).toBe(user);
    expect(parsed.marker).toEqual(marker);
  }
});

test("metadata without a marker is all the user's", () => {
  expect(parseMarker('gatehouse:v1 not json')).toEqual({ user: 'gatehouse:v1 not json' });
  expect(parseMarker('hello')).toEqual({ user: 'hello' });
  expect(parseMarker(undefined)).toEqual({ user: undefined });
});

test('the marker records the stack and name exactly', () => {
  const parsed = parseMarker(composeMetadata('m', { stack: 'team b', name: 'api/path_prefix:/', hash: 'abc' }));
  expect(parsed.marker).toEqual({ stack: 'team b', name: 'api/path_prefix:/', hash: 'abc' });
});

test('metadataRoom leaves exactly enough bytes for the marker within 4096', () => {
  const room = metadataRoom('default', 'office');
  const full = composeMetadata('x'.repeat(room), marker);
  expect(Buffer.byteLength(full, 'utf8')).toBe(4096);
});

test('formatMarker writes the JSON of the marker object, fields in their fixed order', () => {
  const reference = (m: Parameters<typeof formatMarker>[0]) =>
    `gatehouse:v1 ${JSON.stringify({ stack: m.stack, name: m.name, hash: m.hash, ...(m.path !== undefined ? { path: m.path } : {}), ...(m.children !== undefined ? { children: m.children } : {}), ...(m.preventDestroy === true ? { prevent_destroy: true } : {}) })}`;
  for (const path of [undefined, '', 'manifests/a "b".yaml']) {
    for (const children of [undefined, 'abc']) {
      for (const preventDestroy of [undefined, false, true]) {
        const m = {
          stack: 'st\\ack',
          name: 'office/10.0.0.0/8 "é"',
          hash: '0123456789abcdef',
          ...(path !== undefined ? { path } : {}),
          ...(children !== undefined ? { children } : {}),
          ...(preventDestroy !== undefined ? { preventDestroy } : {}),
        };
        expect(formatMarker(m)).toBe(reference(m));
        expect(parseMarker(formatMarker(m)).marker).toEqual({
          stack: m.stack,
          name: m.name,
          hash: m.hash,
          ...(path ? { path } : {}),
          ...(children !== undefined ? { children } : {}),
          ...(preventDestroy ? { preventDestroy } : {}),
        });
      }
    }
  }
});

describe('a marker gatehouse did not write counts as none', () => {
  const line = (fields: Record<string, unknown>) => `note\n${MARKER_PREFIX}${JSON.stringify(fields)}`;
  const base = { stack: 'default', name: 'office', hash: '0123456789abcdef' };

  test.each([
    ['a path as its name', { name: '../../x' }],
    ['an absolute name', { name: '/etc/passwd' }],
    ['a name of several lines', { name: 'office\n+ IPPolicy forged' }],
    ['a bidi control in the stack', { stack: 'default\u202e' }],
    ['a blank stack', { stack: ' ' }],
    ['a hash that is not hex', { hash: '"; rm -rf /' }],
    ['a path that climbs out', { path: '../../etc/passwd' }],
    ['an absolute path', { path: '/etc/passwd' }],
    ['a Windows path', { path: 'C:\\manifests\\a.yaml' }],
    ['a path with an empty step', { path: 'manifests//a.yaml' }],
    ['prevent_destroy that is not a boolean', { prevent_destroy: 'yes' }],
    ['children that are not a hash', { children: { a: 1 } }],
  ])('%s', (_why, change) => {
    const metadata = line({ ...base, ...change });
    expect(parseMarker(metadata)).toEqual({ user: metadata });
  });

  test('not an object, or without a stack or name', () => {
    for (const json of ['[1]', '"x"', '{"stack":"default"}', '{"name":"office"}']) expect(parseMarker(`${MARKER_PREFIX}${json}`).marker).toBeUndefined();
  });

  test('a name is checked against its kind: a top-level object holds a manifest name, a child parent/key', () => {
    expect(markerFitsKind('office', false)).toBe(true);
    expect(markerFitsKind('office/10.0.0.0/8', false)).toBe(false);
    expect(markerFitsKind('..', false)).toBe(false);
    expect(markerFitsKind('office/10.0.0.0/8', true)).toBe(true);
    expect(markerFitsKind('api//v1', true)).toBe(true);
    expect(markerFitsKind('../x', true)).toBe(false);
    expect(markerFitsKind('office', true)).toBe(false);
    expect(markerFitsKind('office/', true)).toBe(false);
  });

  test('markers as gatehouse writes them still read: older ones without hash, path or children', () => {
    expect(parseMarker(`${MARKER_PREFIX}{"stack":"default","name":"office"}`).marker).toEqual({ stack: 'default', name: 'office', hash: '' });
    const full = { ...base, path: 'manifests/ip policies.yaml', children: '0123456789abcdef', prevent_destroy: true, future_field: { kept: 'ignored' } };
    expect(parseMarker(line(full)).marker).toEqual({ ...base, path: 'manifests/ip policies.yaml', children: '0123456789abcdef', preventDestroy: true });
  });
});

describe('fitsMetadata', () => {
  test('agrees with the UTF-8 length at the limit, for 1-, 2-, 3- and 4-byte characters', () => {
    for (const [char, bytes] of [
      ['a', 1],
      ['é', 2],
      ['€', 3],
      ['😀', 4],
    ] as const) {
      const fitting = char.repeat(Math.floor(METADATA_MAX_BYTES / bytes));
      expect(fitsMetadata(fitting), char).toBe(true);
      expect(fitsMetadata(fitting + char), char).toBe(Buffer.byteLength(fitting + char) <= METADATA_MAX_BYTES);
      expect(fitsMetadata(`${fitting}a`), char).toBe(Buffer.byteLength(`${fitting}a`) <= METADATA_MAX_BYTES);
    }
  });
});
