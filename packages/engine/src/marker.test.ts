import { expect, test } from 'vitest';
import { composeMetadata, formatMarker, metadataRoom, parseMarker } from './marker.js';

const marker = { stack: 'default', name: 'office', hash: '0123456789abcdef' };

test('user metadata round-trips unchanged, including newlines, "" and absent', () => {
  for (const user of [undefined, '', 'plain', '{"team":"a"}', 'line one\nline two', `x\n${formatMarker({ ...marker, stack: 'old' })}\ny`]) {
    const parsed = parseMarker(composeMetadata(user, marker));
    expect(parsed.user).toBe(user);
    expect(parsed.marker).toEqual(marker);
  }
});

test('metadata without a marker is all the user\'s', () => {
  expect(parseMarker('gatehouse:v1 not json')).toEqual({ user: 'gatehouse:v1 not json' });
  expect(parseMarker('hello')).toEqual({ user: 'hello' });
  expect(parseMarker(undefined)).toEqual({ user: undefined });
});

test('the marker records the stack and name exactly', () => {
  const parsed = parseMarker(composeMetadata('m', { stack: 'team b', name: 'api/path_prefix:/', hash: 'h' }));
  expect(parsed.marker).toEqual({ stack: 'team b', name: 'api/path_prefix:/', hash: 'h' });
});

test('metadataRoom leaves exactly enough bytes for the marker within 4096', () => {
  const room = metadataRoom('default', 'office');
  const full = composeMetadata('x'.repeat(room), marker);
  expect(Buffer.byteLength(full, 'utf8')).toBe(4096);
});
